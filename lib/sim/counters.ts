/**
 * Counts of the HTTP requests the simulated API server received, by verb (as the apiserver's
 * RequestInfo names them: get, list, watch, create, update, patch, delete, deletecollection),
 * resource and User-Agent, so benchmarks can count every API request a component makes; and, per
 * LIST answered, how many items and bytes it returned, so they can show the largest LIST a
 * component makes and how often (the size of a LIST is what a process's memory and the server's
 * time grow with).
 */

/** One counted request. */
export interface RequestRecord {
  /** RequestInfo verb; for non-resource paths (discovery, /version) the lower-case HTTP method. */
  readonly verb: string;
  /** Storage key of the resource (`pods`, `apps/daemonsets`), or the path for non-resource requests. */
  readonly resource: string;
  /** `status` for /status requests, '' otherwise. */
  readonly subresource: string;
  readonly userAgent: string;
}

/** A counter line of a snapshot. */
export interface CounterEntry extends RequestRecord {
  readonly count: number;
}

/** Which requests `total` and `largestLists` count; a string must match exactly, a RegExp must match somewhere. */
export interface CounterFilter {
  verb?: string;
  resource?: string;
  subresource?: string;
  userAgent?: string | RegExp;
}

/**
 * The LISTs answered for one verb, resource, subresource and user agent: how many, the largest
 * (by response bytes) and the sums, so a mean size is at hand too.
 */
export interface ListSizes extends RequestRecord {
  /** LISTs answered with a body (errors are counted by `record` only). */
  readonly lists: number;
  /** Items of the largest answer (the one with the most bytes). */
  readonly items: number;
  /** Response bytes of the largest answer. */
  readonly bytes: number;
  readonly totalItems: number;
  readonly totalBytes: number;
}

const keyOf = (r: RequestRecord): string => JSON.stringify([r.verb, r.resource, r.subresource, r.userAgent]);

/** Request counters of one API server. */
export class RequestCounters {
  private readonly counts = new Map<string, CounterEntry>();
  private readonly listSizes = new Map<string, ListSizes>();

  /** Counts one request. */
  record(request: Readonly<RequestRecord>): void {
    const key = keyOf(request);
    const entry = this.counts.get(key);
    this.counts.set(key, { ...request, count: (entry?.count ?? 0) + 1 });
  }

  /**
   * Notes the size of one LIST answer: `items` objects in `bytes` bytes of body. Constant time:
   * callers pass sizes they already know.
   */
  recordList(request: Readonly<RequestRecord>, items: number, bytes: number): void {
    const key = keyOf(request);
    const was = this.listSizes.get(key);
    const larger = was === undefined || bytes > was.bytes;
    this.listSizes.set(key, {
      verb: request.verb,
      resource: request.resource,
      subresource: request.subresource,
      userAgent: request.userAgent,
      lists: (was?.lists ?? 0) + 1,
      items: larger ? items : was.items,
      bytes: larger ? bytes : was.bytes,
      totalItems: (was?.totalItems ?? 0) + items,
      totalBytes: (was?.totalBytes ?? 0) + bytes,
    });
  }

  /**
   * The LISTs matching `filter`, one line per resource (user agents and verbs matched merged):
   * the largest answer, how many LISTs and their sums; the largest in bytes first.
   */
  largestLists(filter: Readonly<CounterFilter> = {}): ListSizes[] {
    const byResource = new Map<string, ListSizes>();
    for (const entry of this.listSizes.values()) {
      if (!matches(entry, filter)) continue;
      const was = byResource.get(entry.resource);
      const larger = was === undefined || entry.bytes > was.bytes;
      byResource.set(entry.resource, {
        ...(larger ? entry : was),
        lists: (was?.lists ?? 0) + entry.lists,
        totalItems: (was?.totalItems ?? 0) + entry.totalItems,
        totalBytes: (was?.totalBytes ?? 0) + entry.totalBytes,
      });
    }
    return [...byResource.values()].sort((a, b) => b.bytes - a.bytes);
  }

  /** The largest LIST matching `filter` with the count and sums of them all; undefined when none. */
  largestList(filter: Readonly<CounterFilter> = {}): ListSizes | undefined {
    const lines = this.largestLists(filter);
    const [largest] = lines;
    if (largest === undefined) return undefined;
    const sum = (pick: (l: ListSizes) => number) => lines.reduce((total, line) => total + pick(line), 0);
    return {
      ...largest,
      lists: sum((l) => l.lists),
      totalItems: sum((l) => l.totalItems),
      totalBytes: sum((l) => l.totalBytes),
    };
  }

  /** Every counter line, sorted by resource, verb and user agent. */
  snapshot(): CounterEntry[] {
    return [...this.counts.values()].sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
  }

  /** Forgets every count and LIST size. */
  reset(): void {
    this.counts.clear();
    this.listSizes.clear();
  }

  /** The number of requests matching `filter` (all requests when omitted). */
  total(filter: Readonly<CounterFilter> = {}): number {
    let sum = 0;
    for (const entry of this.counts.values()) if (matches(entry, filter)) sum += entry.count;
    return sum;
  }
}

/** Whether `entry` is one of the requests `filter` selects. */
function matches(entry: Readonly<RequestRecord>, filter: Readonly<CounterFilter>): boolean {
  if (filter.verb !== undefined && entry.verb !== filter.verb) return false;
  if (filter.resource !== undefined && entry.resource !== filter.resource) return false;
  if (filter.subresource !== undefined && entry.subresource !== filter.subresource) return false;
  const ua = filter.userAgent;
  if (typeof ua === 'string' && entry.userAgent !== ua) return false;
  if (ua instanceof RegExp && !ua.test(entry.userAgent)) return false;
  return true;
}
