/**
 * Counts of the HTTP requests the simulated API server received, by verb (as the apiserver's
 * RequestInfo names them: get, list, watch, create, update, patch, delete, deletecollection),
 * resource and User-Agent, so benchmarks can count every API request a component makes.
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

/** Which requests `total` counts; a string must match exactly, a RegExp must match somewhere. */
export interface CounterFilter {
  verb?: string;
  resource?: string;
  subresource?: string;
  userAgent?: string | RegExp;
}

const keyOf = (r: RequestRecord): string => JSON.stringify([r.verb, r.resource, r.subresource, r.userAgent]);

/** Request counters of one API server. */
export class RequestCounters {
  private readonly counts = new Map<string, CounterEntry>();

  /** Counts one request. */
  record(request: Readonly<RequestRecord>): void {
    const key = keyOf(request);
    const entry = this.counts.get(key);
    this.counts.set(key, { ...request, count: (entry?.count ?? 0) + 1 });
  }

  /** Every counter line, sorted by resource, verb and user agent. */
  snapshot(): CounterEntry[] {
    return [...this.counts.values()].sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
  }

  /** Forgets every count. */
  reset(): void {
    this.counts.clear();
  }

  /** The number of requests matching `filter` (all requests when omitted). */
  total(filter: Readonly<CounterFilter> = {}): number {
    let sum = 0;
    for (const entry of this.counts.values()) {
      if (filter.verb !== undefined && entry.verb !== filter.verb) continue;
      if (filter.resource !== undefined && entry.resource !== filter.resource) continue;
      if (filter.subresource !== undefined && entry.subresource !== filter.subresource) continue;
      const ua = filter.userAgent;
      if (typeof ua === 'string' && entry.userAgent !== ua) continue;
      if (ua instanceof RegExp && !ua.test(entry.userAgent)) continue;
      sum += entry.count;
    }
    return sum;
  }
}
