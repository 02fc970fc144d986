/**
 * Conversion between JSON as the API server sends it and client-node's typed objects (Dates for
 * timestamps), for what client-node does not convert itself: custom objects and watch events.
 * Fields the typed model does not know — everynode's extension fields of an `everynode.dev/v1`
 * DaemonSet — are kept, not dropped.
 */
import { serializeModel } from './model-codec.ts';
import { decodeModel } from './model-decoder.ts';

/** The client-node model names of the objects the adapter converts. */
export type ModelName = 'V1DaemonSet' | 'V1Pod' | 'V1Node' | 'V1ControllerRevision';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/**
 * `typed` with every field of `source` it lacks copied in, recursively through objects and arrays
 * (client-node's serialization keeps only the fields its model declares).
 */
export function withUnknownFields(source: unknown, typed: unknown): unknown {
  if (Array.isArray(source) && Array.isArray(typed)) {
    return typed.map((item, index) => withUnknownFields(source[index], item));
  }
  if (!isPlainObject(source) || !isPlainObject(typed)) return typed === undefined ? source : typed;
  const result: Record<string, unknown> = typed;
  for (const [key, value] of Object.entries(source)) {
    result[key] = key in typed && typed[key] !== undefined ? withUnknownFields(value, typed[key]) : value;
  }
  return result;
}

/**
 * The typed object of the JSON `raw` (timestamps as Dates), unknown fields kept. `raw` must be
 * freshly parsed and the caller's own: it is decoded in place (model-decoder.ts).
 */
export function fromJson<T>(raw: unknown, model: ModelName): T {
  return decodeModel<T>(raw, model);
}

/** The JSON form of the typed `object` (timestamps as RFC 3339 strings), unknown fields kept. */
export function toJson(object: unknown, model: ModelName): Record<string, unknown> {
  return withUnknownFields(object, serializeModel(object, model)) as Record<string, unknown>;
}
