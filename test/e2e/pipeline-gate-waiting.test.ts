/**
 * A node that bootstraps behind its gate taint longer than the grace is shown waiting
 * (docs/design.md, 26. Node readiness gates), through the whole local pipeline under least
 * privilege, with kubectl as the user's client: its gating pod crash-loops and no event comes after
 * the join, so only the relay's gate-wait timer runs its node step when the grace (the real 10 s)
 * ends; a node released within the grace never shows False.
 */
import type { V1NodeCondition, V1Taint } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WAITING_SHOWN_AFTER_SECONDS } from '../../lib/core/node-gates/gate-condition.ts';
import { type GateTimeline, taintText, watchGates } from '../support/gate-timeline.ts';
import { kubectlBinary, type PipelineWorld, startPipelineWorld } from '../support/pipeline-harness.ts';

const NAMESPACE = 'waiting';
const POOL = 'waiting.example/pool';
const DEFAULT_KEY = 'everynode.dev/not-ready';
const SEC_KEY = 'example.com/sec-not-ready';
const CONDITION = 'everynode.dev/DaemonSetsReady';

/** A BootstrapOnly gating everynode.dev/v1 DaemonSet on the nodes of `pool`, without a timeout. */
function gatingDaemonSet(name: string, pool: string, taintKey: string, image: string) {
  return {
    apiVersion: 'everynode.dev/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace: NAMESPACE },
    spec: {
      selector: { matchLabels: { app: name } },
      nodeReadiness: { mode: 'BootstrapOnly', taintKey },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          nodeSelector: { [POOL]: pool },
          terminationGracePeriodSeconds: 1,
          containers: [{ name, image }],
        },
      },
    },
  };
}

/** A node registering with the NoSchedule taint `key`, in `pool`. */
function joiningNode(name: string, pool: string, key: string) {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: { 'kubernetes.io/os': 'linux', 'kubernetes.io/hostname': name, [POOL]: pool },
    },
    spec: { taints: [{ key, effect: 'NoSchedule' }] },
  };
}

describe.runIf(kubectlBinary)('a node waiting on its gate past the grace, through the local pipeline', () => {
  let world: PipelineWorld;
  let timeline: GateTimeline;

  const apply = (object: unknown) => world.kubectl(['apply', '-f', '-'], JSON.stringify(object));
  /** The node's condition as `kubectl get node -o jsonpath` prints it; undefined when it has none. */
  const conditionOf = async (name: string) => {
    const path = `jsonpath={.status.conditions[?(@.type=="${CONDITION}")]}`;
    const text = (await world.kubectl(['get', 'node', name, '-o', path])).trim();
    return text === '' ? undefined : (JSON.parse(text) as V1NodeCondition);
  };
  const taintsOf = async (name: string) => {
    const text = await world.kubectl(['get', 'node', name, '-o', 'jsonpath={.spec.taints}']);
    return text.trim() === '' ? [] : (JSON.parse(text) as V1Taint[]).map(taintText);
  };

  beforeAll(async () => {
    world = await startPipelineWorld({ managedKind: 'everynode.dev/v1', secured: true, nodes: 1 });
    timeline = watchGates(world.sim);
    await world.kubectl(['create', 'namespace', NAMESPACE]);
    await Promise.all([
      apply(gatingDaemonSet('sec', 'crash', SEC_KEY, 'everynode.dev/sim:crashloop')),
      apply(gatingDaemonSet('agent', 'fast', DEFAULT_KEY, 'busybox:1.36')),
    ]);
    await world.quiet();
  }, 60_000);
  afterAll(async () => {
    timeline?.stop();
    await world?.stop();
  });

  it('shows a node whose gating pod crash-loops False once the grace ends, and a node released in time only True', async () => {
    await Promise.all([
      apply(joiningNode('crash-1', 'crash', SEC_KEY)),
      apply(joiningNode('fast-1', 'fast', DEFAULT_KEY)),
    ]);
    const joinedAt = timeline.joinedAt('crash-1') ?? Number.NaN;
    await world.until(
      'fast-1 is released',
      async () => (await conditionOf('fast-1'))?.status === 'True',
      WAITING_SHOWN_AFTER_SECONDS * 1000,
    );
    await world.until(
      'crash-1 shows its condition',
      async () => (await conditionOf('crash-1')) !== undefined,
      WAITING_SHOWN_AFTER_SECONDS * 1000 + 5_000,
    );

    const condition = await conditionOf('crash-1');
    expect(condition).toMatchObject({ status: 'False', reason: 'WaitingForDaemonSets' });
    expect(condition?.message).toBe(`waiting for an available pod of ${NAMESPACE}/sec (${SEC_KEY})`);
    const described = await world.kubectl(['describe', 'node', 'crash-1']);
    expect(described).toMatch(new RegExp(`${CONDITION}\\s+False\\s.*WaitingForDaemonSets`));
    expect(await taintsOf('crash-1')).toEqual([`${SEC_KEY}:NoSchedule`]);
    const [shown, ...later] = timeline.conditionChanges('crash-1');
    expect(later).toEqual([]);
    // Not before the grace (counted from creationTimestamp, whole seconds: up to 1 s before the join).
    const waited = (shown?.at ?? Number.NaN) - joinedAt;
    console.log(`gate-waiting: crash-looping gating pod, node created → shown False ${waited} ms`);
    expect(waited).toBeGreaterThanOrEqual(WAITING_SHOWN_AFTER_SECONDS * 1000 - 1_000);
    expect(waited).toBeLessThan(WAITING_SHOWN_AFTER_SECONDS * 1000 + 5_000);
    const sec = timeline.podsOn('crash-1').find((p) => p.owner === 'sec');
    expect(sec?.readyAt).toEqual([]);

    expect(await taintsOf('fast-1')).toEqual([]);
    expect(timeline.conditionChanges('fast-1').map((c) => c.status)).toEqual(['True']);
  }, 40_000);
});
