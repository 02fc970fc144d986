/**
 * `everynode run` killed with SIGKILL during a rolling update with `minReadySeconds`, and started
 * again on the same state directory, finishes the rollout (docs/design.md, 28. What a restart can
 * lose). The rollout's pending re-checks — DaemonSet steps delayed until a new pod's
 * minReadySeconds have passed — were delayed messages of the embedded ingress queue and died with
 * the process; the relay of the next run resumes from its checkpoint, and no watch event is left
 * to bring the step back. The start-up resync is what does.
 *
 * The cluster is an `everynode sim` process of its own (the embedded one of `--sim-nodes` dies
 * with the run), and each `everynode run` leads its own process group, killed whole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Child, crash, runWorkspace, startSimChild, until } from '../support/everynode-children.ts';
import { kubectlBinary } from '../support/pipeline-harness.ts';

const NODES = 10;
const MIN_READY_SECONDS = 2;
const MAX_UNAVAILABLE = 5;
/** The simulated cluster's time scale: pods start and turn ready in 0.1 s each. */
const TIME_SCALE = 0.1;
/**
 * What one rollout takes without a restart: each wave of `MAX_UNAVAILABLE` nodes waits out its new
 * pods' minReadySeconds, plus about a second for the deletes, creates, starts and status steps.
 */
const WAVES = Math.ceil(NODES / MAX_UNAVAILABLE);
const ROLLOUT_MS = WAVES * (MIN_READY_SECONDS + 1) * 1000;
/** What a restart may add on a loaded machine: the process start, the relay's LIST, the resync. */
const RESTART_SLACK_MS = 8_000;
const SEED = 20_250_601;

/** A seeded PRNG (mulberry32): the kill points repeat from run to run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function daemonSet(image: string): string {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent', namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      minReadySeconds: MIN_READY_SECONDS,
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: MAX_UNAVAILABLE } },
      template: {
        metadata: { labels: { app: 'agent' } },
        spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'agent', image }] },
      },
    },
  });
}

interface RolloutView {
  readonly done: boolean;
  readonly summary: string;
}

describe.skipIf(!kubectlBinary)('everynode run killed with SIGKILL during a rolling update', () => {
  const workspace = runWorkspace('everynode-restart-');
  const { kubeconfig, kubectl, startRun } = workspace;

  /** Whether every pod runs `image`, ready and available, and the status says so. */
  async function rollout(image: string): Promise<RolloutView> {
    const [dsText, podsText] = await Promise.all([
      kubectl(['-n', 'default', 'get', 'ds', 'agent', '-o', 'json']),
      kubectl(['-n', 'default', 'get', 'pods', '-l', 'app=agent', '-o', 'json']),
    ]);
    const ds = JSON.parse(dsText) as {
      metadata: { generation: number };
      status?: Record<string, number | undefined>;
    };
    const pods = (
      JSON.parse(podsText) as {
        items: Array<{
          metadata: { deletionTimestamp?: string };
          spec: { containers: Array<{ image: string }> };
          status?: { conditions?: Array<{ type: string; status: string }> };
        }>;
      }
    ).items.filter((p) => p.metadata.deletionTimestamp === undefined);
    const s = ds.status ?? {};
    const updatedReady = pods.filter(
      (p) =>
        p.spec.containers[0]?.image === image &&
        p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
    ).length;
    const desired = s.desiredNumberScheduled ?? -1;
    const done =
      desired === NODES &&
      s.observedGeneration === ds.metadata.generation &&
      s.updatedNumberScheduled === desired &&
      s.numberAvailable === desired &&
      s.numberReady === desired &&
      pods.length === desired &&
      updatedReady === desired;
    const summary =
      `generation ${ds.metadata.generation}, status ${JSON.stringify(s)}, ` +
      `${pods.length} pods, ${updatedReady} of them ready on ${image}`;
    return { done, summary };
  }

  async function untilRolledOut(image: string, timeoutMs: number): Promise<void> {
    let last = '';
    await until(
      `the rollout to ${image} is complete`,
      async () => {
        const view = await rollout(image);
        last = view.summary;
        return view.done;
      },
      timeoutMs,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}; last seen: ${last}`);
    });
  }

  let run: Child | undefined;

  beforeAll(async () => {
    await startSimChild([
      '--nodes',
      String(NODES),
      '--time-scale',
      String(TIME_SCALE),
      '--kubeconfig',
      kubeconfig,
    ]);
    await kubectl(['apply', '-f', '-'], daemonSet('busybox:1.36'));
    run = await startRun();
    await untilRolledOut('busybox:1.36', ROLLOUT_MS + RESTART_SLACK_MS + 5_000);
  }, 60_000);

  afterAll(() => {
    // The whole process tree of everything started, whatever the test left running.
    workspace.dispose();
  });

  it('finishes the rollout after a restart on the same state directory, at three seeded kill points', async () => {
    const random = seeded(SEED);
    for (const [round, image] of ['busybox:1.37', 'busybox:1.38', 'busybox:1.39'].entries()) {
      await kubectl(['-n', 'default', 'set', 'image', 'ds/agent', `agent=${image}`]);
      // Somewhere inside the rollout, most of which is spent waiting out minReadySeconds.
      const killAfterMs = Math.round(500 + random() * (ROLLOUT_MS - 2_000));
      await new Promise((resolve) => setTimeout(resolve, killAfterMs));
      await crash(run as Child);
      const midway = await rollout(image);
      run = await startRun();
      try {
        await untilRolledOut(image, ROLLOUT_MS + RESTART_SLACK_MS);
      } catch (error) {
        throw new Error(
          `round ${round + 1}, killed ${killAfterMs} ms into the rollout (${midway.summary}): ` +
            `${String(error)}\neverynode run printed:\n${run.output()}`,
        );
      }
    }
    expect((await rollout('busybox:1.39')).done).toBe(true);
    // About 50 s on a loaded 2-core machine, most of it the four process starts; the cap is for worse.
  }, 120_000);
});
