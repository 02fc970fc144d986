import type { SQSRecord } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BURST_REPLICAS_ANNOTATION } from '../../../lib/core/extensions.ts';
import { aDaemonSet, aNode } from '../../support/builders.ts';
import { createDaemonSet, daemonSetMessage, podsOf } from '../../support/reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from '../../support/reconcile-harness.ts';
import { drainWorkQueue, lambdaContext } from '../../support/reconcile-queues.ts';

const NODES = Array.from({ length: 24 }, (_, i) => `n${String(i + 1).padStart(2, '0')}`);
const BURST = 4;

const kindOf = (record: SQSRecord) => (JSON.parse(record.body) as { kind: string }).kind;
const nodeOf = (record: SQSRecord) => (JSON.parse(record.body) as { node: { name: string } }).node.name;

/** What a drive of the work queue saw. */
interface Drive {
  /** The most pair messages waiting at once (sent, not yet acted on). */
  mostWaiting: number;
  /** Every node a pair message named. */
  nodes: Set<string>;
  /** DaemonSet steps run. */
  daemonSetSteps: number;
}

/**
 * Takes every message off the work queue and hands it to the handler, ten at a time, until `done`
 * holds of what it saw or `ms` pass; DaemonSet messages beyond the first `daemonSetSteps` (the burst
 * continuations) are dropped unrun.
 */
async function drive(
  harness: Harness,
  until: { done: (seen: Drive) => boolean; ms: number; daemonSetSteps: number },
): Promise<Drive> {
  const seen: Drive = { mostWaiting: 0, nodes: new Set(), daemonSetSteps: 0 };
  const deadline = Date.now() + until.ms;
  while (Date.now() < deadline && !until.done(seen)) {
    const records = await drainWorkQueue(harness.queues);
    const pairs = records.filter((r) => kindOf(r) === 'pair');
    const steps = records
      .filter((r) => kindOf(r) === 'daemonset')
      .slice(0, Math.max(0, until.daemonSetSteps - seen.daemonSetSteps));
    seen.mostWaiting = Math.max(seen.mostWaiting, pairs.length);
    for (const pair of pairs) seen.nodes.add(nodeOf(pair));
    const run = [...steps, ...pairs];
    seen.daemonSetSteps += steps.length;
    for (let i = 0; i < run.length; i += 10)
      await harness.handler({ Records: run.slice(i, i + 10) }, lambdaContext());
    if (records.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return seen;
}

describe('fan-out under the burst cap', () => {
  let harness: Harness;
  beforeEach(async () => {
    harness = await startReconcileHarness({ nodes: NODES.map((name) => aNode(name)), pollWork: false });
  });
  afterEach(async () => harness?.stop());

  const startDaemonSet = async (name: string) => {
    const ds = createDaemonSet(
      harness,
      aDaemonSet(name, { annotations: { [BURST_REPLICAS_ANNOTATION]: String(BURST) } }),
    );
    await harness.send(daemonSetMessage(ds));
    const uid = ds.metadata?.uid ?? '';
    return { uid, pods: () => podsOf(harness, uid).length };
  };

  it('sends what the cap held back as the fanned-out pairs are acted on, with no second DaemonSet step', async () => {
    const { pods } = await startDaemonSet('flow');
    const seen = await drive(harness, { done: () => pods() === NODES.length, ms: 20_000, daemonSetSteps: 1 });
    expect(pods()).toBe(NODES.length);
    expect(seen.nodes.size).toBe(NODES.length);
    expect(seen.mostWaiting).toBeLessThanOrEqual(BURST);
    expect(seen.daemonSetSteps).toBe(1);
  });

  it('keeps at most burstReplicas pairs outstanding across DaemonSet steps while every create fails', async () => {
    const { pods } = await startDaemonSet('failing');
    // The first step writes the ControllerRevision (a create) and fans out the first pairs.
    await harness.invokeOnce();
    harness.sim.faults.setErrorRate('create', { status: 500, rate: 1 });
    const failing = await drive(harness, {
      done: (seen) => seen.daemonSetSteps >= 2,
      ms: 10_000,
      daemonSetSteps: Number.POSITIVE_INFINITY,
    });
    expect(failing.daemonSetSteps).toBeGreaterThanOrEqual(2);
    expect(pods()).toBe(0);
    expect(failing.nodes.size).toBeLessThanOrEqual(BURST);
    expect(failing.mostWaiting).toBeLessThanOrEqual(BURST);
    harness.sim.faults.reset();
    await drive(harness, {
      done: () => pods() === NODES.length,
      ms: 30_000,
      daemonSetSteps: Number.POSITIVE_INFINITY,
    });
    expect(pods()).toBe(NODES.length);
  });
});
