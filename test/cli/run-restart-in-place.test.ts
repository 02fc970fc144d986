/**
 * `everynode run` killed with SIGKILL in the middle of an in-place image rollout, and started
 * again on the same state directory, finishes the rollout in place (docs/design.md, 31. In-place
 * updates; 28. What a restart can lose): the pods already patched carry the new revision's label and
 * their pending state in their annotations, the others the old label, so the next run's resync
 * patches the rest — no pod is created or deleted, each node keeps its one pod and its UID. Then a
 * replay of the whole journal into the converged cluster (`everynode replay`) writes nothing: every
 * decision is read from the API server, which shows nothing left to do.
 *
 * The cluster runs in this process (its request counters count every write of `everynode run`, by
 * User-Agent), at full time scale, so a container restart takes seconds and the kill lands inside
 * the rollout; `everynode run` is a child process leading its own process group, killed whole.
 */
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReplayCommand } from '../../lib/cli/replay-command.ts';
import { type SimCluster, startSimCluster } from '../../lib/sim/start-sim-cluster.ts';
import { aDaemonSet, creatableDaemonSet } from '../support/builders.ts';
import { type Child, crash, runWorkspace, until } from '../support/everynode-children.ts';
import { kubectlBinary } from '../support/pipeline-harness.ts';

const NODES = 8;
const OLD = 'busybox:1.36';
const NEW = 'busybox:1.37';
/** How long the replayed triggers are given to be worked off: a few status windows (2 s each). */
const REPLAY_SETTLE_MS = 8_000;
const WRITE_VERBS = ['create', 'update', 'patch', 'delete', 'deletecollection'];
/** The User-Agents of everynode's components (`everynode/reconcile`, `everynode/relay`, …). */
const EVERYNODE = /^everynode\//;

/** The DaemonSet `agent` running `image`, updated in place, two nodes at a time. */
function daemonSet(image: string): string {
  const ds = aDaemonSet('agent', {
    image,
    annotations: { 'everynode.dev/in-place': 'IfPossible' },
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } },
    podSpec: { terminationGracePeriodSeconds: 1 },
  });
  return JSON.stringify(creatableDaemonSet(ds, 'apps/v1'));
}

describe.skipIf(!kubectlBinary)('everynode run killed with SIGKILL during an in-place rollout', () => {
  const workspace = runWorkspace('everynode-in-place-');
  const { kubeconfig, kubectl, startRun } = workspace;
  const stateDir = join(workspace.dir, 'state');
  let sim: SimCluster;
  let run: Child | undefined;

  const agents = (): V1Pod[] =>
    sim.store
      .list('pods', { namespace: 'default', labelSelector: 'app=agent' })
      .map((p) => p as unknown as V1Pod);
  const live = () => agents().filter((p) => p.metadata?.deletionTimestamp === undefined);
  const ready = (p: V1Pod) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
  const runs = (p: V1Pod, image: string) =>
    p.spec?.containers[0]?.image === image && (p.status?.containerStatuses?.[0]?.image ?? '').endsWith(image);
  /** Every node runs exactly one ready pod of `image`, and no other pod is left. */
  function convergedOn(image: string): boolean {
    const pods = agents();
    const nodes = new Set(pods.map((p) => p.spec?.nodeName));
    return pods.length === NODES && nodes.size === NODES && pods.every((p) => ready(p) && runs(p, image));
  }
  const writes = () =>
    WRITE_VERBS.reduce((sum, verb) => sum + sim.counters.total({ verb, userAgent: EVERYNODE }), 0);
  const reads = () => sim.counters.total({ verb: 'list', userAgent: EVERYNODE });

  beforeAll(async () => {
    sim = await startSimCluster({ nodes: NODES, kubeconfigPath: kubeconfig, timing: { timeScale: 1 } });
    const nodes = JSON.parse(await kubectl(['get', 'nodes', '-o', 'json'])) as { items: unknown[] };
    expect(nodes.items).toHaveLength(NODES);
    await kubectl(['apply', '-f', '-'], daemonSet(OLD));
    run = await startRun();
    await until(`every node runs ${OLD}`, () => convergedOn(OLD), 60_000);
  }, 90_000);

  afterAll(async () => {
    workspace.dispose();
    await sim?.stop();
  });

  it('finishes the rollout in place after a restart, and a replay then writes nothing', async () => {
    const before = new Map(live().map((p) => [p.spec?.nodeName, p.metadata?.uid]));
    const seen = new Set<string>();
    const stop = sim.store.subscribe((event) => {
      const pod = event.object as unknown as V1Pod;
      if (event.key === 'pods' && pod.metadata?.labels?.app === 'agent') seen.add(pod.metadata?.uid ?? '');
    });
    await kubectl(['-n', 'default', 'set', 'image', 'ds/agent', `main=${NEW}`]);
    const patched = () => live().filter((p) => p.spec?.containers[0]?.image === NEW).length;
    await until('the rollout patched its first pods', () => patched() > 0, 30_000);
    await crash(run as Child);
    // Killed mid-rollout: some pods patched, others still of the old image.
    const atCrash = patched();
    expect(atCrash).toBeGreaterThan(0);
    expect(atCrash).toBeLessThan(NODES);

    run = await startRun();
    await until(`every node runs ${NEW}`, () => convergedOn(NEW), 90_000).catch((error: unknown) => {
      throw new Error(`${String(error)}\neverynode run printed:\n${run?.output()}`);
    });
    stop();
    // No pod created or deleted: each node keeps the pod it had, updated in place.
    expect(new Map(live().map((p) => [p.spec?.nodeName, p.metadata?.uid]))).toEqual(before);
    expect([...seen].sort()).toEqual([...before.values()].sort());
    for (const pod of live()) expect(pod.status?.containerStatuses?.[0]?.restartCount).toBe(1);

    // The status says so, and nothing is written any more.
    await until(
      'the status counts every pod updated and available',
      async () => {
        const status = JSON.parse(
          await kubectl(['-n', 'default', 'get', 'ds', 'agent', '-o', 'jsonpath={.status}']),
        ) as { updatedNumberScheduled?: number; numberAvailable?: number };
        return status.updatedNumberScheduled === NODES && status.numberAvailable === NODES;
      },
      30_000,
    );
    await quiet(writes);
    const writesBefore = writes();
    const readsBefore = reads();
    const replay = { text: '' };
    const io = {
      stdout: (t: string) => (replay.text += t),
      stderr: (t: string) => (replay.text += t),
      isTTY: false,
      env: {},
    };
    const journal = join(stateDir, 'journal.jsonl');
    expect(await runReplayCommand(['--journal', journal, '--state-dir', stateDir], io)).toBe(0);
    const replayed = Number(/re-injected (\d+) trigger/.exec(replay.text)?.[1] ?? 0);
    expect(replayed).toBeGreaterThan(NODES);
    // The replayed triggers were worked off (their steps read the cluster), and wrote nothing.
    await until('the replayed triggers are worked off', () => reads() > readsBefore, 30_000);
    // Each replayed trigger is worked off within a status window or two of the last one's arrival.
    await new Promise((resolve) => setTimeout(resolve, REPLAY_SETTLE_MS));
    expect(writes()).toBe(writesBefore);
    expect(new Map(live().map((p) => [p.spec?.nodeName, p.metadata?.uid]))).toEqual(before);
  }, 240_000);
});

/** Resolves once `count()` has not changed for 3 seconds (at most a minute). */
async function quiet(count: () => number): Promise<void> {
  let last = count();
  let since = Date.now();
  await until(
    'the counts settle',
    () => {
      const now = count();
      if (now !== last) [last, since] = [now, Date.now()];
      return Date.now() - since >= 3_000;
    },
    60_000,
  );
}
