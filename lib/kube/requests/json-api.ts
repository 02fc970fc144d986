/**
 * Requests of any resource as plain JSON, through client-node's request configuration
 * (kube-request.ts with the `any` model): for tools that copy objects from one kind to another and
 * must keep every field the server sent, in the order it sent them — fields the client-node models
 * do not know, and the raw `data` of ControllerRevisions, included. An error answer becomes the
 * typed error of kube-api-errors.ts.
 */
import type { Configuration } from '@kubernetes/client-node';
import type { KubeConnection } from '../connection/kube-connection.ts';
import { NotFoundError } from '../errors/kube-api-errors.ts';
import { toKubeError } from '../errors/to-kube-error.ts';
import { kubeConfigurationFor } from './kube-apis.ts';
import { type KubeRequest, sendKubeRequest } from './kube-request.ts';
import { RequestBudget } from './request-budget.ts';
import { processRequestCounter } from './request-counter.ts';

/** A Kubernetes object, or any JSON object, as the server sent it. */
export type JsonObject = Record<string, unknown>;

/** Where a resource is served. */
export interface ResourceRef {
  /** '' for the core group. */
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly subresource?: string;
}

/** The URL path of `ref`. */
export function resourcePath(ref: Readonly<ResourceRef>): string {
  const base = ref.group === '' ? `/api/${ref.version}` : `/apis/${ref.group}/${ref.version}`;
  const scope = ref.namespace === undefined ? '' : `/namespaces/${encodeURIComponent(ref.namespace)}`;
  const name = ref.name === undefined ? '' : `/${encodeURIComponent(ref.name)}`;
  const sub = ref.subresource === undefined ? '' : `/${ref.subresource}`;
  return `${base}${scope}/${ref.plural}${name}${sub}`;
}

/** What a delete asks for: garbage collection of dependents, and the object it must still be. */
export interface JsonDeleteOptions {
  readonly propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  readonly uid?: string;
  readonly resourceVersion?: string;
}

/** Plain-JSON requests on one cluster. */
export class KubeJsonApi {
  constructor(private readonly configuration: Configuration) {}

  /** The API of `connection`, its requests counted and paced as every everynode client's. */
  static forConnection(connection: KubeConnection, userAgent: string): KubeJsonApi {
    const budget = new RequestBudget({ requestsPerSecond: 50, burst: 100 });
    return new KubeJsonApi(
      kubeConfigurationFor(connection, { budget, counter: processRequestCounter, userAgent }),
    );
  }

  private async send(request: KubeRequest, doing: string): Promise<JsonObject> {
    try {
      return await sendKubeRequest<JsonObject>(this.configuration, request);
    } catch (error) {
      throw toKubeError(error, doing);
    }
  }

  /** The object `ref` names, or undefined when there is none. */
  async get(ref: Readonly<ResourceRef>): Promise<JsonObject | undefined> {
    try {
      return await this.send(
        { method: 'GET', path: resourcePath(ref), answer: { type: 'any' } },
        `reading ${describeRef(ref)}`,
      );
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  /** The objects of the collection `ref` names matching `labelSelector` (all of them: pages followed). */
  async list(ref: Readonly<ResourceRef>, labelSelector?: string): Promise<JsonObject[]> {
    const items: JsonObject[] = [];
    let token: string | undefined;
    do {
      const page = await this.send(
        {
          method: 'GET',
          path: resourcePath(ref),
          query: { continue: token, labelSelector, limit: 500 },
          answer: { type: 'any' },
        },
        `listing ${describeRef(ref)}`,
      );
      items.push(...((page.items as JsonObject[] | undefined) ?? []));
      token = ((page.metadata as { continue?: string } | undefined)?.continue ?? '') || undefined;
    } while (token !== undefined);
    return items;
  }

  /**
   * Creates `body` in the collection `ref` names: sent as `options.text` when given (bytes that
   * matter, such as a ControllerRevision's data), else as JSON. With `dryRun` the server only says
   * what it would store.
   */
  create(
    ref: Readonly<ResourceRef>,
    body: Readonly<JsonObject>,
    options: Readonly<{ dryRun?: boolean; text?: string }> = {},
  ): Promise<JsonObject> {
    return this.send(
      {
        method: 'POST',
        path: resourcePath(ref),
        query: { dryRun: options.dryRun ? 'All' : undefined },
        body: options.text === undefined ? { value: body, type: 'any' } : { text: options.text },
        answer: { type: 'any' },
      },
      `${options.dryRun ? 'trying the creation of' : 'creating'} ${describeRef({ ...ref, name: nameOf(body) })}`,
    );
  }

  /** Merges `patch` into the object `ref` names (a JSON merge patch). */
  mergePatch(ref: Readonly<ResourceRef>, patch: Readonly<JsonObject>): Promise<JsonObject> {
    return this.send(
      {
        method: 'PATCH',
        path: resourcePath(ref),
        body: { value: patch, type: 'any', contentType: 'application/merge-patch+json' },
        answer: { type: 'any' },
      },
      `patching ${describeRef(ref)}`,
    );
  }

  /** Deletes the object `ref` names, if it is still the object the options name. */
  async delete(ref: Readonly<ResourceRef>, options: Readonly<JsonDeleteOptions> = {}): Promise<void> {
    const preconditions = {
      ...(options.uid === undefined ? {} : { uid: options.uid }),
      ...(options.resourceVersion === undefined ? {} : { resourceVersion: options.resourceVersion }),
    };
    const body = {
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      ...(options.propagationPolicy ? { propagationPolicy: options.propagationPolicy } : {}),
      ...(Object.keys(preconditions).length > 0 ? { preconditions } : {}),
    };
    await this.send(
      {
        method: 'DELETE',
        path: resourcePath(ref),
        body: { value: body, type: 'any' },
        answer: { type: 'any' },
      },
      `deleting ${describeRef(ref)}`,
    );
  }
}

function nameOf(body: Readonly<JsonObject>): string | undefined {
  return (body.metadata as { name?: string } | undefined)?.name;
}

/** `daemonsets.apps "x" in namespace "ns"`, as kubectl names objects in its messages. */
export function describeRef(ref: Readonly<ResourceRef>): string {
  const resource = ref.group === '' ? ref.plural : `${ref.plural}.${ref.group}`;
  const name = ref.name === undefined ? '' : ` "${ref.name}"`;
  const where = ref.namespace === undefined ? '' : ` in namespace "${ref.namespace}"`;
  return `${resource}${name}${where}`;
}
