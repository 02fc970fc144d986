/**
 * The per-process count of API requests by verb, read by the metrics (requests per reconcile,
 * requests per created pod in the benchmarks), and the count of one piece of work's requests
 * apart from the others running in the same process at the same time.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** The verbs of the Kubernetes API, as the API server's RequestInfo names them. */
export const kubeVerbs = [
  'get',
  'list',
  'watch',
  'create',
  'update',
  'patch',
  'delete',
  'deletecollection',
] as const;

/** A verb of the Kubernetes API. */
export type KubeVerb = (typeof kubeVerbs)[number];

/** Requests made, by verb. */
export type RequestCounts = Record<KubeVerb, number>;

/**
 * Counts requests by verb; {@link processRequestCounter} is the one every adapter of the process
 * uses. Work run through {@link RequestCounter.measure} also gets its own count.
 */
export class RequestCounter {
  readonly #counts: RequestCounts = RequestCounter.#zero();
  /** The tallies of the measured work (innermost last) whose asynchronous context a request is made in. */
  readonly #measured = new AsyncLocalStorage<readonly { requests: number }[]>();

  static #zero(): RequestCounts {
    return Object.fromEntries(kubeVerbs.map((verb) => [verb, 0])) as RequestCounts;
  }

  /** Counts one request of `verb`. */
  count(verb: KubeVerb): void {
    this.#counts[verb] += 1;
    for (const tally of this.#measured.getStore() ?? []) tally.requests += 1;
  }

  /**
   * Runs `work` and resolves to its value and the requests counted in its asynchronous context —
   * made by it or by what it started (awaited or not) until it resolved — leaving out those of
   * other work running meanwhile, which a difference of {@link total} before and after would
   * include (the local pipeline runs several reconcile invocations at once). A request one
   * piece of work started and another joined (a shared read) counts for the one that started it.
   * Measured work inside measured work counts for both.
   */
  async measure<T>(work: () => Promise<T>): Promise<{ value: T; requests: number }> {
    const tally = { requests: 0 };
    const value = await this.#measured.run([...(this.#measured.getStore() ?? []), tally], work);
    return { value, requests: tally.requests };
  }

  /** The counts so far, as a copy. */
  snapshot(): RequestCounts {
    return { ...this.#counts };
  }

  /** All requests so far. */
  total(): number {
    return kubeVerbs.reduce((sum, verb) => sum + this.#counts[verb], 0);
  }

  /** The counts since the last `drain` (or since the start), and starts counting from zero. */
  drain(): RequestCounts {
    const counts = this.snapshot();
    for (const verb of kubeVerbs) this.#counts[verb] = 0;
    return counts;
  }
}

/** The request counter of this process. */
export const processRequestCounter = new RequestCounter();

function apiPathSegments(pathname: string): string[] {
  const segments = pathname.split('/').filter((s) => s !== '');
  // /api/v1/... (core group) or /apis/<group>/<version>/...
  const rest =
    segments[0] === 'api' ? segments.slice(2) : segments[0] === 'apis' ? segments.slice(3) : segments;
  // Namespaced resources: namespaces/<ns>/<resource>... ; a namespace itself is namespaces/<ns>.
  return rest[0] === 'namespaces' && rest.length >= 3 ? rest.slice(2) : rest;
}

/**
 * The verb of an HTTP request to the API server (apiserver RequestInfoFactory): GET of a
 * collection is `list` (`watch` with `watch=true`), GET of an object `get`; POST `create`; PUT
 * `update`; PATCH `patch`; DELETE of an object `delete`, of a collection `deletecollection`.
 */
export function requestVerb(method: string, url: string): KubeVerb {
  const { pathname, searchParams } = new URL(url, 'http://localhost');
  const isCollection = apiPathSegments(pathname).length <= 1;
  switch (method.toUpperCase()) {
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return isCollection ? 'deletecollection' : 'delete';
    default: {
      const watch = searchParams.get('watch');
      if (watch === 'true' || watch === '1') return 'watch';
      return isCollection ? 'list' : 'get';
    }
  }
}
