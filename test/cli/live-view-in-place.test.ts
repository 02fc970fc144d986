import { describe, expect, it } from 'vitest';
import { summaryLine, type ViewSnapshot } from '../../lib/cli/live-view.ts';

const snapshot: ViewSnapshot = {
  daemonSets: [],
  depths: { ingress: 0, ingressDelayed: 0, work: 0, workDlq: 0, ingressDlq: 0 },
  triggersPerSecond: 0,
  triggers: 7,
  podsCreated: 4,
  podsDeleted: 1,
  recent: [],
};

describe('the summary line of everynode run', () => {
  it('says nothing of in-place updates until one was counted', () => {
    const none = { updated: 0, resized: 0, infeasible: 0, deferred: 0 };
    expect(summaryLine({ ...snapshot, inPlace: none })).toBe(summaryLine(snapshot));
    expect(summaryLine(snapshot)).not.toContain('in place');
  });

  it('counts updates, resizes and the resizes that fell back to a recreate, by reason', () => {
    const inPlace = { updated: 3, resized: 2, infeasible: 1, deferred: 0 };
    expect(summaryLine({ ...snapshot, inPlace })).toMatch(
      / \| pods created 4, deleted 1 \| in place: updated 3, resized 2, fell back 1 infeasible, 0 deferred$/,
    );
  });
});
