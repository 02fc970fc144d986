/**
 * The KubePort methods on DaemonSets of the managed kind: `apps/v1` DaemonSets as client-node's
 * V1DaemonSet model, `everynode.dev/v1` ones as custom objects. The rest of everynode sees one
 * `DaemonSet` type either way (docs/design.md, 19. Managed kinds: one code path, only the resource
 * differs).
 */
import type { Configuration, V1DaemonSet, V1DaemonSetList } from '@kubernetes/client-node';
import type { DaemonSet } from '../../core/daemon-set.ts';
import { fromJson, toJson } from '../codec/object-codec.ts';
import type { KubePort, ListOptions, ListResult, ReadOptions } from '../kube-port.ts';
import { type ManagedKind, managedResourceOf } from '../managed-kind.ts';
import {
  kubeCall,
  kubeGet,
  listParameters,
  listResultOf,
  readResourceVersion,
  withKind,
} from '../requests/kube-call.ts';
import { apiPath, listQuery, sendKubeRequest } from '../requests/kube-request.ts';

type DaemonSetMethods = Pick<
  KubePort,
  'getDaemonSet' | 'listDaemonSets' | 'updateDaemonSetStatus' | 'patchDaemonSetAnnotations'
>;
type NamespacedList = ListOptions & { readonly namespace?: string };

/** The resource-specific calls, each returning typed DaemonSets. */
interface DaemonSetCalls {
  get(namespace: string, name: string, options: Readonly<ReadOptions> | undefined): Promise<DaemonSet>;
  list(options: Readonly<NamespacedList>): Promise<ListResult<DaemonSet>>;
  replaceStatus(daemonSet: Readonly<DaemonSet>): Promise<DaemonSet>;
  /** A JSON merge patch of the DaemonSet itself. */
  mergePatch(namespace: string, name: string, patch: unknown): Promise<DaemonSet>;
}

/** The query of a read: resourceVersion=0 (the watch cache) only when the caller allows a stale read. */
function readQuery(options: Readonly<ReadOptions> | undefined) {
  return { resourceVersion: readResourceVersion(options) };
}

function appsCalls(configuration: Configuration): DaemonSetCalls {
  const one = '/apis/apps/v1/namespaces/{namespace}/daemonsets/{name}';
  return {
    get: (namespace, name, options) =>
      sendKubeRequest<V1DaemonSet>(configuration, {
        method: 'GET',
        path: apiPath(one, { namespace, name }),
        query: readQuery(options),
        answer: { type: 'V1DaemonSet' },
      }),
    async list(options) {
      const { namespace } = options;
      const list = await sendKubeRequest<V1DaemonSetList>(configuration, {
        method: 'GET',
        path: namespace
          ? apiPath('/apis/apps/v1/namespaces/{namespace}/daemonsets', { namespace })
          : '/apis/apps/v1/daemonsets',
        query: listQuery(listParameters(options)),
        answer: { type: 'V1DaemonSetList' },
      });
      return listResultOf(list, 'apps/v1', 'DaemonSet');
    },
    replaceStatus: (ds) =>
      sendKubeRequest<V1DaemonSet>(configuration, {
        method: 'PUT',
        path: apiPath(`${one}/status`, {
          namespace: ds.metadata?.namespace ?? '',
          name: ds.metadata?.name ?? '',
        }),
        body: { value: ds, type: 'V1DaemonSet' },
        answer: { type: 'V1DaemonSet' },
      }),
    mergePatch: (namespace, name, patch) =>
      sendKubeRequest<V1DaemonSet>(configuration, {
        method: 'PATCH',
        path: apiPath(one, { namespace, name }),
        body: { value: patch, type: 'any', contentType: 'application/merge-patch+json' },
        answer: { type: 'V1DaemonSet' },
      }),
  };
}

interface RawList {
  items?: unknown[];
  metadata?: { resourceVersion?: string; continue?: string };
}

function customCalls(configuration: Configuration, kind: ManagedKind): DaemonSetCalls {
  const { group, version, plural } = managedResourceOf(kind);
  const resource = { group, version, plural };
  const one = '/apis/{group}/{version}/namespaces/{namespace}/{plural}/{name}';
  return {
    get: async (namespace, name, options) =>
      fromJson(
        await sendKubeRequest(configuration, {
          method: 'GET',
          path: apiPath(one, { ...resource, namespace, name }),
          query: readQuery(options),
          answer: { type: 'any' },
        }),
        'V1DaemonSet',
      ),
    async list(options) {
      const { namespace } = options;
      const raw = await sendKubeRequest<RawList>(configuration, {
        method: 'GET',
        path: namespace
          ? apiPath('/apis/{group}/{version}/namespaces/{namespace}/{plural}', { ...resource, namespace })
          : apiPath('/apis/{group}/{version}/{plural}', resource),
        query: listQuery(listParameters(options)),
        answer: { type: 'any' },
      });
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
      return fromJson(
        await sendKubeRequest(configuration, {
          method: 'PUT',
          path: apiPath(`${one}/status`, { ...resource, namespace, name }),
          body: { value: toJson(ds, 'V1DaemonSet'), type: 'any' },
          answer: { type: 'any' },
        }),
        'V1DaemonSet',
      );
    },
    mergePatch: async (namespace, name, patch) =>
      fromJson(
        await sendKubeRequest(configuration, {
          method: 'PATCH',
          path: apiPath(one, { ...resource, namespace, name }),
          body: { value: patch, type: 'any', contentType: 'application/merge-patch+json' },
          answer: { type: 'any' },
        }),
        'V1DaemonSet',
      ),
  };
}

/** The DaemonSet methods of the port for `kind`. */
export function daemonSetOperations(configuration: Configuration, kind: ManagedKind): DaemonSetMethods {
  const calls = kind === 'apps/v1' ? appsCalls(configuration) : customCalls(configuration, kind);
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
    async patchDaemonSetAnnotations(target, annotations) {
      const { namespace, name, uid, resourceVersion } = target;
      const keys = Object.keys(annotations).join(', ');
      const doing = `setting annotations ${keys} of ${which} ${namespace}/${name}`;
      // uid and resourceVersion in the patch make the API server refuse it if the object changed.
      const patch = { metadata: { uid, ...(resourceVersion ? { resourceVersion } : {}), annotations } };
      return withKind(
        await kubeCall(doing, () => calls.mergePatch(namespace, name, patch)),
        kind,
        'DaemonSet',
      );
    },
    async updateDaemonSetStatus(ds) {
      const { namespace, name, resourceVersion } = ds.metadata ?? {};
      const doing = `writing the status of ${which} ${namespace}/${name} at resourceVersion ${resourceVersion}`;
      return withKind(await kubeCall(doing, () => calls.replaceStatus(ds)), kind, 'DaemonSet');
    },
  };
}
