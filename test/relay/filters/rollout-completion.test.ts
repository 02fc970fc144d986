/**
 * Which pod events complete their DaemonSet (`settlesDaemonSet`): the pod turned ready (or was seen
 * ready at creation), no other pod of the DaemonSet is not ready as the relay's context knows them,
 * and the DaemonSet's status as last seen still counts fewer ready nodes than desired.
 */
import type { V1DaemonSet, V1DaemonSetStatus, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { DaemonSet } from '../../../lib/core/daemon-set.ts';
import { RelayNodeContext } from '../../../lib/relay/cluster-view/node-context.ts';
import { settlesDaemonSet } from '../../../lib/relay/filters/rollout-completion.ts';
import { aDaemonSet, aPod } from '../../support/builders.ts';

/** Three nodes, two pods ready as the last status write counted them. */
const counting: V1DaemonSetStatus = {
  observedGeneration: 1,
  desiredNumberScheduled: 3,
  currentNumberScheduled: 3,
  updatedNumberScheduled: 3,
  numberReady: 2,
  numberAvailable: 2,
  numberUnavailable: 1,
  numberMisscheduled: 0,
};
const allReady: V1DaemonSetStatus = { ...counting, numberReady: 3, numberAvailable: 3, numberUnavailable: 0 };

const daemonSet = (status: V1DaemonSetStatus | undefined): DaemonSet =>
  ({ ...aDaemonSet('agent', { uid: 'ds-agent' }), ...(status ? { status } : {}) }) as DaemonSet;

const podOn = (ds: DaemonSet, node: string, ready: boolean, deleting = false): V1Pod =>
  aPod(`agent-${node}`, {
    owner: ds as V1DaemonSet,
    nodeName: node,
    ready,
    resourceVersion: ready ? '20' : '10',
    ...(deleting ? { deletionTimestamp: new Date('2026-01-01T00:01:00Z') } : {}),
  });

interface Case {
  name: string;
  status?: V1DaemonSetStatus;
  /** Readiness of the DaemonSet's pods on the two other nodes. */
  others: [boolean, boolean];
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  changes?: string[];
  ready: boolean;
  deleting?: boolean;
  settles: boolean;
}

const cases: Case[] = [
  {
    name: 'the last pod turned ready',
    others: [true, true],
    type: 'MODIFIED',
    changes: ['ready'],
    ready: true,
    settles: true,
  },
  {
    name: 'the last pod started and turned ready in one update',
    others: [true, true],
    type: 'MODIFIED',
    changes: ['phase', 'ready'],
    ready: true,
    settles: true,
  },
  {
    name: 'the last pod seen ready at creation',
    others: [true, true],
    type: 'ADDED',
    ready: true,
    settles: true,
  },
  {
    name: 'another pod still not ready',
    others: [true, false],
    type: 'MODIFIED',
    changes: ['ready'],
    ready: true,
    settles: false,
  },
  {
    name: 'turned not ready',
    others: [true, true],
    type: 'MODIFIED',
    changes: ['ready'],
    ready: false,
    settles: false,
  },
  {
    name: 'only bound, already ready',
    others: [true, true],
    type: 'MODIFIED',
    changes: ['node'],
    ready: true,
    settles: false,
  },
  {
    name: 'ready but terminating',
    others: [true, true],
    type: 'MODIFIED',
    changes: ['ready', 'deleting'],
    ready: true,
    deleting: true,
    settles: false,
  },
  { name: 'deleted', others: [true, true], type: 'DELETED', ready: true, settles: false },
  {
    name: 'the status already counts every node ready',
    status: allReady,
    others: [true, true],
    type: 'MODIFIED',
    changes: ['ready'],
    ready: true,
    settles: false,
  },
  {
    name: 'no status written yet',
    status: undefined,
    others: [true, true],
    type: 'MODIFIED',
    changes: ['ready'],
    ready: true,
    settles: false,
  },
];

describe('settlesDaemonSet', () => {
  it.each(cases)('$name → $settles', (c) => {
    const ds = daemonSet('status' in c ? c.status : counting);
    const context = new RelayNodeContext();
    context.observe('daemonsets', { type: 'ADDED', object: ds, resourceVersion: '7' });
    c.others.forEach((ready, i) => {
      context.observe('pods', { type: 'ADDED', object: podOn(ds, `n${i + 2}`, ready), resourceVersion: '8' });
    });
    const pod = podOn(ds, 'n1', c.ready, c.deleting);
    const event = { type: c.type, object: pod, resourceVersion: '21' } as const;
    context.observe('pods', event);
    expect(settlesDaemonSet(context, c.type, c.changes ?? [], pod)).toBe(c.settles);
  });

  it('is false for a pod of a DaemonSet the relay does not know, or without a context', () => {
    const ds = daemonSet(counting);
    const pod = podOn(ds, 'n1', true);
    const context = new RelayNodeContext();
    context.observe('pods', { type: 'ADDED', object: pod, resourceVersion: '21' });
    expect(settlesDaemonSet(context, 'ADDED', [], pod)).toBe(false);
    expect(settlesDaemonSet(undefined, 'ADDED', [], pod)).toBe(false);
  });

  it('counts the pods not ready through updates, moves and deletions', () => {
    const ds = daemonSet(counting);
    const context = new RelayNodeContext();
    const uid = ds.metadata?.uid ?? '';
    const observe = (type: 'ADDED' | 'MODIFIED' | 'DELETED', pod: V1Pod) =>
      context.observe('pods', { type, object: pod, resourceVersion: '30' });
    observe('ADDED', podOn(ds, 'n1', false));
    observe('ADDED', podOn(ds, 'n2', false));
    expect(context.unreadyPodsOf(uid)).toBe(2);
    observe('MODIFIED', podOn(ds, 'n1', false));
    expect(context.unreadyPodsOf(uid)).toBe(2);
    observe('MODIFIED', podOn(ds, 'n1', true));
    expect(context.unreadyPodsOf(uid)).toBe(1);
    observe('MODIFIED', podOn(ds, 'n1', false));
    expect(context.unreadyPodsOf(uid)).toBe(2);
    observe('DELETED', podOn(ds, 'n2', false));
    expect(context.unreadyPodsOf(uid)).toBe(1);
    observe('DELETED', podOn(ds, 'n1', false));
    expect(context.unreadyPodsOf(uid)).toBe(0);
    expect(context.unreadyPodsOf('another')).toBe(0);
  });
});
