import { describe, expect, it } from 'vitest';
import type { RelayNodeContext } from '../../../lib/relay/cluster-view/node-context.ts';
import { podEventMarks } from '../../../lib/relay/filters/pod-event-marks.ts';
import type { StatusCoalescer } from '../../../lib/relay/filters/status-coalescer.ts';
import { aDaemonSet, aPod } from '../../support/builders.ts';

const ds = aDaemonSet('agent', {
  updateStrategy: {
    type: 'RollingUpdate',
    rollingUpdate: { maxUnavailable: 1, health: { podReadySeconds: 60, maxRestarts: 2 } } as never,
  },
});
const rolling = { ...ds, status: { rollout: { revision: 'new', phase: 'Progressing', updatedNodes: 1 } } };
const context = {
  daemonSet: (uid: string) => (uid === ds.metadata?.uid ? rolling : undefined),
  unreadyPodsOf: () => 1,
  gatesNode: () => false,
} as unknown as RelayNodeContext;
/** A coalescer that would drop every change: only a mark keeps one. */
const dropsAll = { coalesces: () => true } as unknown as StatusCoalescer;
const pod = (hash: string) =>
  aPod('p', { owner: ds, nodeName: 'n1', ready: true, labels: { 'controller-revision-hash': hash } });
const at = new Date('2026-12-07T00:00:00Z');

describe('podEventMarks', () => {
  it('marks a restart of the rolled revision as a health signal, which is never coalesced', () => {
    expect(podEventMarks(context, dropsAll, 'MODIFIED', ['restarts'], pod('new'), at)).toEqual({
      gatesNode: false,
      rolloutSlot: false,
      settles: false,
      healthSignal: true,
      coalesced: false,
    });
  });

  it('leaves an unmarked change to the coalescer', () => {
    expect(podEventMarks(context, dropsAll, 'MODIFIED', ['restarts'], pod('old'), at)).toMatchObject({
      healthSignal: false,
      coalesced: true,
    });
  });
});
