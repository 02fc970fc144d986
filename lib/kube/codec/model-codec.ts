/**
 * client-node's ObjectSerializer `serialize` and `deserialize`, over the attribute table of the
 * models the adapter uses (model-attributes.ts) instead of all of client-node's model classes. The
 * JSON is the same: a typed object is serialized field by field under its JSON names, Dates as
 * RFC 3339 strings, fields the model does not declare left out; an answer is deserialized the same
 * way back, timestamps as Dates. One difference: deserialized objects are plain objects, not
 * instances of client-node's model classes (which have no methods; nothing here tells them apart).
 */
import { type ModelAttribute, modelAttributes } from './model-attributes.ts';

const PRIMITIVES = new Set(['string', 'boolean', 'double', 'integer', 'long', 'float', 'number', 'any']);
const NULLABLE = ' | null';
const OPTIONAL = ' | undefined';
const ARRAY = /^Array<(.+)>$/;
const MAP = /^\{ \[key: string\]: (.+); \}$/;

/** What a type string says to do with a value: the same cases, in the same order, as ObjectSerializer. */
type TypeCase =
  | { readonly kind: 'as-is' }
  | { readonly kind: 'array' | 'map' | 'alias'; readonly of: string }
  | { readonly kind: 'date' }
  | { readonly kind: 'model'; readonly attributes: readonly ModelAttribute[] };

function caseOf(type: string): TypeCase {
  if (PRIMITIVES.has(type.toLowerCase())) return { kind: 'as-is' };
  if (type.endsWith(NULLABLE)) return { kind: 'alias', of: type.slice(0, -NULLABLE.length) };
  if (type.endsWith(OPTIONAL)) return { kind: 'alias', of: type.slice(0, -OPTIONAL.length) };
  const array = ARRAY.exec(type)?.[1];
  if (array !== undefined) return { kind: 'array', of: array };
  const map = MAP.exec(type)?.[1];
  if (map !== undefined) return { kind: 'map', of: map };
  if (type === 'Date') return { kind: 'date' };
  const attributes = modelAttributes(type);
  // A type client-node does not know (or an enum, of which client-node 1.4 has none) stays as it is.
  return attributes ? { kind: 'model', attributes } : { kind: 'as-is' };
}

function twoDigits(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** What differs between the two directions: dates and the fields of a model. */
interface Direction {
  date(data: unknown, format: string): unknown;
  model(object: Record<string, unknown>, attributes: readonly ModelAttribute[]): Record<string, unknown>;
}

/** `data` of `type` converted one way: the containers and aliases walked alike in both. */
function convert(data: unknown, type: string, format: string, direction: Direction): unknown {
  if (data === undefined || data === null) return data;
  const c = caseOf(type);
  switch (c.kind) {
    case 'as-is':
      return data;
    case 'alias':
      return convert(data, c.of, format, direction);
    case 'array': {
      const out: unknown[] = [];
      for (const item of data as Iterable<unknown>) out.push(convert(item, c.of, format, direction));
      return out;
    }
    case 'map': {
      const out: Record<string, unknown> = {};
      for (const key in data as Record<string, unknown>)
        out[key] = convert((data as Record<string, unknown>)[key], c.of, format, direction);
      return out;
    }
    case 'date':
      return direction.date(data, format);
    case 'model':
      return direction.model(data as Record<string, unknown>, c.attributes);
  }
}

const toJson: Direction = {
  date: (data, format) => {
    if (!(data instanceof Date)) return data;
    if (format !== 'date') return data.toISOString();
    return `${data.getFullYear()}-${twoDigits(data.getMonth() + 1)}-${twoDigits(data.getDate())}`;
  },
  model: (object, attributes) => {
    const out: Record<string, unknown> = {};
    for (const a of attributes) out[a.baseName] = convert(object[a.name], a.type, a.format, toJson);
    return out;
  },
};

const fromJson: Direction = {
  date: (data) => new Date(data as string),
  model: (object, attributes) => {
    const out: Record<string, unknown> = {};
    for (const a of attributes) {
      const value = convert(object[a.baseName], a.type, a.format, fromJson);
      if (value !== undefined) out[a.name] = value;
    }
    return out;
  },
};

/** `data`, a typed object of client-node's `type`, as the API server's JSON (ObjectSerializer.serialize). */
export function serializeModel(data: unknown, type: string, format = ''): unknown {
  return convert(data, type, format, toJson);
}

/** The API server's JSON `data` as client-node's typed object of `type` (ObjectSerializer.deserialize). */
export function deserializeModel(data: unknown, type: string, format = ''): unknown {
  return convert(data, type, format, fromJson);
}
