/**
 * The cluster `everynode run` works on: the user's (a kubeconfig) or the embedded simulated one,
 * which serves the API for kubectl from a kubeconfig written into the state directory.
 */
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ManagedKind } from '../kube/managed-kind.ts';
import { type SimCluster, startSimCluster } from '../sim/start-sim-cluster.ts';
import { applyDemoDaemonSets } from './demo-daemon-sets.ts';

/** Where the cluster comes from. */
export type ClusterChoice =
  | { readonly type: 'kubeconfig'; readonly path: string }
  | {
      readonly type: 'sim';
      readonly nodes: number;
      readonly port: number;
      readonly demo: boolean;
      /** Multiplies every delay of the simulated cluster (SimTiming.timeScale); 1 when omitted. */
      readonly timeScale?: number;
    };

/** The cluster in use. */
export interface RunCluster {
  readonly kubeconfigPath: string;
  /** One line saying what the cluster is. */
  readonly description: string;
  /** The simulated cluster, when it is one. */
  readonly sim?: SimCluster;
  stop(): Promise<void>;
}

/**
 * The cluster of `choice`: the kubeconfig as given, or a simulated cluster started with its
 * kubeconfig at `<stateDir>/kubeconfig`.
 */
export async function startRunCluster(
  choice: Readonly<ClusterChoice>,
  stateDir: string,
): Promise<RunCluster> {
  if (choice.type === 'kubeconfig') {
    return {
      kubeconfigPath: resolve(choice.path),
      description: `the cluster of ${choice.path}`,
      stop: async () => undefined,
    };
  }
  await mkdir(stateDir, { recursive: true });
  const kubeconfigPath = resolve(stateDir, 'kubeconfig');
  const sim = await startSimCluster({
    nodes: choice.nodes,
    port: choice.port,
    kubeconfigPath,
    ...(choice.timeScale === undefined ? {} : { timing: { timeScale: choice.timeScale } }),
  });
  return {
    kubeconfigPath,
    description: `simulated cluster with ${sim.nodes.names().length} nodes at ${sim.url}`,
    sim,
    stop: () => sim.stop(),
  };
}

/** Applies the demo DaemonSets to the simulated cluster of `cluster`, when it is one; returns their names. */
export function applyDemo(cluster: Readonly<RunCluster>, kind: ManagedKind): string[] {
  return cluster.sim ? applyDemoDaemonSets(cluster.sim.store, kind) : [];
}
