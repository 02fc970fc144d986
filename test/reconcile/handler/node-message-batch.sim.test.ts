/**
 * Several `node` messages for one node in one batch of the work queue (the simulated cluster over
 * HTTP, the real reconcile handler, messages received from the real FIFO queue): the gating pods
 * of a joining node turn ready within milliseconds of each other, so their node messages, each with
 * the relay's hints as of its own event, can share a batch. The node runs once, and must decide on
 * the newest hints: the oldest show the last gating pod not ready yet, and nothing else would come
 * to release the node.
 */
import type { V1ControllerRevision, V1Node, V1Pod, V1Taint } from '@kubernetes/client-node';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DaemonSet } from '../../../lib/core/daemon-set.ts';
import type { NodeHints } from '../../../lib/messages/node-hints.ts';
import type { NodeMessage, WorkMessage } from '../../../lib/messages/work-message.ts';
import { withBatchNodeFacts } from '../../../lib/reconcile/handler/node-message-batch.ts';
import { isReplayOrRedelivery } from '../../../lib/reconcile/handler/work-record.ts';
import { RelayNodeContext } from '../../../lib/relay/cluster-view/node-context.ts';
import { aDaemonSet, aNode } from '../../support/builders.ts';
import { createDaemonSet, isReady, nodeMessage, podsOf, waitFor } from '../../support/reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from '../../support/reconcile-harness.ts';
import { lambdaContext } from '../../support/reconcile-queues.ts';

const KEY = 'everynode.dev/not-ready';
const gateTaint: V1Taint = { key: KEY, effect: 'NoSchedule' };

describe('node messages of one node in one batch', () => {
  let harness: Harness;
  let first: ReturnType<typeof createDaemonSet>;
  let last: ReturnType<typeof createDaemonSet>;

  const taintKeys = (name: string) => (harness.sim.nodes.get(name)?.spec?.taints ?? []).map((t) => t.key);
  const podOn = (ds: typeof first, name: string): V1Pod | undefined =>
    podsOf(harness, ds.metadata?.uid ?? '').find((pod) => pod.spec?.nodeName === name);

  /** The relay's hints of `name` as of now, as a relay that just listed everything. */
  function hintsOf(name: string, observedAt: Date): NodeHints {
    const context = new RelayNodeContext();
    const list = <T>(key: Parameters<typeof harness.sim.store.list>[0]) =>
      harness.sim.store.list(key) as unknown as T[];
    context.seed('nodes', list<V1Node>('nodes'));
    context.seed('pods', list<V1Pod>('pods'));
    context.seed('daemonsets', list<DaemonSet>('apps/daemonsets'));
    context.seed('controllerrevisions', list<V1ControllerRevision>('apps/controllerrevisions'));
    const hints = context.nodeHintsFor(name, observedAt);
    if (hints === undefined) throw new Error(`no hints of ${name}`);
    return hints;
  }

  /** `hints` as the relay sent them before `ds`'s pod turned Ready. */
  function beforeReady(hints: NodeHints, ds: typeof first): NodeHints {
    const uid = ds.metadata?.uid;
    const pods = hints.pods.map((pod) =>
      pod.controller?.uid !== uid
        ? pod
        : {
            ...pod,
            ready: false,
            conditions: pod.conditions?.map((c) => (c.type === 'Ready' ? { ...c, status: 'False' } : c)),
          },
    );
    return { ...hints, pods };
  }

  /** The node message the router sends for the event at `resourceVersion` of a gating pod. */
  function readinessMessage(name: string, resourceVersion: string, hints?: NodeHints): WorkMessage {
    const cause = { type: 'watch', event: 'MODIFIED', kind: 'Pod', resourceVersion } as const;
    return { ...(nodeMessage(name) as NodeMessage), cause, ...(hints ? { hints } : {}) };
  }

  /** Joins `name` behind the gate, runs its node step, and waits for both gating pods to be ready. */
  async function joined(name: string): Promise<void> {
    harness.sim.nodes.add(name, { labels: { gate: 'batch' }, taints: [gateTaint] });
    await harness.send(nodeMessage(name));
    await harness.invokeOnce();
    await waitFor(`both gating pods ready on ${name}`, () =>
      [first, last].every((ds) => {
        const pod = podOn(ds, name);
        return pod !== undefined && isReady(pod);
      }),
    );
  }

  /** Sends `messages` and hands them to the handler in one batch, as the queue delivers them. */
  async function inOneBatch(...messages: WorkMessage[]): Promise<void> {
    await harness.send(...messages);
    const event = await harness.takeRecords(messages.length);
    const response = await harness.handler(event, lambdaContext());
    expect(response.batchItemFailures).toEqual([]);
    await harness.deps.memory.events.flush();
  }

  beforeAll(async () => {
    harness = await startReconcileHarness({ nodes: [aNode('n1')], pollWork: false });
    const gating = (name: string) =>
      createDaemonSet(
        harness,
        aDaemonSet(name, {
          annotations: { 'everynode.dev/node-readiness': 'BootstrapOnly' },
          nodeSelector: { gate: 'batch' },
        }),
      );
    first = gating('first');
    last = gating('last');
  });
  afterAll(async () => harness?.stop());

  it('the first pod ready, then the last, in one batch: the node is released', async () => {
    await joined('b1');
    const now = Date.now();
    const newest = hintsOf('b1', new Date(now));
    const older = beforeReady(hintsOf('b1', new Date(now - 20)), last);
    await inOneBatch(readinessMessage('b1', '101', older), readinessMessage('b1', '102', newest));
    expect(taintKeys('b1')).toEqual([]);
  });

  it('delivered out of order (the ingress queue keeps none): the newest hints still win', async () => {
    await joined('b2');
    const now = Date.now();
    const newest = hintsOf('b2', new Date(now));
    const older = beforeReady(hintsOf('b2', new Date(now - 20)), last);
    await inOneBatch(readinessMessage('b2', '202', newest), readinessMessage('b2', '201', older));
    expect(taintKeys('b2')).toEqual([]);
  });

  it('beside a message without hints: the node is read', async () => {
    await joined('b3');
    const older = beforeReady(hintsOf('b3', new Date()), last);
    await inOneBatch(readinessMessage('b3', '301', older), readinessMessage('b3', '302'));
    expect(taintKeys('b3')).toEqual([]);
  });
});

describe('withBatchNodeFacts', () => {
  const hints = (observedAt: string): NodeHints => ({
    observedAt,
    node: { name: 'n1', resourceVersion: '5', gate: {} },
    daemonSets: [],
    pods: [],
  });
  const node = (rv: string, extra: Partial<NodeMessage> = {}): NodeMessage => ({
    ...(nodeMessage('n1') as NodeMessage),
    cause: { type: 'watch', event: 'MODIFIED', kind: 'Pod', resourceVersion: rv },
    ...extra,
  });
  const batch = (...messages: { message: WorkMessage; receiveCount?: number }[]) =>
    messages.map(({ message, receiveCount }, i) => ({
      record: {
        messageId: `m${i}`,
        attributes: { ApproximateReceiveCount: String(receiveCount ?? 1) },
      } as unknown as SQSRecord,
      parsed: { ok: true as const, message },
    }));
  const T1 = '2026-12-01T00:00:01.000Z';
  const T2 = '2026-12-01T00:00:02.000Z';

  it.each<{
    name: string;
    records: ReturnType<typeof batch>;
    hints: string | undefined;
    gateKeys?: string[];
  }>([
    {
      name: 'the newest hints, sent last',
      records: batch(
        { message: node('1', { hints: hints(T1) }) },
        { message: node('2', { hints: hints(T2) }) },
      ),
      hints: T2,
    },
    {
      name: 'the newest hints, sent first',
      records: batch(
        { message: node('2', { hints: hints(T2) }) },
        { message: node('1', { hints: hints(T1) }) },
      ),
      hints: T2,
    },
    {
      name: 'one without hints (a requeue, a fan-out): none, the node is read',
      records: batch({ message: node('1', { hints: hints(T1) }) }, { message: node('2') }),
      hints: undefined,
    },
    {
      name: 'one redelivered: none',
      records: batch(
        { message: node('1', { hints: hints(T1) }) },
        { message: node('2', { hints: hints(T2) }), receiveCount: 2 },
      ),
      hints: undefined,
    },
    {
      name: 'the gate keys of them all, and the newest hints',
      records: batch(
        { message: node('1', { hints: hints(T1), gateKeys: ['b'] }) },
        { message: node('2', { hints: hints(T2), gateKeys: ['a'] }) },
      ),
      hints: T2,
      gateKeys: ['a', 'b'],
    },
    {
      name: "another node's message is no part of it",
      records: batch(
        { message: node('1', { hints: hints(T1) }) },
        { message: { ...node('2', { hints: hints(T2) }), node: { name: 'n2' } } },
      ),
      hints: T1,
    },
  ])('$name', ({ records, hints: expected, gateKeys }) => {
    const first = records[0]?.parsed.message as WorkMessage;
    const run = withBatchNodeFacts(first, records, isReplayOrRedelivery) as NodeMessage;
    expect(run.hints?.observedAt).toBe(expected);
    expect(run.gateKeys).toEqual(gateKeys);
    expect(run.cause).toEqual(first.cause);
  });

  it('leaves any other message as it is', () => {
    const daemonSet: WorkMessage = {
      v: 1,
      kind: 'daemonset',
      cause: { type: 'resync', at: T1 },
      daemonSet: { namespace: 'default', name: 'ds' },
    };
    expect(
      withBatchNodeFacts(
        daemonSet,
        batch({ message: node('1', { hints: hints(T1) }) }),
        isReplayOrRedelivery,
      ),
    ).toBe(daemonSet);
  });
});
