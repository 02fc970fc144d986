/**
 * An API server outage in the middle of a rollout (docs/design.md, 13. Failures: retries, backoff
 * and the DLQ): every request answers 503 for longer than the old bounded backoff (1 + 2 + 4 + 8 s)
 * plus `maxReceiveCount` (2 here) receives lasted, which dead-lettered the work without a reason.
 * Transient failures must instead be sent back through the ingress queue with a growing delay,
 * their records reported processed: the work DLQ stays empty and the rollout completes.
 *
 * The requeue delays are real seconds (SQS DelaySeconds on fauxqs; the simulated cluster's time
 * scale does not reach them), so the outage is 24 s rather than minutes: long enough for a message
 * to fail five times in a row (1, 2, 4, 8, 16 s) and for the old rule to dead-letter it.
 */
import type { V1DaemonSet } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transientBackoffSeconds } from '../../lib/kube/errors/transient-failure.ts';
import type { KubeObject } from '../../lib/sim/storage/store.ts';
import { aDaemonSet, creatableDaemonSet } from '../support/builders.ts';
import { captureFailureRequeues, type FailureRequeue } from '../support/failure-requeues.ts';
import { type PipelineWorld, startPipelineWorld } from '../support/pipeline-harness.ts';

const NODES = 8;
const OUTAGE_MS = 24_000;
const OLD_IMAGE = 'busybox:1.36';
const NEW_IMAGE = 'busybox:1.37';

describe('an API server outage in the middle of a rollout', () => {
  let world: PipelineWorld;
  let requeues: FailureRequeue[];

  beforeAll(async () => {
    world = await startPipelineWorld({
      managedKind: 'apps/v1',
      nodes: NODES,
      maxReceiveCount: 2,
      visibilityTimeoutSeconds: 1,
    });
    requeues = captureFailureRequeues(world.pipeline.queues.sqs, world.pipeline.queues.urls.ingress);
    const ds = aDaemonSet('agent', { image: OLD_IMAGE });
    world.sim.store.create('apps/daemonsets', creatableDaemonSet(ds, 'apps/v1'));
    await world.until('agent runs on every node', () => agentPods().length === NODES, 30_000);
    await world.quiet(30_000);
  }, 60_000);
  afterAll(async () => world?.stop());

  const agentPods = () => world.pods('default').filter((p) => p.owner === 'agent');
  const updated = () => agentPods().filter((p) => p.image === NEW_IMAGE && p.phase === 'Running');

  it('dead-letters nothing and completes the rollout once the API server is back', async () => {
    const stored = world.sim.store.get('apps/daemonsets', 'default', 'agent') as unknown as V1DaemonSet;
    const container = stored.spec?.template.spec?.containers[0];
    if (container) container.image = NEW_IMAGE;
    world.sim.store.update('apps/daemonsets', stored as unknown as KubeObject);
    await world.until('the rollout has replaced some pods', () => updated().length >= 2, 20_000);
    expect(updated().length).toBeLessThan(NODES);

    // Every request fails, watches included, for the whole window.
    world.sim.faults.setErrorRate('*', { status: 503, rate: 1, retryAfterSeconds: 1 });
    const outageStarted = Date.now();
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
    const during = requeues.length;
    world.sim.faults.setErrorRate('*', { status: 503, rate: 0 });
    expect((await world.pipeline.queueDepths()).workDlq).toBe(0);
    expect(during).toBeGreaterThan(0);
    expect(Date.now() - outageStarted).toBeGreaterThanOrEqual(OUTAGE_MS);

    await world.until(
      'every node runs the new revision',
      () => updated().length === NODES && agentPods().length === NODES,
      30_000,
    );
    await world.until('the status counts the rollout done', () => {
      const status = (world.sim.store.get('apps/daemonsets', 'default', 'agent') as unknown as V1DaemonSet)
        .status;
      return status?.updatedNumberScheduled === NODES && status.numberAvailable === NODES;
    });
    const nodes = agentPods()
      .map((p) => p.node)
      .sort();
    expect(new Set(nodes).size).toBe(NODES);
    expect((await world.pipeline.queueDepths()).workDlq).toBe(0);

    // Each requeue after a transient failure waited the backoff of its failures in a row...
    const transient = requeues.filter((r) => r.reason.startsWith('unavailable: '));
    expect(transient.length).toBeGreaterThan(0);
    for (const r of transient)
      expect(
        Math.abs(r.delaySeconds - transientBackoffSeconds(r.failures - 1)),
        JSON.stringify(r),
      ).toBeLessThan(0.5);
    // ... so the delays of each target grew with every failure, past the old limit of four requeues.
    const byTarget = new Map<string, FailureRequeue[]>();
    for (const r of transient) byTarget.set(r.target, [...(byTarget.get(r.target) ?? []), r]);
    for (const [target, list] of byTarget) {
      const delays = [...new Map(list.map((r) => [r.failures, r.delaySeconds])).entries()]
        .sort(([a], [b]) => a - b)
        .map(([, delay]) => delay);
      for (let i = 1; i < delays.length; i++)
        expect(delays[i], `${target}: ${delays.join(', ')}`).toBeGreaterThan(delays[i - 1] ?? 0);
    }
    const longest = Math.max(...transient.map((r) => r.failures));
    expect(longest).toBeGreaterThanOrEqual(5);
  }, 90_000);
});
