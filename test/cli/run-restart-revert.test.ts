/**
 * `everynode run` killed with SIGKILL in the middle of a safe rollout's revert, and started again
 * on the same state directory, finishes the revert (docs/design.md, 30. Rollouts that stop
 * themselves): the halt and the stable revision are the API server's, in the DaemonSet's record,
 * so the next run's resync puts the remaining nodes back, and creates no pod of the halted revision.
 *
 * The cluster is an `everynode sim` process of its own, at full time scale, so the revert lasts
 * seconds (a pod starts in one, turns ready in one more) and the kill lands inside it; each process
 * leads its own process group, killed whole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Child, crash, runWorkspace, startSimChild, until } from '../support/everynode-children.ts';
import { kubectlBinary } from '../support/pipeline-harness.ts';

const NODES = 8;
const GOOD = 'busybox:1.36';
const BAD = 'everynode.dev/sim:break-node';

interface Record_ {
  revision?: string;
  phase?: string;
  haltedAt?: string;
  revertedAt?: string;
  stableRevision?: string;
}

interface PodJson {
  metadata: { uid: string; deletionTimestamp?: string };
  spec: { nodeName?: string; containers: Array<{ image: string }> };
  status?: { conditions?: Array<{ type: string; status: string }> };
}

function daemonSet(image: string): string {
  const steps = [{ nodes: 4 }];
  const health = { podReadySeconds: 60, nodeReadySeconds: 5, maxFailedNodes: 0, onFailure: 'Revert' };
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {
      name: 'agent',
      namespace: 'default',
      annotations: {
        'everynode.dev/rollout-steps': JSON.stringify(steps),
        'everynode.dev/rollout-health': JSON.stringify(health),
      },
    },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
      template: {
        metadata: { labels: { app: 'agent' } },
        spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'agent', image }] },
      },
    },
  });
}

describe.skipIf(!kubectlBinary)('everynode run killed with SIGKILL during a revert', () => {
  const workspace = runWorkspace('everynode-revert-');
  const { kubeconfig, kubectl, startRun } = workspace;
  async function record(): Promise<Record_> {
    const ds = JSON.parse(await kubectl(['-n', 'default', 'get', 'ds', 'agent', '-o', 'json'])) as {
      metadata: { annotations?: Record<string, string> };
    };
    const text = ds.metadata.annotations?.['everynode.dev/rollout-status'];
    return text ? (JSON.parse(text) as Record_) : {};
  }
  async function pods(): Promise<PodJson[]> {
    const text = await kubectl(['-n', 'default', 'get', 'pods', '-l', 'app=agent', '-o', 'json']);
    return (JSON.parse(text) as { items: PodJson[] }).items;
  }
  const ready = (p: PodJson) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
  const on = (image: string, list: readonly PodJson[]) =>
    list.filter((p) => p.spec.containers[0]?.image === image);
  /** Every node runs one ready pod of the good image, and no pod of the bad one is left. */
  const allGood = (list: readonly PodJson[]) =>
    on(BAD, list).length === 0 &&
    list.length === NODES &&
    on(GOOD, list).filter((p) => ready(p) && !p.metadata.deletionTimestamp).length === NODES;

  let run: Child | undefined;

  beforeAll(async () => {
    await startSimChild(['--nodes', String(NODES), '--time-scale', '1', '--kubeconfig', kubeconfig]);
    await kubectl(['apply', '-f', '-'], daemonSet(GOOD));
    run = await startRun();
    await until('the good revision completes', async () => (await record()).phase === 'Complete', 60_000);
  }, 90_000);

  afterAll(() => {
    workspace.dispose();
  });

  it('finishes the revert after a restart, creating no pod of the halted revision', async () => {
    const stable = (await record()).revision;
    await kubectl(['-n', 'default', 'set', 'image', 'ds/agent', `agent=${BAD}`]);
    await until('the halted rollout reverts', async () => (await record()).phase === 'Reverting', 60_000);
    await crash(run as Child);
    const midway = await pods();
    const badAtCrash = new Set(on(BAD, midway).map((p) => p.metadata.uid));
    // Killed mid-revert: some node does not run an available pod of the good revision yet.
    expect(allGood(midway), JSON.stringify(midway.map((p) => p.spec.containers[0]?.image))).toBe(false);
    expect((await record()).phase).toBe('Reverting');

    run = await startRun();
    const seenBad = new Set(badAtCrash);
    let last: PodJson[] = [];
    await until(
      'every node runs the good revision again',
      async () => {
        last = await pods();
        for (const p of on(BAD, last)) seenBad.add(p.metadata.uid);
        return allGood(last);
      },
      60_000,
    ).catch((error: unknown) => {
      throw new Error(
        `${String(error)}; pods: ${JSON.stringify(last)}\neverynode run printed:\n${run?.output()}`,
      );
    });
    // The restarted run created no pod of the halted revision: only those alive at the kill existed.
    expect([...seenBad].filter((uid) => !badAtCrash.has(uid))).toEqual([]);
    await until('the record says reverted', async () => (await record()).revertedAt !== undefined, 30_000);
    expect(await record()).toMatchObject({ phase: 'Halted', stableRevision: stable });
    const status = await kubectl([
      '-n',
      'default',
      'get',
      'ds',
      'agent',
      '-o',
      'jsonpath={.status.conditions}',
    ]);
    expect(status).toContain('RolloutHalted');
  }, 150_000);
});
