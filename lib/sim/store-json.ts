/**
 * Plain-JSON handling of stored objects: what the wire carries (timestamps as RFC 3339 strings),
 * frozen once stored so shared references cannot be changed behind the store's back.
 */

/** Field names that are `metav1.MicroTime` upstream (microsecond precision on the wire). */
const microTimeFields = new Set(['eventTime', 'renewTime', 'acquireTime']);

/** `2026-01-01T00:00:00Z`: metav1.Time's wire format (RFC 3339, seconds precision). */
export function formatTime(date: Readonly<Date>): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** `2026-01-01T00:00:00.000000Z`: metav1.MicroTime's wire format. */
export function formatMicroTime(date: Readonly<Date>): string {
  return `${date.toISOString().slice(0, 23)}000Z`;
}

/**
 * The JSON the wire would carry for `value`: Dates become RFC 3339 strings as metav1.Time
 * serializes them, undefined fields disappear. Returns a fresh, unfrozen plain object.
 */
export function toWireJson<T>(value: T): T {
  const text = JSON.stringify(
    value,
    function replacer(this: Record<string, unknown>, key: string, v: unknown) {
      const original = this[key];
      if (original instanceof Date)
        return microTimeFields.has(key) ? formatMicroTime(original) : formatTime(original);
      return v;
    },
  );
  return JSON.parse(text) as T;
}

/** A deep, unfrozen copy of a plain JSON value. */
export function cloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => cloneJson(v)) as T;
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) copy[k] = cloneJson(v);
    return copy as T;
  }
  return value;
}

/** Freezes a plain JSON value and everything inside it; returns it. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** Whether two plain JSON values are equal (key order ignored, as a semantic comparison). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const ka = Object.keys(ra).filter((k) => ra[k] !== undefined);
  const kb = Object.keys(rb).filter((k) => rb[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => jsonEqual(ra[k], rb[k]));
}

/** `value` as a record when it is a non-array object, else undefined. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
