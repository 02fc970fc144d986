/**
 * The simulated cluster of test/bench/node-ready.ts, in a worker thread as in node-join-e2e (the API
 * server on its own event loop, apart from the pipeline it serves). It runs `count` everynode.dev/v1
 * DaemonSets, the first `gating` of them gating nodes (BootstrapOnly, the default taint key), joins
 * nodes registered with the gate taint, and times in the API server's store — one clock, the moment
 * each change is committed — each joined node's creation, each gating pod's Ready=True, the removal
 * of the node's gate taint, and the Node Events everynode records.
 */
import { workerData } from 'node:worker_threads';
import { DEFAULT_GATE_TAINT_KEY, GATE_TAINT_EFFECT } from '../../lib/core/node-gates/gate-declaration.ts';
import { startSimCluster } from '../../lib/sim/start-sim-cluster.ts';
import type { KubeObject, StoreEvent } from '../../lib/sim/storage/store.ts';
import { wallMs } from './node-ready-relay-tap.ts';
import { serveRpc } from './worker-rpc.ts';

/** What the worker is started with. */
export interface NodeReadyClusterTask {
  readonly nodes: number;
  readonly kubeconfigPath: string;
}

/** A request to the worker, answered with the same id. */
export type NodeReadyClusterRequest =
  | { readonly id: number; readonly cmd: 'daemonsets'; readonly count: number; readonly gating: number }
  | { readonly id: number; readonly cmd: 'progress' }
  | { readonly id: number; readonly cmd: 'join'; readonly name: string }
  | { readonly id: number; readonly cmd: 'gates' }
  | { readonly id: number; readonly cmd: 'requests' }
  | { readonly id: number; readonly cmd: 'stop' };

/** The answer to `progress`: how far the setup got. */
export interface ClusterProgress {
  readonly pods: number;
  readonly readyPods: number;
  /** The DaemonSets as stored that carry `spec.nodeReadiness` (the schema kept the field). */
  readonly gatingStored: number;
}

/** One joined node's gate timeline, in epoch milliseconds (`wallMs`) as the store committed each change. */
export interface JoinedNodeGate {
  readonly name: string;
  readonly createdAt: number;
  /** When a stored version of the node first lacked the gate taint. */
  readonly liftedAt?: number;
  /** When each gating DaemonSet's pod on the node first turned Ready=True, by DaemonSet name. */
  readonly gatingReadyAt: Readonly<Record<string, number>>;
  /** The node still carries the gate taint. */
  readonly taintedNow: boolean;
  /** Events everynode recorded on the node, by reason. */
  readonly nodeEvents: Readonly<Record<string, number>>;
}

/** One request counter line of an everynode component. */
export interface RequestCount {
  readonly userAgent: string;
  readonly verb: string;
  readonly resource: string;
  readonly subresource: string;
  readonly count: number;
}

const isGateTaint = (t: { key?: string; effect?: string }) =>
  t.key === DEFAULT_GATE_TAINT_KEY && t.effect === GATE_TAINT_EFFECT;

function daemonSet(index: number, gating: boolean): KubeObject {
  const name = `agent-${String(index).padStart(2, '0')}`;
  return {
    apiVersion: 'everynode.dev/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: name } },
      ...(gating ? { nodeReadiness: { mode: 'BootstrapOnly' } } : {}),
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'agent', image: 'busybox:1.36' }] },
      },
    },
  } as KubeObject;
}

function isReady(pod: KubeObject | undefined): boolean {
  const conditions = (pod?.status as { conditions?: { type?: string; status?: string }[] } | undefined)
    ?.conditions;
  return conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
}

function hasGateTaint(node: KubeObject | undefined): boolean {
  const taints = (node?.spec as { taints?: { key?: string; effect?: string }[] } | undefined)?.taints;
  return taints?.some(isGateTaint) === true;
}

/** The name of the DaemonSet controlling `pod`, if any. */
function controllerName(pod: KubeObject): string | undefined {
  return pod.metadata.ownerReferences?.find((ref) => ref.controller === true)?.name;
}

/** The gate timelines of the joined nodes, kept from the store's change stream. */
class GateTimeline {
  readonly gatingNames = new Set<string>();
  readonly #created = new Map<string, number>();
  readonly #lifted = new Map<string, number>();
  readonly #ready = new Map<string, Record<string, number>>();
  readonly #events = new Map<string, Record<string, number>>();

  observe(event: Readonly<StoreEvent>, at: number): void {
    const { object, oldObject } = event;
    const name = object.metadata.name ?? '';
    if (event.key === 'nodes') {
      if (event.type === 'ADDED' && hasGateTaint(object)) this.#created.set(name, at);
      if (event.type === 'MODIFIED' && this.#created.has(name) && !this.#lifted.has(name))
        if (hasGateTaint(oldObject) && !hasGateTaint(object)) this.#lifted.set(name, at);
      return;
    }
    if (event.key === 'pods') this.#observePod(event, at);
    else if (event.key === 'events' && event.type === 'ADDED') this.#observeEvent(object);
  }

  #observePod(event: Readonly<StoreEvent>, at: number): void {
    const pod = event.object;
    const node = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
    const owner = controllerName(pod);
    if (!node || !this.#created.has(node) || owner === undefined || !this.gatingNames.has(owner)) return;
    if (!isReady(pod) || isReady(event.oldObject)) return;
    const ready = this.#ready.get(node) ?? {};
    ready[owner] ??= at;
    this.#ready.set(node, ready);
  }

  #observeEvent(object: KubeObject): void {
    const e = object as KubeObject & {
      involvedObject?: { kind?: string; name?: string };
      source?: { component?: string };
      reason?: string;
    };
    if (e.involvedObject?.kind !== 'Node' || e.source?.component !== 'everynode') return;
    const node = e.involvedObject.name ?? '';
    const counts = this.#events.get(node) ?? {};
    counts[e.reason ?? ''] = (counts[e.reason ?? ''] ?? 0) + 1;
    this.#events.set(node, counts);
  }

  joined(isTainted: (name: string) => boolean): JoinedNodeGate[] {
    return [...this.#created.entries()].map(([name, createdAt]) => {
      const liftedAt = this.#lifted.get(name);
      return {
        name,
        createdAt,
        ...(liftedAt === undefined ? {} : { liftedAt }),
        gatingReadyAt: this.#ready.get(name) ?? {},
        taintedNow: isTainted(name),
        nodeEvents: this.#events.get(name) ?? {},
      };
    });
  }
}

async function serve(task: NodeReadyClusterTask): Promise<void> {
  const sim = await startSimCluster({ nodes: task.nodes, kubeconfigPath: task.kubeconfigPath });
  const timeline = new GateTimeline();
  let [pods, readyPods] = [0, 0];
  sim.store.subscribe((event) => {
    const at = wallMs();
    if (event.key === 'pods') {
      pods += event.type === 'ADDED' ? 1 : event.type === 'DELETED' ? -1 : 0;
      readyPods +=
        (event.type !== 'DELETED' && isReady(event.object) ? 1 : 0) - (isReady(event.oldObject) ? 1 : 0);
    }
    timeline.observe(event, at);
  });
  serveRpc<NodeReadyClusterRequest>(
    (request) => {
      switch (request.cmd) {
        case 'daemonsets':
          for (let i = 1; i <= request.count; i++) {
            if (i <= request.gating) timeline.gatingNames.add(`agent-${String(i).padStart(2, '0')}`);
            sim.store.create('everynode.dev/daemonsets', daemonSet(i, i <= request.gating));
          }
          return true;
        case 'progress':
          return {
            pods,
            readyPods,
            gatingStored: sim.store
              .list('everynode.dev/daemonsets')
              .filter((ds) => (ds.spec as { nodeReadiness?: unknown }).nodeReadiness !== undefined).length,
          } satisfies ClusterProgress;
        case 'join':
          sim.nodes.add(request.name, {
            labels: { 'kubernetes.io/os': 'linux' },
            taints: [{ key: DEFAULT_GATE_TAINT_KEY, effect: GATE_TAINT_EFFECT }],
          });
          return true;
        case 'gates':
          return timeline.joined((name) => hasGateTaint(sim.store.peek('nodes', undefined, name)));
        case 'requests':
          return sim.counters
            .snapshot()
            .filter((e) => e.userAgent.startsWith('everynode/')) satisfies RequestCount[];
      }
    },
    () => sim.stop(),
    sim.url,
  );
}

await serve(workerData as NodeReadyClusterTask);
