/**
 * The resources the simulated API server serves: one entry per resource, the single source of
 * truth for routing, discovery, OpenAPI and storage keys.
 */

/** A verb of the Kubernetes API, as discovery lists it. */
export type Verb = 'create' | 'delete' | 'deletecollection' | 'get' | 'list' | 'patch' | 'update' | 'watch';

/** What the server knows of one resource type. */
export interface ResourceDefinition {
  /** Storage key and the name used by counters: `pods`, `apps/daemonsets`, `everynode.dev/daemonsets`. */
  readonly key: ResourceKey;
  /** API group; '' for the core group (served under /api/v1). */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly listKind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
  readonly namespaced: boolean;
  readonly verbs: readonly Verb[];
  /** Subresources served, such as `status`. */
  readonly subresources: readonly string[];
  /** Discovery categories (`all` makes `kubectl get all` include it). */
  readonly categories: readonly string[];
}

/** The storage keys of every served resource. */
export type ResourceKey =
  | 'namespaces'
  | 'nodes'
  | 'pods'
  | 'events'
  | 'apps/daemonsets'
  | 'apps/controllerrevisions'
  | 'authorization.k8s.io/selfsubjectaccessreviews'
  | 'rbac.authorization.k8s.io/clusterrolebindings'
  | 'rbac.authorization.k8s.io/clusterroles'
  | 'rbac.authorization.k8s.io/rolebindings'
  | 'rbac.authorization.k8s.io/roles'
  | 'apiextensions.k8s.io/customresourcedefinitions'
  | 'everynode.dev/daemonsets';

const allVerbs: readonly Verb[] = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];

/** A cluster-scoped or namespaced rbac.authorization.k8s.io/v1 resource (no short names, no subresources). */
function rbacResource(kind: string, namespaced: boolean): ResourceDefinition {
  const singular = kind.toLowerCase();
  return {
    key: `rbac.authorization.k8s.io/${singular}s` as ResourceKey,
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind,
    listKind: `${kind}List`,
    plural: `${singular}s`,
    singular,
    shortNames: [],
    namespaced,
    verbs: allVerbs,
    subresources: [],
    categories: [],
  };
}

/**
 * Who may do what, and the API extensions: authorization.k8s.io's create-only
 * SelfSubjectAccessReview, the four RBAC kinds and CustomResourceDefinitions, in the order a real
 * server lists their groups (built-in groups before those of CRDs).
 */
function accessResources(): ResourceDefinition[] {
  return [
    {
      key: 'authorization.k8s.io/selfsubjectaccessreviews',
      group: 'authorization.k8s.io',
      version: 'v1',
      kind: 'SelfSubjectAccessReview',
      listKind: 'SelfSubjectAccessReviewList',
      plural: 'selfsubjectaccessreviews',
      singular: 'selfsubjectaccessreview',
      shortNames: [],
      namespaced: false,
      verbs: ['create'],
      subresources: [],
      categories: [],
    },
    rbacResource('ClusterRoleBinding', false),
    rbacResource('ClusterRole', false),
    rbacResource('RoleBinding', true),
    rbacResource('Role', true),
    {
      key: 'apiextensions.k8s.io/customresourcedefinitions',
      group: 'apiextensions.k8s.io',
      version: 'v1',
      kind: 'CustomResourceDefinition',
      listKind: 'CustomResourceDefinitionList',
      plural: 'customresourcedefinitions',
      singular: 'customresourcedefinition',
      shortNames: ['crd', 'crds'],
      namespaced: false,
      verbs: allVerbs,
      subresources: ['status'],
      categories: ['api-extensions'],
    },
  ];
}

/** Every resource the simulated cluster serves, in discovery order. */
export const resources: readonly ResourceDefinition[] = [
  {
    key: 'namespaces',
    group: '',
    version: 'v1',
    kind: 'Namespace',
    listKind: 'NamespaceList',
    plural: 'namespaces',
    singular: 'namespace',
    shortNames: ['ns'],
    namespaced: false,
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: ['status'],
    categories: [],
  },
  {
    key: 'nodes',
    group: '',
    version: 'v1',
    kind: 'Node',
    listKind: 'NodeList',
    plural: 'nodes',
    singular: 'node',
    shortNames: ['no'],
    namespaced: false,
    verbs: allVerbs,
    subresources: ['status'],
    categories: [],
  },
  {
    key: 'pods',
    group: '',
    version: 'v1',
    kind: 'Pod',
    listKind: 'PodList',
    plural: 'pods',
    singular: 'pod',
    shortNames: ['po'],
    namespaced: true,
    verbs: allVerbs,
    subresources: ['resize', 'status'],
    categories: ['all'],
  },
  {
    key: 'events',
    group: '',
    version: 'v1',
    kind: 'Event',
    listKind: 'EventList',
    plural: 'events',
    singular: 'event',
    shortNames: ['ev'],
    namespaced: true,
    verbs: allVerbs,
    subresources: [],
    categories: [],
  },
  {
    key: 'apps/daemonsets',
    group: 'apps',
    version: 'v1',
    kind: 'DaemonSet',
    listKind: 'DaemonSetList',
    plural: 'daemonsets',
    singular: 'daemonset',
    shortNames: ['ds'],
    namespaced: true,
    verbs: allVerbs,
    subresources: ['status'],
    categories: ['all'],
  },
  {
    key: 'apps/controllerrevisions',
    group: 'apps',
    version: 'v1',
    kind: 'ControllerRevision',
    listKind: 'ControllerRevisionList',
    plural: 'controllerrevisions',
    singular: 'controllerrevision',
    shortNames: [],
    namespaced: true,
    verbs: allVerbs,
    subresources: [],
    categories: [],
  },
  ...accessResources(),
  {
    key: 'everynode.dev/daemonsets',
    group: 'everynode.dev',
    version: 'v1',
    kind: 'DaemonSet',
    listKind: 'DaemonSetList',
    plural: 'daemonsets',
    singular: 'daemonset',
    shortNames: ['eds'],
    namespaced: true,
    verbs: allVerbs,
    subresources: ['status'],
    categories: ['everynode'],
  },
];

/** The definition for a storage key; throws on a key that is not served (a programming error). */
export function resourceByKey(key: ResourceKey): ResourceDefinition {
  const found = resources.find((r) => r.key === key);
  if (!found) throw new Error(`resource ${key} is not served by the simulated cluster`);
  return found;
}

/** The definition served at `group`/`version`/`plural`, or undefined when nothing is served there. */
export function resourceAt(group: string, version: string, plural: string): ResourceDefinition | undefined {
  return resources.find((r) => r.group === group && r.version === version && r.plural === plural);
}
