/**
 * Pod templates compared as the API server means them, not as they were written: key order does
 * not count, and an unset member is the same as a null, an empty list or an empty map (Go's
 * `omitempty` writes neither, and the ControllerRevisions written by kube-controller-manager carry
 * `creationTimestamp: null` where a client's template has nothing).
 */
import { canonicalJson, type JsonValue, stableJson } from '../template-hash.ts';

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

const isObject = (value: JsonValue | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** True when `value` says nothing: null, an empty list, an empty map. */
function isEmpty(value: JsonValue): boolean {
  if (value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isObject(value) && Object.keys(value).length === 0;
}

function pruned(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(pruned);
  if (!isObject(value)) return value;
  const result: JsonObject = {};
  for (const [key, member] of Object.entries(value)) {
    const kept = pruned(member);
    if (!isEmpty(kept)) result[key] = kept;
  }
  return result;
}

/** `value` as canonical JSON without the members that say nothing (at every depth, list items kept). */
export function semanticJson(value: unknown): JsonValue {
  return pruned(canonicalJson(value));
}

/** `value` as a JSON object (of {@link semanticJson}); empty when it is not one. */
export function semanticObject(value: unknown): JsonObject {
  const json = semanticJson(value);
  return isObject(json) ? json : {};
}

/** The list at `value` (of {@link semanticJson}) as objects; empty when it is not a list. */
export function objectList(value: JsonValue | undefined): JsonObject[] {
  return Array.isArray(value) ? value.map((item) => (isObject(item) ? item : {})) : [];
}

/** The string map at `value` (labels, annotations); empty when unset. */
export function stringMap(value: JsonValue | undefined): Record<string, string> {
  if (!isObject(value)) return {};
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, typeof v === 'string' ? v : '']));
}

/** True when `a` and `b` are the same value once both are {@link semanticJson}. */
export function sameJson(a: unknown, b: unknown): boolean {
  return stableJson(semanticJson(a)) === stableJson(semanticJson(b));
}

/** The keys of `a` or `b` whose values differ (by {@link sameJson}), sorted. */
export function differingKeys(a: Readonly<JsonObject>, b: Readonly<JsonObject>): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((key) => !sameJson(a[key] ?? null, b[key] ?? null)).sort();
}
