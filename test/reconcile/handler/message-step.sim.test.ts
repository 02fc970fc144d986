/**
 * One work message to its step (`reconcileMessage`), over the simulated cluster through the real
 * client and the work queue on fauxqs: a message for another managed kind is poison, each kind
 * reaches its own step (told apart by what it leaves in the cluster and on the queue), and a
 * DaemonSet message sent before a completed step of its DaemonSet is skipped unless it is a resync.
 */
import { DeleteMessageBatchCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { V1ControllerRevision, V1DaemonSet } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isControlledBy } from '../../../lib/core/controller-ref.ts';
import { targetNodeName } from '../../../lib/core/daemon-pod.ts';
import type { MessageCause } from '../../../lib/messages/message-cause.ts';
import { parseWorkMessage } from '../../../lib/messages/parse-work-message.ts';
import { PoisonMessageError } from '../../../lib/messages/poison-message-error.ts';
import type { WorkMessage } from '../../../lib/messages/work-message.ts';
import type { ReconcileDeps } from '../../../lib/reconcile/deps/reconcile-deps.ts';
import { emptyReport } from '../../../lib/reconcile/effects/step-report.ts';
import { reconcileMessage } from '../../../lib/reconcile/handler/message-step.ts';
import { COVER_MARGIN_MS } from '../../../lib/reconcile/memory/daemon-set-steps.ts';
import { aDaemonSet, aNode } from '../../support/builders.ts';
import {
  createDaemonSet,
  daemonSetKey,
  daemonSetMessage,
  nodeMessage,
  pairMessage,
  podsOf,
  storedDaemonSet,
} from '../../support/reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from '../../support/reconcile-harness.ts';
import { coldDeps, reconcileRequests, recordingRequeue } from '../../support/reconcile-step-deps.ts';

describe('reconcileMessage', () => {
  let harness: Harness;
  let alpha: V1DaemonSet;
  let beta: V1DaemonSet;

  const uid = (ds: V1DaemonSet) => ds.metadata?.uid ?? '';
  /** The nodes the live pods of `ds` are for, sorted. */
  const placement = (ds: V1DaemonSet) =>
    podsOf(harness, uid(ds))
      .filter((pod) => !pod.metadata?.deletionTimestamp)
      .map((pod) => targetNodeName(pod) ?? '?')
      .sort();
  /** Deps of a process just started, its requeues recorded rather than sent. */
  const fresh = (): ReconcileDeps => coldDeps(harness.deps, { requeue: recordingRequeue().requeue });
  const getsOfDaemonSets = () => reconcileRequests(harness.sim)[`get ${daemonSetKey(harness.managedKind)}`];

  /** Takes `count` messages off the work queue (fauxqs gives one per FIFO group per receive). */
  async function takeWork(count: number): Promise<WorkMessage[]> {
    const taken: WorkMessage[] = [];
    const { sqs, urls } = harness.queues;
    const deadline = Date.now() + 20_000;
    while (taken.length < count && Date.now() < deadline) {
      const received = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: urls.work, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
      );
      const messages = received.Messages ?? [];
      for (const m of messages) {
        const parsed = parseWorkMessage(m.Body ?? '');
        if (parsed.ok) taken.push(parsed.message);
      }
      if (messages.length > 0) {
        await sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: urls.work,
            Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
          }),
        );
      }
    }
    return taken;
  }

  beforeAll(async () => {
    harness = await startReconcileHarness({ nodes: [aNode('n1')], pollWork: false });
    alpha = createDaemonSet(harness, aDaemonSet('alpha', { nodeSelector: { role: 'worker' } }));
    beta = createDaemonSet(harness, aDaemonSet('beta', { nodeSelector: { role: 'worker' } }));
  });
  afterAll(async () => harness?.stop());

  it.each(['pair', 'daemonset', 'node'] as const)(
    'a %s message for another managed kind is poison, rejected before any request',
    async (kind) => {
      const message =
        kind === 'pair'
          ? pairMessage(alpha, 'n1')
          : kind === 'daemonset'
            ? daemonSetMessage(alpha)
            : nodeMessage('n1');
      harness.sim.counters.reset();
      const other = harness.managedKind === 'apps/v1' ? 'everynode.dev/v1' : 'apps/v1';
      await expect(reconcileMessage(fresh(), { ...message, managedKind: other })).rejects.toBeInstanceOf(
        PoisonMessageError,
      );
      expect(reconcileRequests(harness.sim)).toEqual({});
    },
  );

  it('a pair message makes that one pair right', async () => {
    harness.sim.nodes.add('m-pair', { labels: { role: 'worker' } });
    const message = { ...pairMessage(alpha, 'm-pair'), managedKind: harness.managedKind };
    const report = await reconcileMessage(fresh(), message);
    expect(report).toEqual({ ...emptyReport(), created: 1 });
    expect(placement(alpha).filter((node) => node === 'm-pair')).toEqual(['m-pair']);
    // Only the pair named: the other DaemonSet wanted on the node gets nothing from it.
    expect(placement(beta).filter((node) => node === 'm-pair')).toEqual([]);
  });

  it('a node message makes the node right for every DaemonSet', async () => {
    harness.sim.nodes.add('m-node', { labels: { role: 'worker' } });
    const report = await reconcileMessage(fresh(), nodeMessage('m-node'));
    expect(report).toEqual({ ...emptyReport(), created: 2 });
    expect(placement(alpha).filter((node) => node === 'm-node')).toEqual(['m-node']);
    expect(placement(beta).filter((node) => node === 'm-node')).toEqual(['m-node']);
  });

  it('a daemonset message runs the DaemonSet step: revision, status, and the pairs fanned out', async () => {
    harness.sim.nodes.add('f1', { labels: { role: 'fan' } });
    harness.sim.nodes.add('f2', { labels: { role: 'fan' } });
    const fan = createDaemonSet(harness, aDaemonSet('fan', { nodeSelector: { role: 'fan' } }));
    const deps = fresh();
    const report = await reconcileMessage(deps, daemonSetMessage(fan));
    expect(report).toMatchObject({ fannedOut: 2, revisionWrites: 1, statusWrites: 1, created: 0 });
    const revisions = harness.sim.store.list('apps/controllerrevisions') as unknown as V1ControllerRevision[];
    expect(revisions.filter((revision) => isControlledBy(revision, fan))).toHaveLength(1);
    expect(storedDaemonSet(harness, 'default', 'fan')?.status?.desiredNumberScheduled).toBe(2);
    // The step creates no pod itself: it sends the pairs, which do.
    expect(podsOf(harness, uid(fan))).toEqual([]);
    const pairs = await takeWork(2);
    expect(
      pairs.map((m) => (m.kind === 'pair' ? `${m.daemonSet.uid} ${m.node.name}` : m.kind)).sort(),
    ).toEqual([`${uid(fan)} f1`, `${uid(fan)} f2`]);
    for (const pair of pairs) await reconcileMessage(deps, pair);
    expect(placement(fan)).toEqual(['f1', 'f2']);
  });

  describe('a daemonset message sent before a completed step of its DaemonSet', () => {
    const watch: MessageCause = { type: 'watch', event: 'MODIFIED', kind: 'DaemonSet', resourceVersion: '1' };
    const requeue = (): MessageCause => ({
      type: 'requeue',
      reason: 'status refresh',
      requestedAt: new Date().toISOString(),
    });

    /** A DaemonSet wanted nowhere, its first step completed; resolves to when that step's message arrived. */
    async function completedStep(name: string, deps: ReconcileDeps) {
      const ds = createDaemonSet(harness, aDaemonSet(name, { nodeSelector: { role: 'none' } }));
      const receivedAt = Date.now();
      await reconcileMessage(deps, daemonSetMessage(ds), receivedAt);
      return { ds, receivedAt };
    }

    it('is skipped when it is a watch event or a requeue, with no request', async () => {
      const deps = fresh();
      const { ds, receivedAt } = await completedStep('covered', deps);
      const sentAt = receivedAt - COVER_MARGIN_MS - 1;
      for (const cause of [watch, requeue()]) {
        harness.sim.counters.reset();
        const report = await reconcileMessage(deps, { ...daemonSetMessage(ds), cause }, Date.now(), sentAt);
        expect(report).toEqual(emptyReport());
        expect(reconcileRequests(harness.sim)).toEqual({});
      }
    });

    it('runs when it is a resync, when it was sent within the margin, or when its sending time is unknown', async () => {
      const deps = fresh();
      const { ds, receivedAt } = await completedStep('uncovered', deps);
      // Each run completes a later step; the first is the only one the margin is measured against.
      const runs: [MessageCause, number | undefined][] = [
        [watch, receivedAt - COVER_MARGIN_MS],
        [daemonSetMessage(ds).cause, receivedAt - COVER_MARGIN_MS - 1000],
        [requeue(), undefined],
      ];
      for (const [cause, sentAt] of runs) {
        harness.sim.counters.reset();
        await reconcileMessage(deps, { ...daemonSetMessage(ds), cause }, Date.now(), sentAt);
        expect(getsOfDaemonSets()).toBe(1);
      }
    });
  });
});
