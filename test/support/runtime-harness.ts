/**
 * A store with the simulated cluster's runtime (scheduler, kubelets, controllers) but no HTTP, for
 * tests of the runtime; and waiting for the cluster to reach a state.
 */
import type { V1Node, V1Pod, V1Toleration } from '@kubernetes/client-node';
import { type SimRuntime, startSimRuntime } from '../../lib/sim/sim-runtime.ts';
import type { SimTiming } from '../../lib/sim/sim-timing.ts';
import { ClusterStore, type KubeObject } from '../../lib/sim/storage/store.ts';
import { aPod } from './builders.ts';

export interface Harness {
  readonly store: ClusterStore;
  readonly runtime: SimRuntime;
  pod(name: string, namespace?: string): V1Pod | undefined;
  node(name: string): V1Node | undefined;
  stop(): void;
}

/** 1 simulated second = 1 ms. */
export const fastTiming: Partial<SimTiming> = { timeScale: 0.001 };

/** A fresh store holding `nodes`, with the runtime started over it. */
export function startHarness(nodes: readonly V1Node[], timing: Partial<SimTiming> = fastTiming): Harness {
  const store = new ClusterStore();
  for (const node of nodes) store.create('nodes', stripServerFields(node));
  const runtime = startSimRuntime(store, { timing });
  return {
    store,
    runtime,
    pod: (name, namespace = 'default') => store.get('pods', namespace, name) as V1Pod | undefined,
    node: (name) => store.get('nodes', undefined, name) as V1Node | undefined,
    stop: () => runtime.stop(),
  };
}

/** How {@link boundPod} shapes the pod; each field omitted is left out of the spec. */
export interface BoundPodOptions {
  /** Image of its one container `main`; default busybox. */
  readonly image?: string;
  /** terminationGracePeriodSeconds. */
  readonly grace?: number;
  readonly tolerations?: V1Toleration[];
}

/** A pod already bound to `node` (as if scheduled), with no status for the kubelet to start from. */
export function boundPod(name: string, node: string, options: BoundPodOptions = {}): V1Pod {
  const { image = 'busybox', grace, tolerations } = options;
  const pod = aPod(name, { nodeName: node });
  delete pod.status;
  pod.spec = {
    ...pod.spec,
    containers: [{ name: 'main', image }],
    ...(grace !== undefined ? { terminationGracePeriodSeconds: grace } : {}),
    ...(tolerations ? { tolerations } : {}),
  };
  return pod;
}

/** A builder object without the fields the server sets (uid, resourceVersion, timestamps). */
export function stripServerFields(obj: object): KubeObject {
  const json = JSON.parse(JSON.stringify(obj)) as KubeObject;
  const { uid: _u, resourceVersion: _r, creationTimestamp: _c, generation: _g, ...metadata } = json.metadata;
  return { ...json, metadata };
}

/** Resolves with `read()`'s value once `accept` holds for it; rejects with the last value after `timeoutMs`. */
export async function eventually<T>(
  read: () => T,
  accept: (value: T) => boolean,
  timeoutMs = 3000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (accept(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`condition not reached in ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Waits `ms` of real time (to show that something does NOT happen). */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The status of the named condition of a pod or node, if any. */
export function conditionOf(
  obj: { status?: { conditions?: { type: string; status: string }[] } } | undefined,
  type: string,
): string | undefined {
  return obj?.status?.conditions?.find((c) => c.type === type)?.status;
}
