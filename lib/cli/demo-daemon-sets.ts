/**
 * The two example DaemonSets that `npm start` applies to the simulated cluster:
 * `kube-system/fluentd-elasticsearch` and `kiada/demo` (copies of test/fixtures in lib/cli/demo/).
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { DaemonSet } from '../core/daemon-set.ts';
import type { ManagedKind } from '../kube/managed-kind.ts';
import type { ResourceKey } from '../sim/schema/resources.ts';
import type { ClusterStore, KubeObject } from '../sim/storage/store.ts';

const demoFiles = ['fluentd-elasticsearch.yaml', 'demo.yaml'];

/** The demo DaemonSets as `kind` (their YAML is everynode.dev/v1; apps/v1 has the same shape). */
export function demoDaemonSets(kind: ManagedKind): DaemonSet[] {
  return demoFiles.map((file) => {
    const ds = parse(readFileSync(new URL(`./demo/${file}`, import.meta.url), 'utf8')) as DaemonSet;
    return { ...ds, apiVersion: kind };
  });
}

/**
 * Creates the demo DaemonSets (and their namespaces) in the simulated cluster's store, as
 * `kubectl apply` of their files would; those that exist already are left alone. Returns the
 * `namespace/name` of each.
 */
export function applyDemoDaemonSets(store: ClusterStore, kind: ManagedKind): string[] {
  const key: ResourceKey = kind === 'apps/v1' ? 'apps/daemonsets' : 'everynode.dev/daemonsets';
  return demoDaemonSets(kind).map((ds) => {
    const namespace = ds.metadata?.namespace ?? 'default';
    const name = ds.metadata?.name ?? '';
    if (!store.get('namespaces', undefined, namespace)) {
      store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    }
    if (!store.get(key, namespace, name)) store.create(key, ds as unknown as KubeObject);
    return `${namespace}/${name}`;
  });
}
