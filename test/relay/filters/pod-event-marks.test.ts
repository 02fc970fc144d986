import { describe, expect, it } from 'vitest';
import {
  daemonSetWindow,
  ROLLOUT_SLOT_WINDOW_MS,
  STATUS_WINDOW_SECONDS,
} from '../../../lib/messages/daemon-set-window.ts';
import type { RelayNodeContext } from '../../../lib/relay/cluster-view/node-context.ts';
import { podEventMarks } from '../../../lib/relay/filters/pod-event-marks.ts';
import { StatusCoalescer } from '../../../lib/relay/filters/status-coalescer.ts';
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
const dropsAll = { coalesces: () => true, coalescesSlot: () => true } as unknown as StatusCoalescer;
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

  describe('a pod turned ready while old pods wait for a slot', () => {
    const replacing = aDaemonSet('agent', { updateStrategy: { type: 'RollingUpdate' } });
    const status = { observedGeneration: 1, currentNumberScheduled: 10, updatedNumberScheduled: 4 };
    const slotContext = {
      daemonSet: (uid: string) => (uid === replacing.metadata?.uid ? { ...replacing, status } : undefined),
      unreadyPodsOf: () => 1,
      gatesNode: () => false,
    } as unknown as RelayNodeContext;
    const ready = (name: string) => aPod(name, { owner: replacing, nodeName: 'n1', ready: true });

    it('forwards the first of its slot window whatever its status window, and coalesces the rest', () => {
      const coalescer = new StatusCoalescer();
      // The start of one of this DaemonSet's status windows (shifted by its uid), and the three
      // changes within it and within one slot window.
      const uid = replacing.metadata?.uid ?? '';
      const windowStart = new Date(daemonSetWindow(uid, at.getTime(), STATUS_WINDOW_SECONDS * 1000).endsAt);
      const slotOf = (ms: number) =>
        daemonSetWindow(uid, windowStart.getTime() + ms, ROLLOUT_SLOT_WINDOW_MS).window;
      expect(slotOf(2)).toBe(slotOf(0));
      const marks = ['a', 'b', 'c'].map((name, i) =>
        podEventMarks(
          slotContext,
          coalescer,
          'MODIFIED',
          ['ready'],
          ready(name),
          new Date(windowStart.getTime() + i),
        ),
      );
      expect(marks.map((m) => [m.rolloutSlot, m.coalesced])).toEqual([
        [true, false],
        [true, true],
        [true, true],
      ]);
    });

    it('forwards one that is the first status change of its status window, whatever its slot window', () => {
      const firstOfStatusWindow = { coalesces: () => false, coalescesSlot: () => true };
      const marks = podEventMarks(
        slotContext,
        firstOfStatusWindow as unknown as StatusCoalescer,
        'MODIFIED',
        ['ready'],
        ready('a'),
        at,
      );
      expect(marks).toMatchObject({ rolloutSlot: true, coalesced: false });
    });
  });
});
