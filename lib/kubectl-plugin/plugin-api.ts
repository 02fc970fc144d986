/**
 * The API requests of `kubectl everynode`, on the connection of the user's kubeconfig: GET, LIST,
 * WATCH and PATCH of DaemonSets of either managed kind, and LIST of ControllerRevisions, Nodes and
 * Pods, as plain JSON (the commands read, compare and print objects as the server sends them,
 * fields the client-node models do not know included). An error answer becomes a KubectlError
 * carrying the Status's reason and message, which is what kubectl prints.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { createInterface } from 'node:readline';
import type { KubeConnection } from '../kube/connection/kube-connection.ts';
import { type ManagedKind, managedResourceOf } from '../kube/managed-kind.ts';
import { goDurationString } from './go-duration.ts';
import { KubectlError } from './kubectl-error.ts';

/** A Kubernetes object as JSON. */
export type KubeObject = Record<string, unknown> & {
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
    ownerReferences?: Array<{ uid?: string; controller?: boolean }>;
  };
};

/** A LIST answer: its items and the resourceVersion to watch from. */
export interface ObjectList {
  readonly items: KubeObject[];
  readonly resourceVersion: string;
}

/**
 * One watch event as the server sends it, undecoded: a BOOKMARK or an ERROR (a Status) carries its
 * `object` as any other event does. Unlike the KubePort's typed `WatchEvent<T>`, nothing is typed
 * or turned into an error here: `rollout status` reads the object as plain JSON.
 */
export interface RawWatchEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly object: KubeObject;
}

/** The PATCH content types kubectl uses. */
export type PatchType =
  | 'application/strategic-merge-patch+json'
  | 'application/merge-patch+json'
  | 'application/json-patch+json';

const USER_AGENT = 'kubectl-everynode';

function collectionPath(kind: ManagedKind, namespace: string): string {
  const { group, version, plural } = managedResourceOf(kind);
  return `/apis/${group}/${version}/namespaces/${encodeURIComponent(namespace)}/${plural}`;
}

async function bodyOf(stream: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

/** The KubectlError of an error answer: its Status's message and reason, as kubectl prints them. */
function answerError(code: number, text: string): KubectlError {
  let status: { message?: string; reason?: string } = {};
  try {
    status = JSON.parse(text) as typeof status;
  } catch {
    status = { message: text.trim() || `the server responded with status ${code}` };
  }
  return new KubectlError(status.message ?? `the server responded with status ${code}`, {
    serverReason: status.reason ?? '',
  });
}

/** kubectl's words for a request that never reached the server. */
function connectionError(server: string, error: unknown): KubectlError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED') {
    return new KubectlError(
      `The connection to the server ${new URL(server).host} was refused - did you specify the right host or port?`,
      { bare: true, cause: error },
    );
  }
  return new KubectlError(`Unable to connect to the server: ${(error as Error).message}`, {
    bare: true,
    cause: error,
  });
}

/** The API of one cluster, for the commands. */
export class PluginApi {
  /**
   * `requestTimeoutMs` is `--request-timeout` (0: none): as client-go, every request but a watch
   * carries it as the `timeout` parameter and gives up on its own after it.
   */
  constructor(
    private readonly connection: KubeConnection,
    private readonly requestTimeoutMs = 0,
  ) {}

  private async open(
    method: string,
    path: string,
    query: Readonly<Record<string, string>>,
    body?: { readonly type: PatchType; readonly text: string },
    signal?: AbortSignal,
  ): Promise<IncomingMessage> {
    const url = new URL(this.connection.server.replace(/\/+$/, '') + path);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
    const headers: Record<string, string> = {
      ...(await this.connection.authHeaders()),
      'User-Agent': USER_AGENT,
      Accept: 'application/json',
      ...(body ? { 'Content-Type': body.type } : {}),
    };
    const send = url.protocol === 'http:' ? http.request : https.request;
    try {
      return await new Promise<IncomingMessage>((resolve, reject) => {
        const request = send(url, { method, agent: this.connection.agent, headers, signal }, resolve);
        request.on('error', reject);
        request.end(body?.text);
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw connectionError(this.connection.server, error);
    }
  }

  private async call(
    method: string,
    path: string,
    query: Readonly<Record<string, string>> = {},
    body?: { readonly type: PatchType; readonly text: string },
  ): Promise<KubeObject> {
    const timeout = this.requestTimeoutMs;
    if (timeout <= 0) return this.answer(await this.open(method, path, query, body));
    const signal = AbortSignal.timeout(timeout);
    try {
      const timed = { ...query, timeout: goDurationString(timeout) };
      return await this.answer(await this.open(method, path, timed, body, signal));
    } catch (error) {
      if (!signal.aborted) throw error;
      // client-go's http.Client with its Timeout, as kubectl prints it (a url.Error).
      const url = `${this.connection.server.replace(/\/+$/, '')}${path}`;
      throw new KubectlError(
        `Unable to connect to the server: ${method === 'GET' ? 'Get' : 'Patch'} "${url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
        { bare: true, cause: error },
      );
    }
  }

  private async answer(response: IncomingMessage): Promise<KubeObject> {
    const text = await bodyOf(response);
    const code = response.statusCode ?? 0;
    if (code < 200 || code > 299) throw answerError(code, text);
    return JSON.parse(text) as KubeObject;
  }

  /** The DaemonSet `name` of `kind` in `namespace`; a NotFound KubectlError when there is none. */
  getDaemonSet(kind: ManagedKind, namespace: string, name: string): Promise<KubeObject> {
    return this.call('GET', `${collectionPath(kind, namespace)}/${encodeURIComponent(name)}`);
  }

  /** The DaemonSets of `kind` in `namespace` (all, or the one a field selector names). */
  async listDaemonSets(kind: ManagedKind, namespace: string, fieldSelector?: string): Promise<ObjectList> {
    const list = await this.call(
      'GET',
      collectionPath(kind, namespace),
      fieldSelector ? { fieldSelector } : {},
    );
    return listOf(list);
  }

  /** The ControllerRevisions of `namespace` matching `labelSelector`. */
  async listControllerRevisions(namespace: string, labelSelector: string): Promise<ObjectList> {
    const path = `/apis/apps/v1/namespaces/${encodeURIComponent(namespace)}/controllerrevisions`;
    return listOf(await this.call('GET', path, labelSelector === '' ? {} : { labelSelector }));
  }

  /** The cluster's nodes. */
  async listNodes(): Promise<ObjectList> {
    return listOf(await this.call('GET', '/api/v1/nodes'));
  }

  /** The pods of `namespace` matching `labelSelector` ('' for every one). */
  async listPods(namespace: string, labelSelector: string): Promise<ObjectList> {
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`;
    return listOf(await this.call('GET', path, labelSelector === '' ? {} : { labelSelector }));
  }

  /** Patches the DaemonSet `name` with `patch` (sent as `type`); resolves with the patched object. */
  patchDaemonSet(
    kind: ManagedKind,
    namespace: string,
    name: string,
    type: PatchType,
    patch: unknown,
  ): Promise<KubeObject> {
    const text = typeof patch === 'string' ? patch : JSON.stringify(patch);
    return this.call(
      'PATCH',
      `${collectionPath(kind, namespace)}/${encodeURIComponent(name)}`,
      {},
      { type, text },
    );
  }

  /**
   * The events of one watch of the DaemonSets of `kind` in `namespace` from `resourceVersion`
   * (narrowed by `fieldSelector`), until the server ends it or `signal` aborts it.
   */
  async *watchDaemonSets(
    kind: ManagedKind,
    namespace: string,
    options: Readonly<{ fieldSelector: string; resourceVersion: string; signal: AbortSignal }>,
  ): AsyncGenerator<RawWatchEvent> {
    const query = {
      watch: 'true',
      allowWatchBookmarks: 'true',
      fieldSelector: options.fieldSelector,
      resourceVersion: options.resourceVersion,
    };
    let response: IncomingMessage | undefined;
    try {
      response = await this.open('GET', collectionPath(kind, namespace), query, undefined, options.signal);
      if (response.statusCode !== 200) throw answerError(response.statusCode ?? 0, await bodyOf(response));
      for await (const line of createInterface({ input: response, crlfDelay: Number.POSITIVE_INFINITY })) {
        if (line.trim() !== '') yield JSON.parse(line) as RawWatchEvent;
      }
    } catch (error) {
      if (options.signal.aborted) return;
      throw error;
    } finally {
      response?.destroy();
    }
  }
}

function listOf(list: KubeObject): ObjectList {
  const items = Array.isArray(list.items) ? (list.items as KubeObject[]) : [];
  return { items, resourceVersion: list.metadata?.resourceVersion ?? '' };
}
