/**
 * The world of the kubectl plugin's tests: two `everynode run`s on simulated clusters of the six
 * seed nodes, each in its own process group — one managing everynode.dev/v1 DaemonSets (the
 * plugin's kind), one apps/v1 (where the real `kubectl rollout` works: the reference) — and, for
 * each, the real kubectl with the plugin on its PATH as npm links it (a `kubectl-everynode` symlink
 * to bin/kubectl-everynode.js in a temporary folder), so `kubectl everynode …` goes through
 * kubectl's own plugin mechanism. Every kubectl started leads its own process group, killed when
 * the world stops.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { type EverynodeRun, groupAlive, startEverynodeRun } from '../conformance/everynode-run.ts';
import {
  kubectlStarter,
  pluginBinIn,
  type RunningTool,
  type ToolOptions,
  type ToolResult,
} from './plugin-kubectl.ts';

export type { RunningTool, ToolOptions, ToolResult } from './plugin-kubectl.ts';

/** One cluster of the world and the tools bound to it. */
export interface PluginCluster {
  /** The kind its everynode manages. */
  readonly kind: 'everynode.dev/v1' | 'apps/v1';
  /** The resource type kubectl names that kind by: `eds` or `ds`. */
  readonly type: 'eds' | 'ds';
  /** How kubectl prints a DaemonSet's name: `daemonset.everynode.dev/NAME` or `daemonset.apps/NAME`. */
  printed(name: string): string;
  readonly kubeconfigPath: string;
  /** Runs kubectl (KUBECONFIG set to the cluster's, the plugin on PATH) and resolves when it exits. */
  kubectl(args: readonly string[], options?: ToolOptions): Promise<ToolResult>;
  /** Starts kubectl and returns at once. */
  start(args: readonly string[], options?: ToolOptions): RunningTool;
  readonly core: CoreV1Api;
  /** The administrator's kubeconfig, for client-node (the tests' own reads and watches). */
  readonly kubeConfig: KubeConfig;
  /** The DaemonSet `name` in `namespace` as JSON. */
  daemonSet(namespace: string, name: string): Promise<DaemonSetJson>;
}

/** The fields of a DaemonSet the tests read. */
export interface DaemonSetJson {
  metadata: {
    name: string;
    generation: number;
    resourceVersion: string;
    annotations?: Record<string, string>;
  };
  spec: {
    template: {
      metadata?: { annotations?: Record<string, string> };
      spec: { containers: { image: string }[] };
    };
  };
  status?: {
    observedGeneration?: number;
    desiredNumberScheduled?: number;
    updatedNumberScheduled?: number;
    numberAvailable?: number;
  };
}

/** Both clusters. */
export interface PluginWorld {
  readonly eds: PluginCluster;
  readonly apps: PluginCluster;
  stop(): Promise<void>;
}

function clusterOf(
  kind: PluginCluster['kind'],
  run: EverynodeRun,
  dir: string,
  pluginDir: string,
  children: Set<ChildProcess>,
): PluginCluster {
  const kubeconfigPath = join(dir, 'kubeconfig');
  writeFileSync(kubeconfigPath, run.kubeconfig);
  const home = join(dir, 'home');
  mkdirSync(home);
  const start = kubectlStarter(kubeconfigPath, home, pluginDir, children);
  const kc = new KubeConfig();
  kc.loadFromString(run.kubeconfig);
  const objects = kc.makeApiClient(CustomObjectsApi);
  const [group = '', version = ''] = kind.split('/');
  return {
    kind,
    type: kind === 'apps/v1' ? 'ds' : 'eds',
    printed: (name) => `daemonset.${group}/${name}`,
    kubeconfigPath,
    start,
    kubectl: (args, options) => start(args, options).done,
    core: kc.makeApiClient(CoreV1Api),
    kubeConfig: kc,
    daemonSet: async (namespace, name) =>
      (await objects.getNamespacedCustomObject({
        group,
        version,
        namespace,
        plural: 'daemonsets',
        name,
      })) as DaemonSetJson,
  };
}

/**
 * Starts both runs (`--time-scale timeScale`, `--least-privilege`: the plugin talks HTTPS with a
 * bearer token, as to a real cluster) and the plugin's PATH folder; resolves once both are ready.
 */
export async function startPluginWorld(timeScale: number): Promise<PluginWorld> {
  const root = mkdtempSync(join(tmpdir(), 'everynode-kubectl-plugin-'));
  const pluginDir = pluginBinIn(root);
  const children = new Set<ChildProcess>();
  const options = { simNodes: 6, timeScale, readyTimeoutMs: 90_000 };
  const started = await Promise.allSettled([
    startEverynodeRun({ ...options, manage: 'everynode.dev/v1' }),
    startEverynodeRun({ ...options, manage: 'apps/v1' }),
  ]);
  const runs = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = started.find((result) => result.status === 'rejected');
  if (failed || runs.length !== 2) {
    await Promise.all(runs.map((run) => run.stop()));
    throw (failed as PromiseRejectedResult | undefined)?.reason ?? new Error('everynode run did not start');
  }
  const [edsRun, appsRun] = runs as [EverynodeRun, EverynodeRun];
  mkdirSync(join(root, 'eds'));
  mkdirSync(join(root, 'apps'));
  return {
    eds: clusterOf('everynode.dev/v1', edsRun, join(root, 'eds'), pluginDir, children),
    apps: clusterOf('apps/v1', appsRun, join(root, 'apps'), pluginDir, children),
    stop: async () => {
      for (const child of children)
        if (child.pid !== undefined && groupAlive(child.pid)) process.kill(-child.pid, 'SIGKILL');
      await Promise.all([edsRun.stop(), appsRun.stop()]);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
