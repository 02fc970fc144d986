/**
 * The per-process count of API requests by verb, read by the metrics (requests per reconcile,
 * requests per created pod in the benchmarks).
 */

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

/** Counts requests by verb; {@link processRequestCounter} is the one every adapter of the process uses. */
export class RequestCounter {
  readonly #counts: RequestCounts = RequestCounter.#zero();

  static #zero(): RequestCounts {
    return Object.fromEntries(kubeVerbs.map((verb) => [verb, 0])) as RequestCounts;
  }

  /** Counts one request of `verb`. */
  count(verb: KubeVerb): void {
    this.#counts[verb] += 1;
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
