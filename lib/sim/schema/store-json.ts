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
 * serializes them, undefined fields disappear. Returns a fresh, unfrozen plain object, equal to
 * what `JSON.parse(JSON.stringify(value))` would give with that rule for Dates, built in one walk
 * (a replacer function would take JSON.stringify off its fast path, and the text is not needed).
 */
export function toWireJson<T>(value: T): T {
  return toWireJsonSharing(value, undefined);
}

/**
 * toWireJson of `value`, except that the objects and lists in it that are the very ones found at
 * the same place in `base` — a stored object, deep-frozen wire JSON already — are kept as they
 * are rather than copied: a new version built from a stored one copies only what changed.
 */
export function toWireJsonSharing<T>(value: T, base: unknown): T {
  try {
    return wireValue(value, '', base) as T;
  } catch (error) {
    // A cycle overflows the walk's stack: let JSON.stringify report it in its own words.
    if (error instanceof RangeError) return toWireJsonByText(value);
    throw error;
  }
}

/** toWireJson through the text, as JSON.stringify and JSON.parse do it (for its errors). */
function toWireJsonByText<T>(value: T): T {
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

/** `base[key]` when `base` is an object (a stored value to share from), else undefined. */
function baseAt(base: unknown, key: string | number): unknown {
  return base !== null && typeof base === 'object' ? (base as Record<string, unknown>)[key] : undefined;
}

/**
 * The wire JSON of `value` found under `key` (JSON.stringify's SerializeJSONProperty: toJSON
 * first, Dates formatted by field name, boxed primitives unboxed, non-finite numbers null);
 * undefined where JSON.stringify would leave the property out (undefined, functions, symbols).
 * An object or list that is `base`, the stored value at the same place, is returned as it is.
 */
function wireValue(value: unknown, key: string, base: unknown): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  // `+ 0` turns -0 into 0, as the text "0" would.
  if (typeof value === 'number') return Number.isFinite(value) ? value + 0 : null;
  if (typeof value === 'bigint') return JSON.stringify(value); // throws TypeError as it would
  if (typeof value !== 'object') return undefined;
  if (value === base) return value;
  if (value instanceof Date) return microTimeFields.has(key) ? formatMicroTime(value) : formatTime(value);
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return wireValue(toJSON.call(value, key), key, undefined);
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    for (let i = 0; i < value.length; i += 1)
      copy.push(wireValue(value[i], String(i), baseAt(base, i)) ?? null);
    return copy;
  }
  if (value instanceof Number || value instanceof String || value instanceof Boolean) return value.valueOf();
  const copy: Record<string, unknown> = {};
  for (const k of Object.keys(value)) {
    const v = wireValue((value as Record<string, unknown>)[k], k, baseAt(base, k));
    if (v === undefined) continue;
    // JSON.parse makes `__proto__` an own property; an assignment would set the prototype.
    if (k === '__proto__')
      Object.defineProperty(copy, k, { value: v, enumerable: true, writable: true, configurable: true });
    else copy[k] = v;
  }
  return copy;
}

/** A deep, unfrozen copy of a plain JSON value. */
export function cloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => cloneJson(v)) as T;
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    const record = value as Record<string, unknown>;
    for (const k of Object.keys(record)) copy[k] = cloneJson(record[k]);
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

/** The JSON texts of the frozen objects serialized last, oldest first (see {@link jsonText}). */
const recentTexts = new Map<object, string>();
const recentTextsKept = 256;

/**
 * `JSON.stringify(value)`. The text of a frozen value (a stored object version: deep-frozen, so its
 * text never changes) is remembered for the next few hundred, so the answer to a write and the
 * watch events of that version, one per watcher, serialize it once.
 */
export function jsonText(value: unknown): string {
  if (value === null || typeof value !== 'object' || !Object.isFrozen(value)) return JSON.stringify(value);
  const known = recentTexts.get(value);
  if (known !== undefined) return known;
  const text = JSON.stringify(value);
  recentTexts.set(value, text);
  if (recentTexts.size > recentTextsKept) {
    const oldest = recentTexts.keys().next().value;
    if (oldest !== undefined) recentTexts.delete(oldest);
  }
  return text;
}
