import { describe, expect, it } from 'vitest';
import { daemonSetWindow, ROLLOUT_SLOT_WINDOW_MS } from '../../../lib/messages/daemon-set-window.ts';
import type { DaemonSetMessage } from '../../../lib/messages/work-message.ts';
import { StatusCoalescer } from '../../../lib/relay/filters/status-coalescer.ts';
import { type RoutedWork, statusRefresh, windowEndStep } from '../../../lib/router/router-work.ts';
import { aDaemonSet, aPod } from '../../support/builders.ts';

const fluentd = aDaemonSet('fluentd');
const demo = aDaemonSet('demo', { uid: 'uid-ds-demo' });
const pod = (owner = fluentd) => aPod(`${owner.metadata?.name}-x`, { owner, nodeName: 'n1' });
/** `seconds` into one of fluentd's status windows (each DaemonSet's windows are shifted by its own offset). */
const fluentdWindowStart =
  daemonSetWindow(fluentd.metadata?.uid ?? '', Date.UTC(2026, 0, 1), 2000).endsAt - 2000;
const at = (seconds: number) => new Date(fluentdWindowStart + seconds * 1000);

type Step = {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  changes: string[];
  owner?: typeof fluentd;
  t: number;
  dropped: boolean;
};

describe('StatusCoalescer', () => {
  it.each<{ name: string; steps: Step[] }>([
    {
      name: 'the first status-only change of a window is forwarded, the rest of the window dropped',
      steps: [
        { type: 'ADDED', changes: [], t: 0, dropped: false },
        { type: 'MODIFIED', changes: ['node'], t: 0.1, dropped: true },
        { type: 'MODIFIED', changes: ['phase'], t: 0.5, dropped: true },
        { type: 'MODIFIED', changes: ['ready'], t: 1.9, dropped: true },
        { type: 'MODIFIED', changes: ['ready'], t: 2.0, dropped: false },
      ],
    },
    {
      name: 'changes that need the pair are never dropped',
      steps: [
        { type: 'MODIFIED', changes: ['ready'], t: 0, dropped: false },
        { type: 'MODIFIED', changes: ['phase', 'terminal'], t: 0.1, dropped: false },
        { type: 'MODIFIED', changes: ['deleting'], t: 0.2, dropped: false },
        { type: 'MODIFIED', changes: ['controller'], t: 0.3, dropped: false },
        { type: 'DELETED', changes: [], t: 0.4, dropped: false },
        { type: 'MODIFIED', changes: ['ready'], t: 0.5, dropped: true },
      ],
    },
    {
      name: 'each DaemonSet has its own windows',
      steps: [
        { type: 'MODIFIED', changes: ['ready'], t: 0, dropped: false },
        { type: 'MODIFIED', changes: ['ready'], owner: demo, t: 0.1, dropped: false },
        { type: 'MODIFIED', changes: ['ready'], owner: demo, t: 0.2, dropped: true },
      ],
    },
  ])('$name', ({ steps }) => {
    const coalescer = new StatusCoalescer();
    const dropped = steps.map((s) => coalescer.coalesces(s.type, s.changes, pod(s.owner), at(s.t)));
    expect(dropped).toEqual(steps.map((s) => s.dropped));
  });

  it('never drops a change of a pod without a controller', () => {
    const coalescer = new StatusCoalescer();
    const orphan = aPod('orphan', { nodeName: 'n1' });
    expect([0, 0.1].map((t) => coalescer.coalesces('MODIFIED', ['ready'], orphan, at(t)))).toEqual([
      false,
      false,
    ]);
  });

  it('drops only changes before the end of the window the router delays the forwarded one to', () => {
    expectDropsBefore(
      (coalescer, owner, now) => coalescer.coalesces('MODIFIED', ['ready'], pod(owner), now),
      (message, now) => statusRefresh(message, now),
    );
  });

  describe('changes that free a rolling-update slot', () => {
    it('forwards the first of a slot window, drops the rest of it, and keeps windows per DaemonSet', () => {
      const coalescer = new StatusCoalescer();
      const slotStart = daemonSetWindow(fluentd.metadata?.uid ?? '', at(0).getTime(), ROLLOUT_SLOT_WINDOW_MS);
      const inSlot = (ms: number) => new Date(slotStart.endsAt - ROLLOUT_SLOT_WINDOW_MS + ms);
      const seen = [
        coalescer.coalescesSlot(pod(), inSlot(0)),
        coalescer.coalescesSlot(pod(), inSlot(ROLLOUT_SLOT_WINDOW_MS - 1)),
        coalescer.coalescesSlot(pod(demo), inSlot(1)),
        coalescer.coalescesSlot(pod(), inSlot(ROLLOUT_SLOT_WINDOW_MS)),
      ];
      expect(seen).toEqual([false, true, false, false]);
    });

    it('drops only changes before the end of the slot window the router delays the step to', () => {
      expectDropsBefore(
        (coalescer, owner, now) => coalescer.coalescesSlot(pod(owner), now),
        (message, now) => windowEndStep(message, now, ROLLOUT_SLOT_WINDOW_MS, 'slot'),
      );
    });
  });
});

/**
 * Feeds `drops` a change of each DaemonSet every 37 ms for 10 s: every change it drops comes before
 * the step (`stepOf`) the last one it forwarded brings.
 */
function expectDropsBefore(
  drops: (coalescer: StatusCoalescer, owner: typeof fluentd, now: Date) => boolean,
  stepOf: (message: DaemonSetMessage, now: Date) => RoutedWork,
): void {
  for (const owner of [fluentd, demo]) {
    const coalescer = new StatusCoalescer();
    const uid = owner.metadata?.uid ?? '';
    let stepAt = 0;
    for (let ms = 0; ms < 10_000; ms += 37) {
      const now = new Date(Date.UTC(2026, 0, 1) + ms);
      if (drops(coalescer, owner, now)) {
        expect(now.getTime()).toBeLessThan(stepAt);
        continue;
      }
      const message: DaemonSetMessage = {
        v: 1,
        kind: 'daemonset',
        daemonSet: { namespace: 'default', name: owner.metadata?.name ?? '', uid },
        cause: { type: 'resync', at: now.toISOString() },
      };
      const step = stepOf(message, now);
      stepAt = step.to === 'delayed' ? step.notBefore.getTime() : 0;
    }
  }
}
