/**
 * client-node's model decoding, compiled: the typed object of a parsed JSON value, in place.
 *
 * client-node's `ObjectSerializer.deserialize` walks every field of every object against its model
 * (a 1,000-pod LIST is millions of steps) and copies everything into class instances. What it
 * changes is little: RFC 3339 strings become Dates, and a few JSON names become other property
 * names (`continue` → `_continue`). This decoder reads the same attribute type maps (the table
 * made of client-node's models, model-attributes.ts) once per model and keeps only the paths that
 * lead to such a change, then applies them to the parsed JSON itself: plain objects, Dates where
 * client-node puts Dates, its property names, and fields the model does not know kept
 * (everynode's extension fields).
 */
import { type ModelAttribute, modelAttributes } from './model-attributes.ts';

/** What decoding does to a value of one type; undefined when nothing. */
type Plan =
  | { readonly kind: 'date' }
  | { readonly kind: 'array' | 'map'; readonly of: Plan }
  | { readonly kind: 'model'; readonly fields: readonly Field[] };

interface Field {
  readonly name: string;
  readonly baseName: string;
  plan: Plan | undefined;
}

const ARRAY = /^Array<(.+)>$/;
const MAP = /^\{ \[key: string\]: (.+); \}$/;
const plans = new Map<string, Plan | undefined>();

/** The plan of `type` (a client-node type string), compiled once. */
function planOf(type: string): Plan | undefined {
  if (plans.has(type)) return plans.get(type);
  if (type === 'Date') return remember(type, { kind: 'date' });
  const array = ARRAY.exec(type)?.[1];
  if (array !== undefined) return remember(type, wrap('array', planOf(array)));
  const map = MAP.exec(type)?.[1];
  if (map !== undefined) return remember(type, wrap('map', planOf(map)));
  const attributes: readonly ModelAttribute[] | undefined = modelAttributes(type);
  if (attributes === undefined) return remember(type, undefined);
  // Placed before its fields are compiled, so a recursive model refers to itself.
  const fields: Field[] = [];
  const plan: Plan = { kind: 'model', fields };
  plans.set(type, plan);
  for (const attribute of attributes) {
    const field = { name: attribute.name, baseName: attribute.baseName, plan: planOf(attribute.type) };
    if (field.plan !== undefined || field.name !== field.baseName) fields.push(field);
  }
  if (fields.length === 0) plans.set(type, undefined);
  return plans.get(type);
}

function remember(type: string, plan: Plan | undefined): Plan | undefined {
  plans.set(type, plan);
  return plan;
}

function wrap(kind: 'array' | 'map', of: Plan | undefined): Plan | undefined {
  return of === undefined ? undefined : { kind, of };
}

function apply(value: unknown, plan: Plan | undefined): unknown {
  if (value === null || value === undefined || plan === undefined) return value;
  switch (plan.kind) {
    case 'date':
      return new Date(value as string);
    case 'array':
      if (Array.isArray(value)) for (let i = 0; i < value.length; i++) value[i] = apply(value[i], plan.of);
      return value;
    case 'map':
      if (typeof value === 'object')
        for (const [key, item] of Object.entries(value))
          (value as Record<string, unknown>)[key] = apply(item, plan.of);
      return value;
    case 'model': {
      if (typeof value !== 'object' || Array.isArray(value)) return value;
      const object = value as Record<string, unknown>;
      for (const field of plan.fields) {
        const raw = object[field.baseName];
        if (raw === undefined) continue;
        if (field.name !== field.baseName) delete object[field.baseName];
        object[field.name] = apply(raw, field.plan);
      }
      return object;
    }
  }
}

/**
 * `json` (freshly parsed, owned by the caller, changed in place) as client-node's `type` (a model
 * name such as `V1PodList`): Dates and property names as client-node's deserializer gives them.
 */
export function decodeModel<T>(json: unknown, type: string): T {
  return apply(json, planOf(type)) as T;
}
