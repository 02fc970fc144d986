/**
 * One Kubernetes API request, made as client-node's generated API clients make it, without them.
 *
 * The generated CoreV1Api, AppsV1Api and CustomObjectsApi hold every operation of their groups
 * (hundreds, in four layers each, some 850 KB of a function's bundle) where the adapter makes about
 * twenty; parsing them was a large part of each function's cold start. Each operation of the
 * adapter describes its request here instead — path, query, body, the model of its answer — and
 * this module does what the generated operation does with it: client-node's request context and
 * `Accept` header, the body serialized as client-node's ObjectSerializer serializes it
 * (model-codec.ts) into the JSON the API server takes, the configuration's authentication, its
 * middleware (request budget, counter, User-Agent) and HTTP library, then the answer deserialized
 * into the model the same way (or by the compiled decoder, model-decoder.ts, for the large
 * answers), and any other answer thrown as client-node's ApiException with the same message, body
 * and headers.
 */
import type { Configuration } from '@kubernetes/client-node';
import { ApiException } from '@kubernetes/client-node/dist/gen/apis/exception.js';
import { HttpMethod } from '@kubernetes/client-node/dist/gen/http/http.js';
import { modelAttributes } from '../codec/model-attributes.ts';
import { deserializeModel, serializeModel } from '../codec/model-codec.ts';
import { decodeModel } from '../codec/model-decoder.ts';

/** A query parameter's value; undefined leaves the parameter out. */
type QueryValue = string | number | boolean | undefined;

/** What one operation sends and what it answers. */
export interface KubeRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path from the server's root, each parameter already URI-encoded ({@link apiPath}). */
  readonly path: string;
  /** Query parameters, in the order client-node sets them. */
  readonly query?: Readonly<Record<string, QueryValue>>;
  /**
   * The body: `value` serialized as client-node's model `type` (`any` for patches and custom
   * objects), sent with `contentType` (default `application/json`); or `text`, sent as it is (a body
   * whose bytes matter, such as a ControllerRevision's data).
   */
  readonly body?:
    | { readonly value: unknown; readonly type: string; readonly contentType?: string }
    | { readonly text: string; readonly contentType?: string };
  /**
   * The client-node model of a 2xx answer (`any` keeps the JSON as it is), and whether it is
   * decoded by the compiled decoder instead of client-node's deserializer (the large LISTs and
   * creates: plain objects, fields the model does not know kept).
   */
  readonly answer: { readonly type: string; readonly compiled?: boolean };
}

/** `template` with each `{name}` replaced by the URI-encoded `params[name]`. */
export function apiPath(template: string, params: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
}

/** The query parameters of a LIST, in the order client-node sets them. */
export interface ListQuery {
  readonly _continue?: string | undefined;
  readonly fieldSelector?: string | undefined;
  readonly labelSelector?: string | undefined;
  readonly limit?: number | undefined;
  readonly resourceVersion?: string | undefined;
  readonly resourceVersionMatch?: string | undefined;
}

/** The query of a LIST with `p` (client-node's `_continue` is the API's `continue`). */
export function listQuery(p: Readonly<ListQuery>): Record<string, QueryValue> {
  return {
    continue: p._continue,
    fieldSelector: p.fieldSelector,
    labelSelector: p.labelSelector,
    limit: p.limit,
    resourceVersion: p.resourceVersion,
    resourceVersionMatch: p.resourceVersionMatch,
  };
}

const ACCEPT = 'application/json, */*;q=0.8';

/** `type/subtype+suffix` of a media type, as ObjectSerializer reads it. */
function mediaType(value: string): { type: string; subtypes: string[] } {
  const [type = '', subtype = ''] = value.split('/');
  return { type, subtypes: subtype.split('+') };
}

const isText = (value: string) => mediaType(value).type === 'text';
const isJsonLike = (value: string) => {
  const { type, subtypes } = mediaType(value);
  return type === 'application' && subtypes.includes('json');
};

/** `data` as the body text of `contentType` (ObjectSerializer.stringify). */
function stringify(data: unknown, contentType: string): string {
  if (isText(contentType)) return String(data);
  if (isJsonLike(contentType)) return JSON.stringify(data);
  throw new Error(`The mediaType ${contentType} is not supported by ObjectSerializer.stringify.`);
}

/** The answer `text` of `header` (its Content-Type), as ObjectSerializer normalizes and parses it. */
function parse(text: string, header: string | undefined): unknown {
  const contentType = header?.split(';')[0]?.trim().toLowerCase();
  if (contentType === undefined) throw new Error('Cannot parse content. No Content-Type defined.');
  if (isText(contentType)) return text;
  if (isJsonLike(contentType)) return JSON.parse(text);
  throw new Error(`The mediaType ${contentType} is not supported by ObjectSerializer.parse.`);
}

/** `type` itself, when it is `any` or a model of the attribute table (model-attributes.ts). */
function known(type: string): string {
  if (type !== 'any' && modelAttributes(type) === undefined)
    throw new Error(`${type} is not in the model attribute table: add it to MODEL_ROOTS`);
  return type;
}

/**
 * Sends `request` through `configuration` (its authentication, middleware and HTTP library) and
 * resolves to its decoded answer; rejects with client-node's ApiException for an answer that is
 * not 2xx, as the generated operation would.
 */
export async function sendKubeRequest<T>(configuration: Configuration, request: KubeRequest): Promise<T> {
  let context = configuration.baseServer.makeRequestContext(request.path, HttpMethod[request.method]);
  context.setHeaderParam('Accept', ACCEPT);
  for (const [name, value] of Object.entries(request.query ?? {}))
    if (value !== undefined) context.setQueryParam(name, String(value));
  if (request.body) {
    const contentType = request.body.contentType ?? 'application/json';
    context.setHeaderParam('Content-Type', contentType);
    const body = request.body;
    context.setBody(
      'text' in body ? body.text : stringify(serializeModel(body.value, known(body.type)), contentType),
    );
  }
  await configuration.authMethods.default?.applySecurityAuthentication(context);
  for (const middleware of configuration.middleware) context = await middleware.pre(context).toPromise();
  let response = await configuration.httpApi.send(context).toPromise();
  for (const middleware of [...configuration.middleware].reverse())
    response = await middleware.post(response).toPromise();
  const code = response.httpStatusCode;
  if (code >= 200 && code <= 299) {
    const text = await response.body.text();
    const type = known(request.answer.type);
    if (request.answer.compiled) return decodeModel<T>(JSON.parse(text), type);
    return deserializeModel(parse(text, response.headers['content-type']), type) as T;
  }
  if (code === 401) throw new ApiException(code, 'Unauthorized', undefined, response.headers);
  throw new ApiException(code, 'Unknown API Status Code!', await response.getBodyAsAny(), response.headers);
}
