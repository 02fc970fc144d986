/**
 * The template hash naming ControllerRevisions and labelling daemon pods (upstream
 * pkg/controller/controller_utils.go ComputeHash, apimachinery util/rand SafeEncodeString).
 *
 * Upstream hashes the Go struct with DeepHashObject, which cannot be reproduced outside Go; we
 * hash a canonical JSON form instead, so the value is stable across processes, machines and key
 * order, but differs from the hash kube-controller-manager would compute for the same template.
 * That is harmless: revisions are matched by their data, not by recomputing hashes
 * (see controller-revision.ts).
 */
import type { V1PodTemplateSpec } from '@kubernetes/client-node';

/** A JSON value: what {@link canonicalJson} returns. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Go's metav1.Time marshals as RFC 3339 in UTC with whole seconds. */
function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * `value` as plain JSON the way the API server would send it: Dates as RFC 3339 strings, undefined
 * object members dropped (undefined array items become null, as JSON.stringify does), keys sorted.
 */
export function canonicalJson(value: unknown): JsonValue {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return rfc3339(value);
  if (Array.isArray(value)) return value.map((item) => canonicalJson(item));
  if (typeof value === 'object') {
    const result: { [key: string]: JsonValue } = {};
    for (const key of Object.keys(value).sort()) {
      const member: unknown = (value as Record<string, unknown>)[key];
      if (member !== undefined) result[key] = canonicalJson(member);
    }
    return result;
  }
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'boolean' || typeof value === 'string') return value;
  return null;
}

/**
 * `value` without null object members (array items kept): the API server writes Go zero structs
 * such as `creationTimestamp` as null, while clients that never read the object omit them — both
 * mean "unset".
 */
export function withoutNulls(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  const result: { [key: string]: JsonValue } = {};
  for (const [key, member] of Object.entries(value)) {
    if (member !== null) result[key] = withoutNulls(member);
  }
  return result;
}

/**
 * `value` serialised as JSON with object keys in sorted order at every depth (written out by hand
 * because JSON.stringify puts integer-like keys first), undefined members dropped and Dates as
 * RFC 3339: equal for any two values that are equal as API objects.
 */
export function stableJson(value: unknown): string {
  return serialise(canonicalJson(value));
}

function serialise(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(serialise).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${serialise(value[key] ?? null)}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The 32-bit FNV-1a hash of `bytes`, continuing from `seed` (Go hash/fnv New32a). */
export function fnv1a32(bytes: Uint8Array, seed = 0x811c9dc5): number {
  let hash = seed;
  for (const byte of bytes) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** The upstream rand.SafeEncodeString alphabet: no vowels, no look-alike characters. */
export const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * `s` with every character mapped into an alphabet without vowels and look-alike characters, so
 * the result is a valid name fragment that never spells words (upstream rand.SafeEncodeString).
 */
export function safeEncodeString(s: string): string {
  let encoded = '';
  for (const char of s) encoded += SAFE_ALPHABET[(char.codePointAt(0) ?? 0) % SAFE_ALPHABET.length];
  return encoded;
}

/**
 * The hash of `template` (and `collisionCount` when given): FNV-1a 32 of its {@link stableJson}
 * with null members dropped (so a template read from the API server hashes like one built locally),
 * followed, when `sizing` is given, by a newline and the sizing rules' {@link stableJson}; then — as
 * upstream ComputeHash does when the count is non-nil — the count as 8 little-endian bytes, then
 * the decimal value through {@link safeEncodeString}. Equal templates give equal hashes regardless
 * of key order; bumping `collisionCount` yields a new name after a collision; a template without
 * sizing hashes as it always did.
 */
export function templateHash(
  template: Readonly<V1PodTemplateSpec>,
  collisionCount?: number,
  sizing?: JsonValue,
): string {
  const templateText = stableJson(withoutNulls(canonicalJson(template)));
  const text = sizing === undefined ? templateText : `${templateText}\n${stableJson(sizing)}`;
  let hash = fnv1a32(new TextEncoder().encode(text));
  if (collisionCount !== undefined) {
    const countBytes = new Uint8Array(8);
    new DataView(countBytes.buffer).setUint32(0, collisionCount >>> 0, true);
    hash = fnv1a32(countBytes, hash);
  }
  return safeEncodeString(String(hash));
}
