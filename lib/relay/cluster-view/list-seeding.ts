/**
 * How the relay's cache and context take a LIST that comes page by page (`watches/list-pages.ts`): each
 * listed object replaces what was known of it as its page comes, and once the last page is in, the
 * objects the list did not show are forgotten. A relist so holds each object once — the list is
 * not built beside what was known, which at 200,000 pods would double the relay's memory for the
 * time of a relist — and shows, meanwhile, each object as listed or, not listed yet, as known.
 */

/** A LIST taken page by page: `add` each page's objects, then `commit` once the last is in. */
export interface Seeding<T> {
  add(objects: readonly Readonly<T>[]): void;
  /** Forgets what the list did not show. */
  commit(): void;
}

/**
 * A seeding of `known`, updated in place: `put` remembers one listed object and returns its key
 * (undefined when it is not kept); the commit calls `forget` for each key of `known` not listed.
 */
export function seedingInPlace<T>(
  known: ReadonlyMap<string, unknown>,
  put: (object: Readonly<T>) => string | undefined,
  forget: (key: string) => void,
): Seeding<T> {
  // A first LIST starts from nothing: there is nothing to forget, so no keys are noted.
  const listed = known.size === 0 ? undefined : new Set<string>();
  return {
    add: (objects) => {
      for (const object of objects) {
        const key = put(object);
        if (key !== undefined) listed?.add(key);
      }
    },
    commit: () => {
      if (listed === undefined) return;
      for (const key of [...known.keys()]) if (!listed.has(key)) forget(key);
    },
  };
}
