/**
 * Helpers of the tests that call one reconcile step directly with a harness's deps: the memory of a
 * process that has just started (so a test does not depend on what an earlier one left cached), a
 * requeue port that records what it is asked to send, and the reconcile side's API requests as the
 * simulated cluster counted them.
 */
import type { CoreV1Event, V1ControllerRevision } from '@kubernetes/client-node';
import type { SQSRecord } from 'aws-lambda';
import { controllerOf } from '../../lib/core/controller-ref.ts';
import type { PairMessage, WorkMessage } from '../../lib/messages/work-message.ts';
import type { RequeueSender } from '../../lib/queue/work-senders.ts';
import type { ReconcileDeps, ReconcilePorts } from '../../lib/reconcile/deps/reconcile-deps.ts';
import { DaemonSetSteps } from '../../lib/reconcile/memory/daemon-set-steps.ts';
import { Expectations } from '../../lib/reconcile/memory/expectations.ts';
import { FanOutFeeds } from '../../lib/reconcile/memory/fan-out-feed.ts';
import { KeptNodeLists } from '../../lib/reconcile/memory/kept-node-lists.ts';
import { KeptPodLists } from '../../lib/reconcile/memory/kept-pod-lists.ts';
import { KeptRevisions } from '../../lib/reconcile/memory/kept-revisions.ts';
import { ObjectCache } from '../../lib/reconcile/memory/object-cache.ts';
import { SharedRead } from '../../lib/reconcile/memory/shared-read.ts';
import { RECONCILE_USER_AGENT } from '../../lib/reconcile/setup/deps-for-config.ts';
import type { SimCluster } from '../../lib/sim/start-sim-cluster.ts';
import { aNode } from './builders.ts';
import { type Harness, startReconcileHarness } from './reconcile-harness.ts';

/**
 * `deps` as a process that has just started has them: every memory new (the event recorder kept,
 * so the harness's flush still writes its Events), the ports of `ports` in place of `deps`'s.
 */
export function coldDeps(deps: ReconcileDeps, ports: Partial<ReconcilePorts> = {}): ReconcileDeps {
  return {
    ...deps,
    ports: { ...deps.ports, ...ports },
    memory: {
      ...deps.memory,
      objects: new ObjectCache(),
      expectations: new Expectations(),
      fanOutFeeds: new FanOutFeeds(),
      sharedNodeList: new SharedRead(),
      daemonSetSteps: new DaemonSetSteps(1),
      keptNodes: new KeptNodeLists(),
      keptPods: new KeptPodLists(),
      keptRevisions: new KeptRevisions(),
    },
  };
}

/** A requeue the recording port was asked to send. */
export interface Requeued {
  readonly message: WorkMessage;
  readonly afterSeconds: number;
  readonly deduplicationId?: string;
}

/** A requeue port that only records (a queue port: it stands for the ingress queue, not Kubernetes). */
export function recordingRequeue(): { readonly requeue: RequeueSender; readonly sent: Requeued[] } {
  const sent: Requeued[] = [];
  return {
    sent,
    requeue: {
      async requeue(message, afterSeconds, deduplicationId) {
        sent.push({ message, afterSeconds, ...(deduplicationId ? { deduplicationId } : {}) });
      },
    },
  };
}

/**
 * The reconcile side's API requests counted since the counters were last reset, as
 * `verb resource[/subresource]` → count; Events are left out (they are written when their linger
 * ends, possibly during a later test).
 */
export function reconcileRequests(sim: SimCluster): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const entry of sim.counters.snapshot()) {
    if (entry.userAgent !== RECONCILE_USER_AGENT || entry.resource === 'events') continue;
    const key = `${entry.verb} ${entry.resource}${entry.subresource ? `/${entry.subresource}` : ''}`;
    counts[key] = (counts[key] ?? 0) + entry.count;
  }
  return counts;
}

/** The writes among `requests` (creates, updates, patches, deletes). */
export function writesAmong(requests: Readonly<Record<string, number>>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(requests).filter(([key]) => /^(create|update|patch|delete)/.test(key)),
  );
}

/**
 * A harness of one node `n1`, its queue not polled (the test runs the steps), with pod garbage
 * collection out of the way: the pods of a removed node stay until a step deletes them.
 */
export function startStepHarness(): Promise<Harness> {
  return startReconcileHarness({
    nodes: [aNode('n1')],
    pollWork: false,
    timing: { podGcQuarantineSeconds: 100_000 },
  });
}

/** The pair messages among `records` (taken off the work queue) for DaemonSet `name`, with their records. */
export function pairMessagesFor(records: readonly SQSRecord[], name: string) {
  return records
    .map((record) => ({ record, message: JSON.parse(record.body) as PairMessage }))
    .filter(({ message }) => message.kind === 'pair' && message.daemonSet.name === name);
}

/** The ControllerRevisions the object of `uid` controls, from the harness's store. */
export function revisionsOf(harness: Harness, uid: string): V1ControllerRevision[] {
  return (harness.sim.store.list('apps/controllerrevisions') as unknown as V1ControllerRevision[]).filter(
    (r) => controllerOf(r)?.uid === uid,
  );
}

/** The Events of reason `reason` about the object `name`, once the harness's recorder has flushed. */
export async function recordedEvents(harness: Harness, name: string, reason: string): Promise<CoreV1Event[]> {
  await harness.deps.memory.events.flush();
  return (harness.sim.store.list('events') as unknown as CoreV1Event[]).filter(
    (event) => event.involvedObject.name === name && event.reason === reason,
  );
}
