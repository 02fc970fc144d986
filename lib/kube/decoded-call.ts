/**
 * A client-node call whose answer is decoded by the compiled decoder (model-decoder.ts) instead of
 * client-node's deserializer, for the large LISTs the pipeline makes. The request is built by
 * client-node's request factory and sent through the configuration's middleware (request budget,
 * counter, User-Agent) and HTTP library, exactly as the generated API would; only a 2xx JSON body
 * is decoded here. Any other answer goes to client-node's response processor, which throws its
 * ApiException as usual.
 */
import type { Configuration, RequestContext, ResponseContext } from '@kubernetes/client-node';
import { decodeModel } from './model-decoder.ts';

/** The request to send, the model of a 2xx answer, and client-node's handling of the others. */
export interface DecodedCall {
  readonly request: Promise<RequestContext>;
  /** client-node's model name of the answer, e.g. `V1PodList`. */
  readonly type: string;
  /** client-node's response processor for this call: throws for a non-2xx answer. */
  readonly otherwise: (response: ResponseContext) => Promise<unknown>;
}

/** Sends `call` through `configuration` and resolves to its decoded answer. */
export async function sendDecoded<T>(configuration: Configuration, call: Readonly<DecodedCall>): Promise<T> {
  let context = await call.request;
  for (const middleware of configuration.middleware) context = await middleware.pre(context).toPromise();
  let response = await configuration.httpApi.send(context).toPromise();
  for (const middleware of [...configuration.middleware].reverse())
    response = await middleware.post(response).toPromise();
  if (response.httpStatusCode >= 200 && response.httpStatusCode <= 299) {
    return decodeModel<T>(JSON.parse(await response.body.text()), call.type);
  }
  await call.otherwise(response);
  throw new Error(`unexpected HTTP ${response.httpStatusCode} answer to a ${call.type} request`);
}
