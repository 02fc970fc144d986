/**
 * Watches for the relay: one streaming GET with `watch=true` and `allowWatchBookmarks=true`, read
 * line by line. Written over node:http rather than client-node's Watch, which builds its own
 * agent per call, takes its credentials only from a KubeConfig, drops the Status body of an
 * error answer, and ignores lines it cannot parse.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { createInterface } from 'node:readline';
import { fromJson, type ModelName } from '../codec/object-codec.ts';
import type { KubeConnection } from '../connection/kube-connection.ts';
import { apiErrorOf, toKubeError } from '../errors/to-kube-error.ts';
import type { WatchEvent } from '../kube-port.ts';
import type { RequestHooks } from './kube-apis.ts';

/** One watch request: the collection path, its query, and how to type its objects. */
export interface WatchRequest {
  readonly path: string;
  readonly query: Readonly<Record<string, string | undefined>>;
  readonly model: ModelName;
  readonly apiVersion: string;
  readonly kind: string;
  readonly signal?: AbortSignal;
  /** Called once the server answered 200. */
  readonly onOpen?: () => void;
  /** What is being watched, for error messages ("watching pods"). */
  readonly doing: string;
}

function urlOf(connection: KubeConnection, request: Readonly<WatchRequest>): URL {
  const url = new URL(connection.server.replace(/\/+$/, '') + request.path);
  url.searchParams.set('watch', 'true');
  url.searchParams.set('allowWatchBookmarks', 'true');
  for (const [key, value] of Object.entries(request.query))
    if (value !== undefined) url.searchParams.set(key, value);
  return url;
}

async function bodyOf(stream: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

async function open(
  connection: KubeConnection,
  hooks: Readonly<RequestHooks>,
  request: Readonly<WatchRequest>,
) {
  await hooks.budget.take();
  hooks.counter.count('watch');
  const url = urlOf(connection, request);
  const headers = {
    ...(await connection.authHeaders()),
    'User-Agent': hooks.userAgent,
    Accept: 'application/json',
  };
  const get = url.protocol === 'http:' ? http.get : https.get;
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    get(url, { agent: connection.agent, headers, signal: request.signal }, resolve).on('error', reject);
  });
  if (response.statusCode !== 200) {
    const body = await bodyOf(response).catch(() => '');
    const answerHeaders = Object.fromEntries(
      Object.entries(response.headers).map(([k, v]) => [k, String(v)]),
    );
    throw apiErrorOf({ code: response.statusCode ?? 0, body, headers: answerHeaders }, request.doing);
  }
  return response;
}

interface RawEvent {
  type?: string;
  object?: { code?: number; metadata?: { resourceVersion?: string } } & Record<string, unknown>;
}

function eventOf<T>(raw: RawEvent, request: Readonly<WatchRequest>): WatchEvent<T> {
  const resourceVersion = raw.object?.metadata?.resourceVersion ?? '';
  switch (raw.type) {
    case 'BOOKMARK':
      return { type: 'BOOKMARK', resourceVersion };
    case 'ADDED':
    case 'MODIFIED':
    case 'DELETED': {
      const object = fromJson<T & object>(raw.object, request.model);
      Object.assign(object, { apiVersion: request.apiVersion, kind: request.kind });
      return { type: raw.type, object, resourceVersion };
    }
    case 'ERROR':
      // A Status object; 410 Gone when the resourceVersion is older than the server keeps.
      throw apiErrorOf({ code: raw.object?.code ?? 500, body: raw.object, headers: {} }, request.doing);
    default:
      throw apiErrorOf(
        { code: 500, body: { message: `unknown watch event type ${raw.type}` }, headers: {} },
        request.doing,
      );
  }
}

/**
 * The events of one watch request until the server ends it (the iteration ends), the signal
 * aborts (the iteration ends), or it fails (typed error; GoneError for 410).
 */
export async function* watchEvents<T>(
  connection: KubeConnection,
  hooks: Readonly<RequestHooks>,
  request: Readonly<WatchRequest>,
): AsyncGenerator<WatchEvent<T>> {
  let response: IncomingMessage | undefined;
  try {
    response = await open(connection, hooks, request);
    request.onOpen?.();
    for await (const line of createInterface({ input: response, crlfDelay: Number.POSITIVE_INFINITY })) {
      if (line.trim() === '') continue;
      yield eventOf<T>(JSON.parse(line) as RawEvent, request);
    }
  } catch (error) {
    if (request.signal?.aborted) return;
    throw toKubeError(error, request.doing);
  } finally {
    response?.destroy();
  }
}
