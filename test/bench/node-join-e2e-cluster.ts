/**
 * The simulated cluster of test/bench/node-join-e2e.ts, in a worker thread: the API server gets its
 * own event loop (and core), as a real one runs apart from its controllers, so the benchmark times
 * the pipeline, not the API server's JSON. It measures in the API server's store: from each joined
 * node's creation to the creation of each daemon pod for it, and from each hand-made pod's creation
 * (an orphan matching a DaemonSet's selector on a node that runs its pod) to its deletion.
 */
import { workerData } from 'node:worker_threads';
import { startSimCluster } from '../../lib/sim/start-sim-cluster.ts';
import type { KubeObject } from '../../lib/sim/storage/store.ts';
import { serveRpc } from './worker-rpc.ts';

/** What the worker is started with. */
export interface ClusterTask {
  readonly nodes: number;
  readonly kubeconfigPath: string;
}

/** A request to the worker, answered with the same id. */
export type ClusterRequest =
  | { readonly id: number; readonly cmd: 'daemonsets'; readonly count: number }
  | { readonly id: number; readonly cmd: 'pods' }
  | { readonly id: number; readonly cmd: 'join'; readonly name: string }
  | {
      readonly id: number;
      readonly cmd: 'orphan';
      readonly name: string;
      readonly node: string;
      readonly app: string;
    }
  | { readonly id: number; readonly cmd: 'samples' }
  | { readonly id: number; readonly cmd: 'stop' };

function daemonSet(index: number): KubeObject {
  const name = `agent-${String(index).padStart(2, '0')}`;
  return {
    apiVersion: 'everynode.dev/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'agent', image: 'busybox:1.36' }] },
      },
    },
  } as KubeObject;
}

function targetNode(pod: KubeObject): string | undefined {
  const spec = pod.spec as { nodeName?: string; affinity?: unknown } | undefined;
  if (spec?.nodeName) return spec.nodeName;
  return JSON.stringify(spec?.affinity ?? {}).match(
    /"metadata.name","operator":"In","values":\["([^"]+)"/,
  )?.[1];
}

async function serve(task: ClusterTask): Promise<void> {
  const sim = await startSimCluster({ nodes: task.nodes, kubeconfigPath: task.kubeconfigPath });
  const joinedAt = new Map<string, number>();
  const samples: number[] = [];
  const orphanAt = new Map<string, number>();
  const orphanSamples: number[] = [];
  sim.store.subscribe((event) => {
    const name = event.object.metadata.name ?? '';
    const orphan = event.key === 'pods' ? orphanAt.get(name) : undefined;
    if (orphan !== undefined && (event.type === 'DELETED' || event.object.metadata.deletionTimestamp)) {
      orphanSamples.push(performance.now() - orphan);
      orphanAt.delete(name);
    }
    if (event.type !== 'ADDED') return;
    if (event.key === 'nodes') joinedAt.set(event.object.metadata.name ?? '', performance.now());
    if (event.key !== 'pods') return;
    const node = targetNode(event.object);
    const at = node === undefined ? undefined : joinedAt.get(node);
    if (at !== undefined) samples.push(performance.now() - at);
  });
  serveRpc<ClusterRequest>(
    (request) => {
      switch (request.cmd) {
        case 'daemonsets':
          for (let i = 1; i <= request.count; i++) sim.store.create('everynode.dev/daemonsets', daemonSet(i));
          return true;
        case 'pods':
          return sim.store.view('pods').length;
        case 'join':
          sim.nodes.add(request.name, { labels: { 'kubernetes.io/os': 'linux' } });
          return true;
        case 'orphan':
          orphanAt.set(request.name, performance.now());
          sim.store.create('pods', {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name: request.name, namespace: 'default', labels: { app: request.app } },
            spec: { nodeName: request.node, containers: [{ name: 'agent', image: 'busybox:1.36' }] },
          } as KubeObject);
          return true;
        case 'samples':
          return {
            samples,
            orphanSamples,
            reconcileRequests: sim.counters.total({ userAgent: 'everynode/reconcile' }),
            byRequest: Object.fromEntries(
              sim.counters
                .snapshot()
                .filter((e) => e.userAgent.startsWith('everynode/'))
                .map((e) => [
                  `${e.userAgent.slice('everynode/'.length)} ${e.verb} ${e.resource}${e.subresource ? `/${e.subresource}` : ''}`,
                  e.count,
                ]),
            ),
          };
      }
    },
    () => sim.stop(),
    sim.url,
  );
}

await serve(workerData as ClusterTask);
