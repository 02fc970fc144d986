/**
 * Discovery documents built from the resource registry (lib/sim/schema/resources.ts): the legacy
 * documents of staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go (APIVersions, APIGroupList,
 * APIGroup, APIResourceList) and the aggregated apidiscovery.k8s.io/v2 APIGroupDiscoveryList that
 * kubectl 1.33 asks for first (client-go discovery falls back to the legacy form when the response's
 * Content-Type is plain application/json).
 */
import { createHash } from 'node:crypto';
import { type ResourceDefinition, resources } from '../schema/resources.ts';

/** The answer to GET /api (meta/v1 APIVersions). */
export interface APIVersions {
  kind: 'APIVersions';
  versions: string[];
  serverAddressByClientCIDRs: { clientCIDR: string; serverAddress: string }[];
}

/** A group version entry of an APIGroup. */
export interface GroupVersionForDiscovery {
  groupVersion: string;
  version: string;
}

/** One API group (meta/v1 APIGroup). */
export interface APIGroup {
  kind?: 'APIGroup';
  apiVersion?: 'v1';
  name: string;
  versions: GroupVersionForDiscovery[];
  preferredVersion: GroupVersionForDiscovery;
}

/** The answer to GET /apis (meta/v1 APIGroupList). */
export interface APIGroupList {
  kind: 'APIGroupList';
  apiVersion: 'v1';
  groups: APIGroup[];
}

/** One resource or subresource in an APIResourceList (meta/v1 APIResource). */
export interface APIResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
}

/** The answer to GET /api/v1 or /apis/<group>/<version> (meta/v1 APIResourceList). */
export interface APIResourceList {
  kind: 'APIResourceList';
  apiVersion: 'v1';
  groupVersion: string;
  resources: APIResource[];
}

/** The verbs of a `status` subresource, as the real server lists them. */
const subresourceVerbs = ['get', 'patch', 'update'];

/** Named groups in registry order, each with its served versions. */
function namedGroups(): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const r of resources) {
    if (r.group === '') continue;
    const versions = groups.get(r.group) ?? [];
    if (!versions.includes(r.version)) versions.push(r.version);
    groups.set(r.group, versions);
  }
  return groups;
}

function groupDocument(name: string, versions: readonly string[]): APIGroup {
  const entries = versions.map((version) => ({ groupVersion: `${name}/${version}`, version }));
  const preferred = entries[0] ?? { groupVersion: `${name}/v1`, version: 'v1' };
  return { name, versions: entries, preferredVersion: preferred };
}

/**
 * The storage version hash the apiserver publishes: base64 of the first 8 bytes of
 * sha256("<group>/<version>/<kind>") (apiserver pkg/endpoints/discovery StorageVersionHash).
 */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256')
    .update(`${group}/${version}/${kind}`)
    .digest()
    .subarray(0, 8)
    .toString('base64');
}

/** The document served at GET /api: the core group's versions, reachable at `serverAddress`. */
export function apiVersions(serverAddress: string): APIVersions {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

/** The document served at GET /apis: every named group and its versions, preferred first. */
export function apiGroupList(): APIGroupList {
  const groups = [...namedGroups()].map(([name, versions]) => groupDocument(name, versions));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

/** The document served at GET /apis/<group>, or undefined when the group is not served (404). */
export function apiGroup(group: string): APIGroup | undefined {
  const versions = namedGroups().get(group);
  return versions ? { kind: 'APIGroup', apiVersion: 'v1', ...groupDocument(group, versions) } : undefined;
}

function resourceEntries(r: ResourceDefinition): APIResource[] {
  const main: APIResource = {
    name: r.plural,
    singularName: r.singular,
    namespaced: r.namespaced,
    kind: r.kind,
    verbs: [...r.verbs],
    ...(r.shortNames.length > 0 ? { shortNames: [...r.shortNames] } : {}),
    ...(r.categories.length > 0 ? { categories: [...r.categories] } : {}),
    storageVersionHash: storageVersionHash(r.group, r.version, r.kind),
  };
  const subresources = r.subresources.map((sub) => ({
    name: `${r.plural}/${sub}`,
    singularName: '',
    namespaced: r.namespaced,
    kind: r.kind,
    verbs: [...subresourceVerbs],
  }));
  return [main, ...subresources];
}

/**
 * The document served at GET /api/v1 (group '') or /apis/<group>/<version>: each resource with
 * its verbs, kind, scope, short names and categories, followed by its subresources; undefined when
 * that group version is not served (404).
 */
export function apiResourceList(group: string, version: string): APIResourceList | undefined {
  const served = resources.filter((r) => r.group === group && r.version === version);
  if (served.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group === '' ? version : `${group}/${version}`,
    resources: served.flatMap(resourceEntries),
  };
}
