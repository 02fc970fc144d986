/**
 * The whole local pipeline end to end, for tests: a simulated cluster, `startLocalPipeline` (relay,
 * bus and journal, router and reconcile handlers over fauxqs), and the real kubectl to drive it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ManagedKind } from '../../lib/kube/managed-kind.ts';
import type { EverynodeFunction } from '../../lib/kube/rbac/function-groups.ts';
import { type LocalPipeline, startLocalPipeline } from '../../lib/local/local-pipeline.ts';
import { type SimCluster, type SimClusterOptions, startSimCluster } from '../../lib/sim/start-sim-cluster.ts';
import { findKubectl } from './kubectl.ts';
import { startSecuredSim } from './secured-sim.ts';

/** A pod as the tests look at it. */
export interface PodView {
  readonly namespace: string;
  readonly name: string;
  /** The controlling DaemonSet's name. */
  readonly owner: string;
  readonly uid: string;
  readonly node: string;
  readonly image: string;
  readonly phase: string;
  readonly deleting: boolean;
}

/** Options of {@link startPipelineWorld}. */
export interface WorldOptions {
  readonly managedKind?: ManagedKind;
  readonly nodes?: SimClusterOptions['nodes'];
  /** Simulated time: 0.1 (default) runs a 30 s grace period in 3 s, pod start and readiness in 0.1 s. */
  readonly timeScale?: number;
  readonly maxReceiveCount?: number;
  readonly visibilityTimeoutSeconds?: number;
  /**
   * Least privilege, as on EKS: the simulator serves HTTPS with static tokens and RBAC, the
   * everynode RBAC manifest of the managed kind is applied, and relay, router and reconcile each
   * call the API as their own user in their own group; kubectl stays the administrator.
   */
  readonly secured?: boolean;
  /** Receives the pipeline's log lines from `logLevel` (default INFO) up; none: it logs nothing. */
  readonly log?: (line: string) => void;
  readonly logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /** Plan DaemonSet steps on kept node LISTs from this many nodes (the process default is thousands). */
  readonly nodeListReuseMinNodes?: number;
  /** Seconds an in-place resize may stay Deferred before its pod is recreated (the default is minutes). */
  readonly resizeDeferredSeconds?: number;
}

/** A running world. */
export interface PipelineWorld {
  readonly sim: SimCluster;
  readonly pipeline: LocalPipeline;
  readonly stateDir: string;
  /** The administrator's kubeconfig (kubectl's). */
  readonly kubeconfigPath: string;
  /** Each function's own kubeconfig, when the world is secured. */
  readonly identities?: Readonly<Record<EverynodeFunction, string>>;
  /** kubectl against the cluster; rejects with its stderr when it fails. */
  kubectl(args: readonly string[], stdin?: string): Promise<string>;
  /** Daemon pods (controlled by a DaemonSet) that are not being deleted, by namespace. */
  pods(namespace?: string): PodView[];
  /** `namespace/ds@node` of every live daemon pod, sorted. */
  placement(): string[];
  /** Resolves when `check()` holds; rejects with `what` after `timeoutMs`. */
  until(what: string, check: () => boolean | Promise<boolean>, timeoutMs?: number): Promise<void>;
  /**
   * Resolves once no work is queued, in flight or delayed on the work queue, and none is visible on
   * the ingress queue; with `delayed`, also once no delayed step (a status window, a requeue, a node
   * recount) waits on the ingress queue.
   */
  quiet(timeoutMs?: number, options?: { readonly delayed?: boolean }): Promise<void>;
  stop(): Promise<void>;
}

/** The kubectl binary, or undefined (the kubectl tests then say so). */
export const kubectlBinary = findKubectl();

function podView(pod: Record<string, unknown>): PodView {
  const meta = pod.metadata as {
    namespace: string;
    name: string;
    uid: string;
    deletionTimestamp?: string;
    ownerReferences?: Array<{ name: string; controller?: boolean }>;
  };
  const spec = pod.spec as { nodeName?: string; containers?: Array<{ image?: string }>; affinity?: unknown };
  const status = (pod.status ?? {}) as { phase?: string };
  const pinned = JSON.stringify(spec.affinity ?? {}).match(
    /"metadata.name","operator":"In","values":\["([^"]+)"/,
  );
  return {
    namespace: meta.namespace,
    name: meta.name,
    owner: meta.ownerReferences?.find((r) => r.controller)?.name ?? '',
    uid: meta.uid,
    node: spec.nodeName ?? pinned?.[1] ?? '',
    image: spec.containers?.[0]?.image ?? '',
    phase: status.phase ?? '',
    deleting: meta.deletionTimestamp !== undefined,
  };
}

/** Resolves when `check()` holds; rejects with `what` after `timeoutMs`. */
export async function waitUntil(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The daemon pods of `sim` as the tests look at them, and their placement. */
export function clusterViews(sim: SimCluster): Pick<PipelineWorld, 'pods' | 'placement'> {
  const ownerKind = (pod: Record<string, unknown>) =>
    (
      (pod.metadata as { ownerReferences?: Array<{ kind: string; controller?: boolean }> }).ownerReferences ??
      []
    ).some((r) => r.controller && r.kind === 'DaemonSet');
  const pods: PipelineWorld['pods'] = (namespace?: string) =>
    sim.store
      .list('pods', namespace ? { namespace } : {})
      .filter((p) => ownerKind(p as Record<string, unknown>))
      .map((p) => podView(p as Record<string, unknown>))
      .filter((p) => !p.deleting);
  const placement = () =>
    pods()
      .map((p) => `${p.namespace}/${p.owner}@${p.node}`)
      .sort();
  return { pods, placement };
}

/** Starts the simulated cluster and the local pipeline (relay included). */
export async function startPipelineWorld(options: WorldOptions = {}): Promise<PipelineWorld> {
  const stateDir = mkdtempSync(join(tmpdir(), 'everynode-e2e-'));
  const kubeconfigPath = join(stateDir, 'kubeconfig');
  const managedKind = options.managedKind ?? 'apps/v1';
  const simOptions = {
    nodes: options.nodes ?? 6,
    kubeconfigPath,
    bookmarkIntervalMs: 1_000,
    timing: { timeScale: options.timeScale ?? 0.1 },
  };
  const secured = options.secured
    ? await startSecuredSim({ ...simOptions, dir: stateDir, managedKind })
    : undefined;
  const sim = secured?.sim ?? (await startSimCluster(simOptions));
  const identities = secured?.identities;
  const pipeline = await startLocalPipeline({
    kubeconfigPath,
    ...(identities ? { identities } : {}),
    managedKind,
    stateDir,
    maxReceiveCount: options.maxReceiveCount ?? 5,
    visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? 2,
    ...(options.nodeListReuseMinNodes !== undefined
      ? { nodeListReuseMinNodes: options.nodeListReuseMinNodes }
      : {}),
    ...(options.resizeDeferredSeconds !== undefined
      ? { resizeDeferredSeconds: options.resizeDeferredSeconds }
      : {}),
    ...(options.log
      ? { log: options.log, logLevel: options.logLevel ?? 'INFO' }
      : { logLevel: 'SILENT' as const }),
  });
  const { pods, placement } = clusterViews(sim);
  const world: PipelineWorld = {
    sim,
    pipeline,
    stateDir,
    kubeconfigPath,
    ...(identities ? { identities } : {}),
    kubectl: (args, stdin) => runKubectl(kubeconfigPath, stateDir, args, stdin),
    pods,
    placement,
    until: waitUntil,
    quiet: async (timeoutMs = 20_000, options = {}) => {
      let quietLooks = 0;
      let last = '';
      await world
        .until(
          'the queues are quiet',
          async () => {
            const d = await pipeline.queueDepths();
            last = JSON.stringify(d);
            const waiting = d.ingress + d.work + (options.delayed ? d.ingressDelayed : 0);
            quietLooks = waiting === 0 ? quietLooks + 1 : 0;
            return quietLooks >= 3;
          },
          timeoutMs,
        )
        .catch((error: unknown) => {
          throw new Error(
            `${String(error)}; queues ${last}, counters ${JSON.stringify(pipeline.counters.snapshot())}`,
          );
        });
    },
    stop: async () => {
      await pipeline.stop();
      await sim.stop();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
  return world;
}

/** Runs kubectl with `kubeconfig` and HOME `home`; rejects with its stderr when it fails. */
export function runKubectl(
  kubeconfig: string,
  home: string,
  args: readonly string[],
  stdin?: string,
): Promise<string> {
  const binary = kubectlBinary;
  if (!binary) return Promise.reject(new Error('no kubectl'));
  return new Promise((resolve, reject) => {
    const child = execFile(
      binary,
      ['--kubeconfig', kubeconfig, ...args],
      { env: { ...process.env, HOME: home, KUBECONFIG: kubeconfig }, timeout: 90_000 },
      (error, stdout, stderr) =>
        error ? reject(new Error(`kubectl ${args.join(' ')}: ${stderr || error.message}`)) : resolve(stdout),
    );
    if (stdin !== undefined) child.stdin?.end(stdin);
  });
}

/**
 * `kubectl patch` of the first container's image of DaemonSet `resource/name` in `namespace`
 * (a JSON patch: `kubectl set image` knows no everynode.dev/v1 DaemonSet).
 */
export function setDaemonSetImage(
  world: Pick<PipelineWorld, 'kubectl'>,
  resource: string,
  namespace: string,
  name: string,
  image: string,
): Promise<string> {
  const patch = [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: image }];
  return world.kubectl([
    'patch',
    resource,
    name,
    '-n',
    namespace,
    '--type=json',
    '-p',
    JSON.stringify(patch),
  ]);
}

/** The names (`event/NAME`) of the Events of `reason` in `namespace`, one per line, as kubectl prints them. */
export function eventNames(
  world: Pick<PipelineWorld, 'kubectl'>,
  namespace: string,
  reason: string,
): Promise<string> {
  return world.kubectl([
    'get',
    'events',
    '-n',
    namespace,
    '--field-selector',
    `reason=${reason}`,
    '-o',
    'name',
  ]);
}
