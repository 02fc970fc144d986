/**
 * The cluster `everynode run` works on: the user's (a kubeconfig) or the embedded simulated one,
 * which serves the API for kubectl from a kubeconfig written into the state directory.
 */
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ManagedKind } from '../kube/managed-kind.ts';
import type { EverynodeFunction } from '../kube/rbac/function-groups.ts';
import { type SimCluster, startSimCluster } from '../sim/start-sim-cluster.ts';
import { applyDemoDaemonSets } from './demo-daemon-sets.ts';
import { startLeastPrivilegeSim } from './least-privilege-sim.ts';

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
      /**
       * Run each function as its own user (`--least-privilege`): the cluster serves HTTPS with
       * static tokens and RBAC, the RBAC manifest of `managedKind` applied by the administrator.
       */
      readonly leastPrivilege?: { readonly managedKind: ManagedKind };
    };

/** The cluster in use. */
export interface RunCluster {
  readonly kubeconfigPath: string;
  /** One line saying what the cluster is. */
  readonly description: string;
  /** The simulated cluster, when it is one. */
  readonly sim?: SimCluster;
  /**
   * Each function's own kubeconfig path, with `leastPrivilege`; absent when every function uses
   * `kubeconfigPath`.
   */
  readonly identities?: Readonly<Record<EverynodeFunction, string>>;
  stop(): Promise<void>;
}

/**
 * The cluster of `choice`: the kubeconfig as given, or a simulated cluster started with its
 * kubeconfig (the administrator's) at `<stateDir>/kubeconfig` and, with `leastPrivilege`, the
 * token file and each function's kubeconfig beside it.
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
  const simOptions = {
    nodes: choice.nodes,
    port: choice.port,
    kubeconfigPath,
    ...(choice.timeScale === undefined ? {} : { timing: { timeScale: choice.timeScale } }),
  };
  const secured = choice.leastPrivilege
    ? await startLeastPrivilegeSim({ ...simOptions, dir: stateDir, ...choice.leastPrivilege })
    : undefined;
  const sim = secured?.sim ?? (await startSimCluster(simOptions));
  const access = secured ? ', each function as its own user (RBAC)' : '';
  return {
    kubeconfigPath,
    description: `simulated cluster with ${sim.nodes.names().length} nodes at ${sim.url}${access}`,
    sim,
    ...(secured ? { identities: secured.identities } : {}),
    stop: () => sim.stop(),
  };
}

/** Applies the demo DaemonSets to the simulated cluster of `cluster`, when it is one; returns their names. */
export function applyDemo(cluster: Readonly<RunCluster>, kind: ManagedKind): string[] {
  return cluster.sim ? applyDemoDaemonSets(cluster.sim.store, kind) : [];
}
