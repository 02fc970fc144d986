/**
 * Which pod events free a rolling-update slot (`freesRolloutSlot`): only while the DaemonSet, as
 * the relay's context knows it, rolls with old pods left to replace, and only a change that can
 * make room — a pod turned ready (or seen ready at creation), and a removal when the rollout
 * surges.
 */
import type { V1DaemonSet, V1DaemonSetStatus, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { DaemonSet } from '../../../lib/core/daemon-set.ts';
import { PARTITION_ANNOTATION, PAUSED_ANNOTATION } from '../../../lib/core/extensions.ts';
import { RelayNodeContext } from '../../../lib/relay/cluster-view/node-context.ts';
import { freesRolloutSlot } from '../../../lib/relay/filters/rollout-slots.ts';
import { aDaemonSet, aPod } from '../../support/builders.ts';

/** 10 nodes, 4 of them on the new revision, all counted for generation 2. */
const midRollout: V1DaemonSetStatus = {
  observedGeneration: 2,
  desiredNumberScheduled: 10,
  currentNumberScheduled: 9,
  updatedNumberScheduled: 4,
  numberReady: 8,
  numberAvailable: 8,
  numberUnavailable: 2,
  numberMisscheduled: 0,
};
/** Every node on the new revision, one pod still starting. */
const lastWave: V1DaemonSetStatus = {
  ...midRollout,
  currentNumberScheduled: 10,
  updatedNumberScheduled: 10,
  numberAvailable: 9,
  numberUnavailable: 1,
};
/** An initial rollout: no old pod, three nodes still without a pod. */
const initial: V1DaemonSetStatus = {
  ...midRollout,
  currentNumberScheduled: 7,
  updatedNumberScheduled: 7,
  numberAvailable: 5,
  numberUnavailable: 5,
};
const settled: V1DaemonSetStatus = {
  ...lastWave,
  numberReady: 10,
  numberAvailable: 10,
  numberUnavailable: 0,
};

interface Shape {
  status: V1DaemonSetStatus;
  generation?: number;
  annotations?: Record<string, string>;
  updateStrategy?: NonNullable<V1DaemonSet['spec']>['updateStrategy'];
}

function daemonSet({ status, generation = 2, annotations, updateStrategy }: Shape): DaemonSet {
  const ds = aDaemonSet('agent', {
    uid: 'ds-agent',
    generation,
    ...(annotations ? { annotations } : {}),
    ...(updateStrategy ? { updateStrategy } : {}),
  });
  return { ...ds, status } as DaemonSet;
}

function contextKnowing(ds: DaemonSet): RelayNodeContext {
  const context = new RelayNodeContext();
  context.observe('daemonsets', { type: 'ADDED', object: ds, resourceVersion: '7' });
  return context;
}

const podOf = (ds: DaemonSet, options: { ready: boolean; deleting?: boolean }): V1Pod =>
  aPod('agent-n1', {
    owner: ds as V1DaemonSet,
    nodeName: 'n1',
    ready: options.ready,
    ...(options.deleting ? { deletionTimestamp: new Date('2026-01-01T00:01:00Z') } : {}),
  });

const surge = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } };

interface Case {
  name: string;
  ds: Shape;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  changes?: string[];
  ready: boolean;
  deleting?: boolean;
  frees: boolean;
}

const cases: Case[] = [
  {
    name: 'mid-rollout, turned ready',
    ds: { status: midRollout },
    type: 'MODIFIED',
    changes: ['ready'],
    ready: true,
    frees: true,
  },
  {
    name: 'mid-rollout, started and ready in one update',
    ds: { status: midRollout },
    type: 'MODIFIED',
    changes: ['phase', 'ready'],
    ready: true,
    frees: true,
  },
  {
    name: 'mid-rollout, turned not ready',
    ds: { status: midRollout },
    type: 'MODIFIED',
    changes: ['ready'],
    ready: false,
    frees: false,
  },
  {
    name: 'mid-rollout, only started',
    ds: { status: midRollout },
    type: 'MODIFIED',
    changes: ['phase'],
    ready: false,
    frees: false,
  },
  {
    name: 'mid-rollout, only bound',
    ds: { status: midRollout },
    type: 'MODIFIED',
    changes: ['node'],
    ready: true,
    frees: false,
  },
  { name: 'mid-rollout, added ready', ds: { status: midRollout }, type: 'ADDED', ready: true, frees: true },
  {
    name: 'mid-rollout, added not ready',
    ds: { status: midRollout },
    type: 'ADDED',
    ready: false,
    frees: false,
  },
  {
    name: 'mid-rollout, ready but terminating',
    ds: { status: midRollout },
    type: 'MODIFIED',
    changes: ['ready', 'deleting'],
    ready: true,
    deleting: true,
    frees: false,
  },
  {
    name: 'mid-rollout, turned terminal',
    ds: { status: midRollout },
    type: 'MODIFIED',
    changes: ['phase', 'terminal', 'ready'],
    ready: false,
    frees: false,
  },
  {
    name: 'mid-rollout without surge, deleted',
    ds: { status: midRollout },
    type: 'DELETED',
    ready: true,
    frees: false,
  },
  {
    name: 'mid-rollout with surge, deleted',
    ds: { status: midRollout, updateStrategy: surge },
    type: 'DELETED',
    ready: true,
    frees: true,
  },
  {
    name: 'mid-rollout with surge, turned ready',
    ds: { status: midRollout, updateStrategy: surge },
    type: 'MODIFIED',
    changes: ['ready'],
    ready: true,
    frees: true,
  },
  {
    name: 'new generation not yet counted, turned ready',
    ds: { status: settled, generation: 3 },
    type: 'MODIFIED',
    changes: ['ready'],
    ready: true,
    frees: true,
  },
  {
    name: 'new DaemonSet no step counted yet, turned ready',
    ds: {
      status: { desiredNumberScheduled: 0, currentNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0 },
      generation: 1,
    },
    type: 'MODIFIED',
    changes: ['ready'],
    ready: true,
    frees: false,
  },
  {
    name: 'settled, turned ready',
    ds: { status: settled },
    type: 'MODIFIED',
    changes: ['ready'],
    ready: true,
    frees: false,
  },
  {
    name: 'settled with surge, deleted',
    ds: { status: settled, updateStrategy: surge },
    type: 'DELETED',
    ready: true,
    frees: false,
  },
  {
    name: 'last wave (no old pod left), turned ready',
    ds: { status: lastWave },
    type: 'MODIFIED',
    changes: ['ready'],
    ready: true,
    frees: false,
  },
  {
    name: 'initial rollout (no old pod), turned ready',
    ds: { status: initial },
    type: 'MODIFIED',
    changes: ['ready'],
    ready: true,
    frees: false,
  },
  {
    name: 'paused mid-rollout, turned ready',
    ds: { status: midRollout, annotations: { [PAUSED_ANNOTATION]: 'true' } },
    type: 'MODIFIED',
    changes: ['ready'],
    ready: true,
    frees: false,
  },
  {
    name: 'partition keeping every old pod left, turned ready',
    ds: { status: midRollout, annotations: { [PARTITION_ANNOTATION]: '5' } },
    type: 'MODIFIED',
    changes: ['ready'],
    ready: true,
    frees: false,
  },
  {
    name: 'partition keeping fewer than the old pods left, turned ready',
    ds: { status: midRollout, annotations: { [PARTITION_ANNOTATION]: '4' } },
    type: 'MODIFIED',
    changes: ['ready'],
    ready: true,
    frees: true,
  },
  {
    name: 'OnDelete with old pods, turned ready',
    ds: { status: midRollout, updateStrategy: { type: 'OnDelete' } },
    type: 'MODIFIED',
    changes: ['ready'],
    ready: true,
    frees: false,
  },
];

describe('freesRolloutSlot', () => {
  it.each(cases)('$name → $frees', ({ ds: shape, type, changes = [], ready, deleting, frees }) => {
    const ds = daemonSet(shape);
    const pod = podOf(ds, { ready, ...(deleting ? { deleting } : {}) });
    expect(freesRolloutSlot(contextKnowing(ds), type, changes, pod)).toBe(frees);
  });

  it('is false for a pod whose DaemonSet the relay does not know, and without a context', () => {
    const ds = daemonSet({ status: midRollout });
    const pod = podOf(ds, { ready: true });
    expect(freesRolloutSlot(new RelayNodeContext(), 'MODIFIED', ['ready'], pod)).toBe(false);
    expect(freesRolloutSlot(undefined, 'MODIFIED', ['ready'], pod)).toBe(false);
    expect(freesRolloutSlot(contextKnowing(ds), 'MODIFIED', ['ready'], aPod('bare', { ready: true }))).toBe(
      false,
    );
  });

  it("follows the DaemonSet's status as the context sees it: settled once its status says so", () => {
    const ds = daemonSet({ status: midRollout });
    const context = contextKnowing(ds);
    const pod = podOf(ds, { ready: true });
    expect(freesRolloutSlot(context, 'MODIFIED', ['ready'], pod)).toBe(true);
    const done = { ...ds, metadata: { ...ds.metadata, resourceVersion: '8' }, status: settled } as DaemonSet;
    context.observe('daemonsets', { type: 'MODIFIED', object: done, resourceVersion: '8' });
    expect(freesRolloutSlot(context, 'MODIFIED', ['ready'], pod)).toBe(false);
  });
});
