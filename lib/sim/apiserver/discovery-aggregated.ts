/**
 * Aggregated discovery (apidiscovery.k8s.io/v2, KEP-3352): one document for /api and one for /apis
 * listing every group, version and resource, so kubectl needs two requests instead of one per group
 * version. Shaped like staging/src/k8s.io/api/apidiscovery/v2/types.go.
 */
import { type ResourceDefinition, resources } from '../schema/resources.ts';

/** The Content-Type (and Accept entry) of an aggregated discovery response. */
export const aggregatedDiscoveryContentType =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** One resource of aggregated discovery (APIResourceDiscovery). */
export interface APIResourceDiscovery {
  resource: string;
  responseKind: GroupVersionKind;
  scope: 'Namespaced' | 'Cluster';
  singularResource: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: { subresource: string; responseKind: GroupVersionKind; verbs: string[] }[];
}

/** One group of aggregated discovery (APIGroupDiscovery). */
export interface APIGroupDiscovery {
  metadata: { name?: string; creationTimestamp: null };
  versions: { version: string; resources: APIResourceDiscovery[]; freshness: 'Current' }[];
}

/** The answer to GET /api or /apis with the aggregated Accept type (APIGroupDiscoveryList). */
export interface APIGroupDiscoveryList {
  kind: 'APIGroupDiscoveryList';
  apiVersion: 'apidiscovery.k8s.io/v2';
  metadata: Record<string, never>;
  items: APIGroupDiscovery[];
}

function resourceDiscovery(r: ResourceDefinition): APIResourceDiscovery {
  const responseKind = { group: r.group, version: r.version, kind: r.kind };
  return {
    resource: r.plural,
    responseKind,
    scope: r.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: r.singular,
    verbs: [...r.verbs],
    ...(r.shortNames.length > 0 ? { shortNames: [...r.shortNames] } : {}),
    ...(r.categories.length > 0 ? { categories: [...r.categories] } : {}),
    ...(r.subresources.length > 0
      ? {
          subresources: r.subresources.map((subresource) => ({
            subresource,
            responseKind,
            verbs: ['get', 'patch', 'update'],
          })),
        }
      : {}),
  };
}

/**
 * The aggregated discovery document for GET /api (`scope` 'api': the core group, unnamed) or
 * GET /apis (`scope` 'apis': every named group), each version with all its resources.
 */
export function aggregatedDiscovery(scope: 'api' | 'apis'): APIGroupDiscoveryList {
  const groups = new Map<string, Map<string, APIResourceDiscovery[]>>();
  for (const r of resources) {
    if ((r.group === '') !== (scope === 'api')) continue;
    const versions = groups.get(r.group) ?? new Map<string, APIResourceDiscovery[]>();
    versions.set(r.version, [...(versions.get(r.version) ?? []), resourceDiscovery(r)]);
    groups.set(r.group, versions);
  }
  const items = [...groups].map(([name, versions]) => ({
    metadata: { ...(name === '' ? {} : { name }), creationTimestamp: null },
    versions: [...versions].map(([version, list]) => ({
      version,
      resources: list,
      freshness: 'Current' as const,
    })),
  }));
  return { kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {}, items };
}
