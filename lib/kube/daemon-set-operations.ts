/**
 * The KubePort methods on DaemonSets of the managed kind: `apps/v1` through client-node's
 * AppsV1Api, `everynode.dev/v1` through its CustomObjectsApi. The rest of everynode sees one
 * `DaemonSet` type either way (docs/design.md, 19. Managed kinds: one code path, only the resource
 * differs).
 */
import type { V1DaemonSet } from '@kubernetes/client-node';
import type { DaemonSet } from '../core/daemon-set.ts';
import { callOptions, type KubeApis } from './kube-apis.ts';
import {
  kubeCall,
  kubeGet,
  listParameters,
  listResultOf,
  readResourceVersion,
  withKind,
} from './kube-call.ts';
import type { KubePort, ListOptions, ListResult, ReadOptions } from './kube-port.ts';
import { type ManagedKind, managedResourceOf } from './managed-kind.ts';
import { fromJson, toJson } from './object-codec.ts';

type DaemonSetMethods = Pick<KubePort, 'getDaemonSet' | 'listDaemonSets' | 'updateDaemonSetStatus'>;
type NamespacedList = ListOptions & { readonly namespace?: string };

/** The resource-specific calls, each returning typed DaemonSets. */
interface DaemonSetCalls {
  get(namespace: string, name: string, options: Readonly<ReadOptions> | undefined): Promise<DaemonSet>;
  list(options: Readonly<NamespacedList>): Promise<ListResult<DaemonSet>>;
  replaceStatus(daemonSet: Readonly<DaemonSet>): Promise<DaemonSet>;
}

function staleOptions(options: Readonly<ReadOptions> | undefined) {
  // resourceVersion=0: served from the watch cache, only when the caller allows a stale read.
  const resourceVersion = readResourceVersion(options);
  return resourceVersion ? callOptions({ query: { resourceVersion } }) : undefined;
}

function appsCalls({ apps }: KubeApis): DaemonSetCalls {
  return {
    get: (namespace, name, options) =>
      apps.readNamespacedDaemonSet({ namespace, name }, staleOptions(options)),
    async list(options) {
      const { namespace } = options;
      const list = namespace
        ? await apps.listNamespacedDaemonSet({ namespace, ...listParameters(options) })
        : await apps.listDaemonSetForAllNamespaces(listParameters(options));
      return listResultOf(list, 'apps/v1', 'DaemonSet');
    },
    replaceStatus: (ds) =>
      apps.replaceNamespacedDaemonSetStatus({
        namespace: ds.metadata?.namespace ?? '',
        name: ds.metadata?.name ?? '',
        body: ds as V1DaemonSet,
      }),
  };
}

interface RawList {
  items?: unknown[];
  metadata?: { resourceVersion?: string; continue?: string };
}

function customCalls({ custom }: KubeApis, kind: ManagedKind): DaemonSetCalls {
  const { group, version, plural } = managedResourceOf(kind);
  return {
    get: async (namespace, name, options) =>
      fromJson(
        await custom.getNamespacedCustomObject(
          { group, version, plural, namespace, name },
          staleOptions(options),
        ),
        'V1DaemonSet',
      ),
    async list(options) {
      const { namespace } = options;
      const params = { group, version, plural, ...listParameters(options) };
      const raw: RawList = namespace
        ? await custom.listNamespacedCustomObject({ ...params, namespace })
        : await custom.listClusterCustomObject(params);
      const items = (raw.items ?? []).map((item) => fromJson<DaemonSet>(item, 'V1DaemonSet'));
      return listResultOf(
        { items, metadata: { ...raw.metadata, _continue: raw.metadata?.continue } },
        kind,
        'DaemonSet',
      );
    },
    replaceStatus: async (ds) => {
      const namespace = ds.metadata?.namespace ?? '';
      const name = ds.metadata?.name ?? '';
      const body = toJson(ds, 'V1DaemonSet');
      return fromJson(
        await custom.replaceNamespacedCustomObjectStatus({ group, version, plural, namespace, name, body }),
        'V1DaemonSet',
      );
    },
  };
}

/** The DaemonSet methods of the port for `kind`. */
export function daemonSetOperations(apis: KubeApis, kind: ManagedKind): DaemonSetMethods {
  const calls = kind === 'apps/v1' ? appsCalls(apis) : customCalls(apis, kind);
  const which = `${kind} DaemonSet`;
  return {
    async getDaemonSet(namespace, name, options) {
      const ds = await kubeGet(`reading ${which} ${namespace}/${name}`, () =>
        calls.get(namespace, name, options),
      );
      return ds && withKind(ds, kind, 'DaemonSet');
    },
    listDaemonSets(options = {}) {
      const where = options.namespace ? ` in namespace ${options.namespace}` : '';
      return kubeCall(`listing ${which}s${where}`, () => calls.list(options));
    },
    async updateDaemonSetStatus(ds) {
      const { namespace, name, resourceVersion } = ds.metadata ?? {};
      const doing = `writing the status of ${which} ${namespace}/${name} at resourceVersion ${resourceVersion}`;
      return withKind(await kubeCall(doing, () => calls.replaceStatus(ds)), kind, 'DaemonSet');
    },
  };
}
