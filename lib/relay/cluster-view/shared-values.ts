/**
 * Sharing of equal values among the many objects the relay remembers. At 20,000 nodes × 10
 * DaemonSets the relay holds 200,000 pods, whose node names, phases, controller references, label
 * values and condition kinds repeat: the same DaemonSet's pods carry the same controller reference
 * and most of the same labels, a node's name is in each of its pods. Each JSON value decoded from
 * the API server is an object or string of its own; kept as one shared copy, a repeated value
 * costs a pointer.
 */

/** Distinct strings an {@link Interner} keeps before it starts over: a node name each, and a few more. */
export const MAX_INTERNED_STRINGS = 100_000;

/** Distinct JSON values an {@link Interner} keeps before it starts over. */
export const MAX_INTERNED_VALUES = 20_000;

/**
 * One shared copy of each distinct string and JSON value handed to it. Bounded: past
 * {@link MAX_INTERNED_STRINGS} strings or {@link MAX_INTERNED_VALUES} values it forgets them all
 * and starts over (copies already handed out stay valid; only their sharing with later ones is
 * lost), so values that never repeat (a label unique to each pod) cost it a bounded table.
 */
export class Interner {
  readonly #strings = new Map<string, string>();
  readonly #values = new Map<string, unknown>();

  /** The shared copy of `value`. */
  string(value: string): string;
  string(value: string | undefined): string | undefined;
  string(value: string | undefined): string | undefined {
    if (value === undefined) return undefined;
    const known = this.#strings.get(value);
    if (known !== undefined) return known;
    if (this.#strings.size >= MAX_INTERNED_STRINGS) this.#strings.clear();
    this.#strings.set(value, value);
    return value;
  }

  /**
   * A copy of the string map `map` (labels, annotations) whose values are the shared copies: maps
   * that differ in one value (a pod's node label) still share the others.
   */
  stringMap(map: Readonly<Record<string, string>> | undefined): Record<string, string> | undefined {
    if (map === undefined) return undefined;
    // A clone, whose properties are in the object as the original's are (an object literal built
    // key by key keeps a fifth one and later in a property array of its own), its values replaced.
    const copy = { ...map };
    for (const key of Object.keys(copy)) copy[key] = this.string(copy[key] as string);
    return copy;
  }

  /**
   * The shared copy of the JSON value `value` (equal when their JSON text is: same keys in the same
   * order): a copy of its first level, frozen, so the caller's object stays its own.
   */
  value<T extends object>(value: T): Readonly<T>;
  value<T extends object>(value: T | undefined): Readonly<T> | undefined;
  value<T extends object>(value: T | undefined): Readonly<T> | undefined {
    if (value === undefined) return undefined;
    const key = JSON.stringify(value);
    const known = this.#values.get(key) as Readonly<T> | undefined;
    if (known !== undefined) return known;
    if (this.#values.size >= MAX_INTERNED_VALUES) this.#values.clear();
    const copy = Object.freeze(Array.isArray(value) ? [...value] : { ...value }) as Readonly<T>;
    this.#values.set(key, copy);
    return copy;
  }
}
