/**
 * A delete that follows from a node's facts is decided on the node's current version, and replays
 * and redeliveries never plan from the facts they carry (docs/design.md, 9. Hints, and why a stale
 * hint is safe).
 */
import { randomUUID } from 'node:crypto';
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { targetNodeName } from '../../lib/core/daemon-pod.ts';
import type { MessageCause } from '../../lib/messages/message-cause.ts';
import { messageGroupId } from '../../lib/messages/message-group-id.ts';
import { nodeHintOf } from '../../lib/messages/pair-hints.ts';
import {
  formatWorkMessage,
  type NodeMessage,
  type PairMessage,
  type WorkMessage,
} from '../../lib/messages/work-message.ts';
import { parseRecord, planBatch, reconcileRecord } from '../../lib/reconcile/handler/work-record.ts';
import { reconcileNode } from '../../lib/reconcile/node-step/node-step.ts';
import { reconcilePair } from '../../lib/reconcile/pair-step/pair-step.ts';
import type { RelayNodeContext } from '../../lib/relay/cluster-view/node-context.ts';
import { aDaemonSet, aNode } from '../support/builders.ts';
import {
  allReady,
  createDaemonSet,
  daemonSetMessage,
  isReady,
  nodeMessage,
  pairMessage,
  placementOf,
  podsOf,
  waitFor,
} from '../support/reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from '../support/reconcile-harness.ts';
import { relayContextOf } from '../support/relay-context.ts';

let harness: Harness;
let agent: ReturnType<typeof createDaemonSet>;
let ssd: ReturnType<typeof createDaemonSet>;
const uid = (ds: typeof agent) => ds.metadata?.uid ?? '';

/** What the relay knows when it has just listed the cluster as it is. */
function relayContext(): RelayNodeContext {
  return relayContextOf(harness);
}

/**
 * Node `name` as it was one version ago, `edit`ed: what a trigger recorded before the node changed
 * back carries (the simulated taint manager would evict at once a pod whose node really got the
 * NoExecute taint, so the former node is made up rather than lived through).
 */
function formerly(name: string, edit: (node: V1Node) => void): V1Node {
  const node = structuredClone(harness.sim.nodes.get(name) as V1Node);
  edit(node);
  node.metadata = { ...node.metadata, resourceVersion: String(Number(node.metadata?.resourceVersion) - 1) };
  return node;
}

const tainted = (node: V1Node) => {
  node.spec = { ...node.spec, taints: [{ key: 'x', value: 'y', effect: 'NoExecute' }] };
};
const notSsd = (node: V1Node) => {
  const { disk: _, ...labels } = node.metadata?.labels ?? {};
  node.metadata = { ...node.metadata, labels };
};

/** The node message of `node` with the relay's hints, as if `node` were the node's state. */
function hintedNode(node: V1Node, cause?: MessageCause): NodeMessage {
  const name = node.metadata?.name ?? '';
  const hints = relayContext().hintsFor(node, new Date());
  if (hints === undefined) throw new Error('no hints');
  return { ...(nodeMessage(name) as NodeMessage), ...(cause ? { cause } : {}), hints };
}

/** The pair message of `ds` on `node` with the relay's hints of its pod, the node hinted as `node`. */
function hintedPair(ds: typeof agent, node: V1Node, cause?: MessageCause): PairMessage {
  const name = node.metadata?.name ?? '';
  const [pod] = onNode(ds, name);
  const hints = relayContext().pairHintsFor(pod as V1Pod, new Date());
  if (hints === undefined) throw new Error('no hints');
  const message = pairMessage(ds, name) as PairMessage;
  return { ...message, ...(cause ? { cause } : {}), hints: { ...hints, node: nodeHintOf(node) } };
}

/** Runs `work` in this process and returns the API requests it made, by verb and resource. */
async function requestsOf(work: () => Promise<unknown>): Promise<Record<string, number>> {
  harness.sim.counters.reset();
  await work();
  await harness.deps.memory.events.flush();
  const counts: Record<string, number> = {};
  for (const entry of harness.sim.counters.snapshot()) {
    const key = `${entry.verb} ${entry.resource}`;
    counts[key] = (counts[key] ?? 0) + entry.count;
  }
  return counts;
}

const onNode = (ds: typeof agent, node: string) =>
  podsOf(harness, uid(ds)).filter((pod) => targetNodeName(pod) === node && !pod.metadata?.deletionTimestamp);
const uidsOn = (node: string) =>
  [...onNode(agent, node), ...onNode(ssd, node)].map((pod) => pod.metadata?.uid).sort();

beforeAll(async () => {
  harness = await startReconcileHarness({
    nodes: [aNode('n1'), aNode('n2', { labels: { disk: 'ssd' } })],
    pollWork: false,
  });
  agent = createDaemonSet(harness, aDaemonSet('agent'));
  ssd = createDaemonSet(harness, aDaemonSet('ssd', { nodeSelector: { disk: 'ssd' } }));
  await harness.send(daemonSetMessage(agent), daemonSetMessage(ssd));
  while ((await harness.invokeOnce(1)).event.Records.length > 0);
  await waitFor(
    'initial placement',
    () =>
      placementOf(harness, uid(agent)).join() === 'n1,n2' && placementOf(harness, uid(ssd)).join() === 'n2',
  );
  await waitFor('the pods ready', () => allReady(harness, uid(agent)) && allReady(harness, uid(ssd)));
});
afterAll(async () => harness?.stop());

beforeEach(async () => {
  // A warm process: the DaemonSets and their revision hashes are known from an earlier step.
  await reconcileNode(harness.deps, nodeMessage('n1') as NodeMessage, reconcilePair);
});

describe('a delete because of the node is decided on its current version', () => {
  it.each([
    { name: 'node step: a NoExecute taint lifted since', step: 'node', node: 'n2', edit: tainted },
    { name: 'node step: the disk=ssd label put back since', step: 'node', node: 'n2', edit: notSsd },
    { name: 'pair step: a NoExecute taint lifted since', step: 'pair', node: 'n1', edit: tainted },
    { name: 'pair step: the disk=ssd label put back since', step: 'pair', node: 'n2', edit: notSsd },
  ] as const)(
    '$name: hints of the node as it was delete nothing, after one GET of the node',
    async ({ step, node, edit }) => {
      const before = uidsOn(node);
      const former = formerly(node, edit);
      const requests = await requestsOf(() =>
        step === 'node'
          ? reconcileNode(harness.deps, hintedNode(former), reconcilePair)
          : reconcilePair(harness.deps, hintedPair(edit === notSsd ? ssd : agent, former)),
      );
      expect(requests['delete pods']).toBeUndefined();
      expect(requests['get nodes']).toBe(1);
      expect(uidsOn(node)).toEqual(before);
    },
  );

  it('a pair step planning from a recent read of the node asks the API server before deleting', async () => {
    const before = uidsOn('n1');
    harness.deps.memory.objects.putRecentNodes([formerly('n1', tainted)], harness.deps.clock().getTime());
    const requests = await requestsOf(() =>
      reconcilePair(harness.deps, pairMessage(agent, 'n1') as PairMessage),
    );
    expect(requests['delete pods']).toBeUndefined();
    expect(requests['get nodes']).toBe(1);
    expect(uidsOn('n1')).toEqual(before);
  });

  it.each([
    { name: 'the node step', step: 'node' },
    { name: 'the pair step', step: 'pair' },
  ] as const)('$name deletes the pod of a node still as hinted, after one GET', async ({ step }) => {
    const [pod] = onNode(ssd, 'n2');
    harness.sim.nodes.label('n2', { disk: null });
    const now = harness.sim.nodes.get('n2') as V1Node;
    try {
      const requests = await requestsOf(() =>
        step === 'node'
          ? reconcileNode(harness.deps, hintedNode(now), reconcilePair)
          : reconcilePair(harness.deps, hintedPair(ssd, now)),
      );
      expect(requests['delete pods']).toBe(1);
      expect(requests['get nodes']).toBe(1);
      expect(podsOf(harness, uid(ssd)).find((p) => p.metadata?.uid === pod?.metadata?.uid)).toSatisfy(
        (p: V1Pod | undefined) => p === undefined || p.metadata?.deletionTimestamp !== undefined,
      );
    } finally {
      harness.sim.nodes.label('n2', { disk: 'ssd' });
      await waitFor('the old ssd pod gone', () => podsOf(harness, uid(ssd)).length === 0);
      await reconcileNode(harness.deps, nodeMessage('n2') as NodeMessage, reconcilePair);
      // Running and Ready: no status update of the kubelet's left to race the next case's hints.
      await waitFor('n2 runs the ssd pod again', () => onNode(ssd, 'n2').some(isReady));
    }
  });
});

describe('replays and redeliveries never plan from the facts they carry', () => {
  const watch: MessageCause = { type: 'watch', event: 'MODIFIED', kind: 'Node', resourceVersion: '1' };
  const replay: MessageCause = { type: 'replay', replayName: 'test', eventId: 'e-1' };

  /** An SQS record of `message`, received for the `receiveCount`th time. */
  function recordOf(message: WorkMessage, receiveCount: number): SQSRecord {
    const now = String(Date.now());
    return {
      messageId: randomUUID(),
      receiptHandle: '',
      body: formatWorkMessage(message),
      attributes: {
        ApproximateReceiveCount: String(receiveCount),
        SentTimestamp: now,
        SenderId: 'test',
        ApproximateFirstReceiveTimestamp: now,
        MessageGroupId: messageGroupId(message),
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'work',
      awsRegion: 'us-east-1',
    };
  }

  /** Messages whose hints predate the agent pod on n1: planned from them, that pod is created again. */
  const staleMessages: Record<'node' | 'pair', (cause: MessageCause) => WorkMessage> = {
    node: (cause) => {
      const message = hintedNode(harness.sim.nodes.get('n1') as V1Node, cause);
      return { ...message, hints: { ...(message.hints as NonNullable<NodeMessage['hints']>), pods: [] } };
    },
    pair: (cause) => {
      const message = hintedPair(agent, harness.sim.nodes.get('n1') as V1Node, cause);
      return { ...message, hints: { ...(message.hints as NonNullable<PairMessage['hints']>), pods: [] } };
    },
  };

  it.each([
    { name: 'a first delivery plans from its hints', kind: 'node', cause: watch, receives: 1, creates: 1 },
    { name: 'a replay reads instead', kind: 'node', cause: replay, receives: 1, creates: 0 },
    { name: 'a redelivery reads instead', kind: 'node', cause: watch, receives: 2, creates: 0 },
    { name: 'a first delivery plans from its hints', kind: 'pair', cause: watch, receives: 1, creates: 1 },
    { name: 'a replay reads instead', kind: 'pair', cause: replay, receives: 1, creates: 0 },
    { name: 'a redelivery reads instead', kind: 'pair', cause: watch, receives: 2, creates: 0 },
  ] as const)('$kind message: $name', async ({ kind, cause, receives, creates }) => {
    const before = uidsOn('n1');
    const record = recordOf(staleMessages[kind](cause), receives);
    const requests = await requestsOf(() =>
      reconcileRecord(harness.deps, parseRecord(record), planBatch([record])),
    );
    // A create from stale hints is refused (409 AlreadyExists), but it is a write all the same.
    expect(requests['create pods'] ?? 0).toBe(creates);
    expect(requests['delete pods']).toBeUndefined();
    expect(uidsOn('n1')).toEqual(before);
  });
});
