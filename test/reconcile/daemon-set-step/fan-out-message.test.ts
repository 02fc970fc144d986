/**
 * The pair messages of the DaemonSet step's fan-out: the intent a fan-out is remembered by, the FIFO
 * de-duplication id (the intent and the observation it was planned from), and the hinted message.
 */
import { describe, expect, it } from 'vitest';
import type { Action } from '../../../lib/core/action.ts';
import { nodeViewsFor } from '../../../lib/core/node-view.ts';
import { nodeHintOf, podHintOf } from '../../../lib/messages/pair-hints.ts';
import { workMessageSchema } from '../../../lib/messages/work-message.ts';
import {
  deduplicationIdOf,
  memoryKeyOf,
  pairMessageFor,
} from '../../../lib/reconcile/daemon-set-step/fan-out-message.ts';
import type { FanOutState } from '../../../lib/reconcile/memory/fan-out-feed.ts';
import { aDaemonSet, aNode, aPod } from '../../support/builders.ts';

const ds = aDaemonSet('agent', { generation: 4 });
const create = (name: string): Action => ({
  type: 'create',
  node: 'n1',
  pod: aPod(name, { owner: ds, nodeName: 'n1' }),
  reason: 'missing daemon pod',
});
const remove = (uid: string, resourceVersion: string): Action => ({
  type: 'delete',
  node: 'n1',
  namespace: 'default',
  name: `pod-${uid}`,
  uid,
  resourceVersion,
  reason: 'excess daemon pod',
});
const requeue: Action = { type: 'requeue', afterSeconds: 5, reason: 'backoff' };

describe('memoryKeyOf', () => {
  it('is the same for the same DaemonSet, generation, node and plan', () => {
    expect(memoryKeyOf(ds, 'n1', [create('agent-n1-a')])).toBe(
      memoryKeyOf(aDaemonSet('agent', { generation: 4 }), 'n1', [create('agent-n1-a')]),
    );
  });

  it('names the DaemonSet uid and generation, the node, and each create, delete and requeue', () => {
    expect(JSON.parse(memoryKeyOf(ds, 'n1', [create('agent-n1-a'), remove('p1', '7'), requeue]))).toEqual([
      'uid-ds-agent',
      4,
      'n1',
      ['c:agent-n1-a', 'd:p1@7', 'r'],
    ]);
  });

  it('differs when the intent differs in any part', () => {
    const base = memoryKeyOf(ds, 'n1', [remove('p1', '7')]);
    const others = [
      memoryKeyOf(aDaemonSet('agent', { generation: 5 }), 'n1', [remove('p1', '7')]),
      memoryKeyOf(aDaemonSet('agent', { generation: 4, uid: 'other' }), 'n1', [remove('p1', '7')]),
      memoryKeyOf(ds, 'n2', [remove('p1', '7')]),
      memoryKeyOf(ds, 'n1', [remove('p1', '8')]),
      memoryKeyOf(ds, 'n1', [remove('p2', '7')]),
      memoryKeyOf(ds, 'n1', [remove('p1', '7'), requeue]),
      memoryKeyOf(ds, 'n1', [create('agent-n1-a')]),
    ];
    expect(new Set([base, ...others]).size).toBe(others.length + 1);
  });
});

describe('deduplicationIdOf', () => {
  const intent = memoryKeyOf(ds, 'n1', [create('agent-n1-a')]);

  it('is stable for the same intent and observation, and a valid FIFO id', () => {
    const id = deduplicationIdOf(intent, '10/12');
    expect(id).toBe(deduplicationIdOf(intent, '10/12'));
    expect(id).toMatch(/^fanout:[0-9a-f]{64}$/);
    expect(id.length).toBeLessThanOrEqual(128);
  });

  it('differs when the intent changes, or when the observation does (either LIST)', () => {
    const ids = [
      deduplicationIdOf(intent, '10/12'),
      deduplicationIdOf(memoryKeyOf(ds, 'n2', [create('agent-n2-a')]), '10/12'),
      deduplicationIdOf(intent, '11/12'),
      deduplicationIdOf(intent, '10/13'),
    ];
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('pairMessageFor', () => {
  const now = new Date('2026-12-02T08:00:00.000Z');
  const node = aNode('n1', { labels: { zone: 'a' } });
  const pod = aPod('agent-n1-old', { owner: ds, nodeName: 'n1', resourceVersion: '9' });
  const stateOf = (daemonSet = ds): FanOutState => ({
    ds: daemonSet,
    views: nodeViewsFor(daemonSet, [node], [pod]),
    gateKeys: [],
    currentHash: 'hash-v2',
    now,
    cause: { type: 'resync', at: '2026-12-02T07:59:59.000Z' },
    skip: new Set(),
    observation: '10/12',
    nodesResourceVersion: '10',
    listedAt: now.getTime(),
  });

  it('names the pair and carries the step’s cause and its hints: DaemonSet version, hash, node, pods', () => {
    const state = stateOf();
    const [view] = state.views;
    if (view === undefined) throw new Error('no view');
    const message = pairMessageFor(state, view);
    expect(message).toEqual({
      v: 1,
      kind: 'pair',
      cause: state.cause,
      daemonSet: { namespace: 'default', name: 'agent', uid: 'uid-ds-agent' },
      node: { name: 'n1' },
      hints: {
        observedAt: '2026-12-02T08:00:00.000Z',
        daemonSet: { resourceVersion: '1', generation: 4, revisionHash: 'hash-v2' },
        node: nodeHintOf(node),
        pods: [podHintOf(pod)],
      },
    });
    expect(message.hints?.node).toMatchObject({ name: 'n1', labels: { zone: 'a' } });
    expect(message.hints?.pods).toEqual([
      expect.objectContaining({ name: 'agent-n1-old', uid: 'uid-pod-agent-n1-old', resourceVersion: '9' }),
    ]);
    // What the queue carries parses back as a work message.
    expect(workMessageSchema.safeParse(JSON.parse(JSON.stringify(message))).success).toBe(true);
  });

  it('hints a node the step found gone as null, with the pods still targeting it', () => {
    const state = stateOf();
    const stray = aPod('agent-gone', { owner: ds, nodeName: 'gone' });
    const [, vanished] = nodeViewsFor(ds, [node], [pod, stray]);
    if (vanished === undefined) throw new Error('no view of the vanished node');
    const message = pairMessageFor(state, vanished);
    expect(message.node).toEqual({ name: 'gone' });
    expect(message.hints?.node).toBeNull();
    expect(message.hints?.pods.map((p) => p.name)).toEqual(['agent-gone']);
  });

  it('leaves the generation out of the hints of a DaemonSet without one', () => {
    const unversioned = aDaemonSet('agent');
    delete unversioned.metadata?.generation;
    const state = stateOf(unversioned);
    const [view] = state.views;
    if (view === undefined) throw new Error('no view');
    expect(pairMessageFor(state, view).hints?.daemonSet).toEqual({
      resourceVersion: '1',
      revisionHash: 'hash-v2',
    });
  });
});
