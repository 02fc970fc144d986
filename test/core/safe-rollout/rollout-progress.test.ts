import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { nodeViewsFor } from '../../../lib/core/node-view.ts';
import { planRollout } from '../../../lib/core/rolling-update/plan.ts';
import {
  type RolloutProgressInput,
  safeRolloutProgress,
} from '../../../lib/core/safe-rollout/rollout-progress.ts';
import {
  ROLLOUT_RESUME_ANNOTATION,
  ROLLOUT_RETRY_ANNOTATION,
  type RolloutRecord,
} from '../../../lib/core/safe-rollout/rollout-record.ts';
import { safeRolloutOf } from '../../../lib/core/safe-rollout/rollout-spec.ts';
import { aDaemonSet, aNode, aPod } from '../../support/builders.ts';

const NOW = new Date('2026-01-02T00:00:00Z');
const HASH = 'newhash';
const ago = (s: number) => new Date(NOW.getTime() - s * 1000);
/** Ten nodes: four in zone a, four in zone b, two without a zone. */
const ZONES = ['a', 'a', 'a', 'a', 'b', 'b', 'b', 'b', '', ''];
const nodes = ZONES.map((zone, i) =>
  aNode(`n${String(i + 1).padStart(2, '0')}`, { labels: zone ? { zone } : {} }),
);

/** What a node runs: the old revision, the new one (available, or `new-`: not ready since `age` s), or a pod going. */
type Slot = 'old' | 'new' | 'new-' | 'going';

function dsWith(rollingUpdate: Record<string, unknown>, annotations?: Record<string, string>) {
  return aDaemonSet('agent', {
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 3, ...rollingUpdate } },
    ...(annotations ? { annotations } : {}),
  });
}

function input(
  ds: ReturnType<typeof dsWith>,
  slots: readonly Slot[],
  stored?: RolloutRecord,
  podAge = 30,
): RolloutProgressInput {
  const pods: V1Pod[] = slots.map((slot, i) => {
    const node = nodes[i]?.metadata?.name ?? '';
    return aPod(`${node}-${slot}`, {
      owner: ds,
      nodeName: node,
      ready: slot !== 'new-',
      creationTimestamp: slot.startsWith('new') ? ago(podAge) : ago(7200),
      labels: { 'controller-revision-hash': slot.startsWith('new') ? HASH : 'oldhash' },
      ...(slot === 'going' ? { deletionTimestamp: ago(1) } : {}),
    });
  });
  const views = nodeViewsFor(ds, nodes, pods);
  return { ds, views, currentHash: HASH, settings: safeRolloutOf(ds), stored, now: NOW };
}

const all = (slot: Slot, n = 10): Slot[] => Array.from({ length: n }, () => slot);
const zoned = { topologyKey: 'zone', steps: [{ nodes: 1 }, { pause: { seconds: 60 } }, { nodes: '50%' }] };

describe('safeRolloutProgress: steps and domains', () => {
  it('begins with the first step in the first domain: one node of zone a', () => {
    const progress = safeRolloutProgress(input(dsWith(zoned), all('old')));
    expect(progress.record).toMatchObject({
      revision: HASH,
      phase: 'Progressing',
      step: 0,
      domain: 'a',
      updatedNodes: 0,
    });
    expect(progress.record?.stableRevision).toBe('oldhash');
    expect(progress.allowance).toEqual({
      halted: false,
      maxNewNodes: 1,
      order: ['n01', 'n02', 'n03', 'n04'],
    });
  });

  it('pauses for the timed step once the canary is available, then goes on to half the nodes', () => {
    const canary: Slot[] = ['new', ...all('old', 9)];
    const paused = safeRolloutProgress(input(dsWith(zoned), canary));
    expect(paused.record).toMatchObject({ phase: 'Paused', step: 1, stepStartedAt: '2026-01-02T00:00:00Z' });
    expect(paused.allowance?.maxNewNodes).toBe(0);
    expect(paused.requeueAfterSeconds).toBe(60);
    expect(paused.events.map((e) => e.reason)).toEqual(['RolloutStepComplete']);

    const stored = { ...(paused.record as RolloutRecord), stepStartedAt: '2026-01-01T23:58:59Z' };
    const resumed = safeRolloutProgress(input(dsWith(zoned), canary, stored));
    expect(resumed.record).toMatchObject({ phase: 'Progressing', step: 2 });
    expect(resumed.allowance?.maxNewNodes).toBe(4);
  });

  it('counts nodes whose old pod is going as updated: the step never overshoots', () => {
    const stored: RolloutRecord = { revision: HASH, phase: 'Progressing', step: 2, updatedNodes: 3 };
    const progress = safeRolloutProgress(
      input(dsWith(zoned), ['new', 'going', 'going', 'old', ...all('old', 6)], stored),
    );
    expect(progress.allowance?.maxNewNodes).toBe(2);
  });

  it('finishes a domain before the next: zone b only once every node of zone a is available', () => {
    const stored: RolloutRecord = {
      revision: HASH,
      phase: 'Progressing',
      step: 3,
      domain: 'a',
      updatedNodes: 3,
    };
    const ds = dsWith(zoned);
    const busy = safeRolloutProgress(input(ds, ['new', 'new', 'new', 'new-', ...all('old', 6)], stored));
    expect(busy.allowance?.order).toEqual(['n01', 'n02', 'n03', 'n04']);
    const done = safeRolloutProgress(input(ds, ['new', 'new', 'new', 'new', ...all('old', 6)], stored));
    expect(done.record?.domain).toBe('b');
    expect(done.allowance?.order).toEqual(['n01', 'n02', 'n03', 'n04', 'n05', 'n06', 'n07', 'n08']);
    expect(done.events.map((e) => e.reason)).toEqual(['RolloutDomainComplete']);
    const last = safeRolloutProgress(input(ds, [...all('new', 8), 'old', 'old'], { ...stored, domain: 'b' }));
    expect(last.record?.domain).toBe('');
    expect(last.allowance?.maxNewNodes).toBe(Number.POSITIVE_INFINITY);
  });

  it('holds a pause without seconds until the resume request names its step', () => {
    const ds = dsWith({ steps: [{ nodes: 1 }, { pause: {} }] });
    const canary: Slot[] = ['new', ...all('old', 9)];
    const held = safeRolloutProgress(input(ds, canary));
    expect(held.record).toMatchObject({ phase: 'Paused', step: 1 });
    expect(held.requeueAfterSeconds).toBeUndefined();
    const wrongStep = dsWith(
      { steps: [{ nodes: 1 }, { pause: {} }] },
      { [ROLLOUT_RESUME_ANNOTATION]: `${HASH}/0` },
    );
    expect(safeRolloutProgress(input(wrongStep, canary, held.record)).record?.phase).toBe('Paused');
    const resumed = dsWith(
      { steps: [{ nodes: 1 }, { pause: {} }] },
      { [ROLLOUT_RESUME_ANNOTATION]: `${HASH}/1` },
    );
    const going = safeRolloutProgress(input(resumed, canary, held.record));
    expect(going.record).toMatchObject({ phase: 'Progressing', step: 2 });
    expect(going.allowance?.maxNewNodes).toBe(Number.POSITIVE_INFINITY);
  });

  it('completes, records the revision as stable, and stays complete when a node joins later', () => {
    const done = safeRolloutProgress(input(dsWith(zoned), all('new')));
    expect(done.record).toMatchObject({ phase: 'Complete', stableRevision: HASH });
    const joined = safeRolloutProgress(input(dsWith(zoned), [...all('new', 9), 'new-'], done.record, 400));
    expect(joined.record?.phase).toBe('Complete');
  });
});

describe('safeRolloutProgress: health', () => {
  const health = { steps: [{ nodes: 2 }], health: { podReadySeconds: 60, maxFailedNodes: 1 } };

  it('waits for the readiness deadline, then counts a node failed, and halts past maxFailedNodes', () => {
    const slots: Slot[] = ['new-', 'new-', ...all('old', 8)];
    const young = safeRolloutProgress(input(dsWith(health), slots, undefined, 30));
    expect(young.record?.failedNodes).toBeUndefined();
    expect(young.requeueAfterSeconds).toBe(30);
    const old = safeRolloutProgress(input(dsWith(health), slots, undefined, 61));
    expect(old.record?.failedNodes?.map((f) => [f.node, f.reason])).toEqual([
      ['n01', 'PodNotAvailable'],
      ['n02', 'PodNotAvailable'],
    ]);
    expect(old.record).toMatchObject({ phase: 'Halted', haltReason: 'TooManyFailedNodes' });
    expect(old.allowance?.halted).toBe(true);
    expect(old.events.map((e) => e.reason)).toEqual(['RolloutHalted']);
    expect(
      planRollout({
        ...input(dsWith(health), slots),
        nodes: input(dsWith(health), slots).views,
        currentHash: HASH,
        now: NOW,
        allowance: old.allowance,
      }),
    ).toEqual([]);
  });

  it('stays halted on the next step and after its pods recover, until a retry names the halt', () => {
    const slots: Slot[] = ['new-', 'new-', ...all('old', 8)];
    const halted = safeRolloutProgress(input(dsWith(health), slots, undefined, 61)).record as RolloutRecord;
    const again = safeRolloutProgress(input(dsWith(health), ['new', 'new', ...all('old', 8)], halted));
    expect(again.record?.phase).toBe('Halted');
    expect(again.events).toEqual([]);
    const retry = dsWith(health.health ? health : {}, {
      [ROLLOUT_RETRY_ANNOTATION]: `${HASH}/${halted.haltedAt}`,
    });
    const retried = safeRolloutProgress(input(retry, ['new', 'new', ...all('old', 8)], halted));
    expect(retried.record).toMatchObject({ phase: 'Progressing', retried: halted.haltedAt });
    expect(retried.record?.failedNodes).toBeUndefined();
    expect(retried.events.map((e) => e.reason)).toEqual(['RolloutRetried', 'RolloutStepComplete']);
  });

  it("completes a nodes step only once its nodes' health windows closed", () => {
    const watched = { steps: [{ nodes: 2 }], health: { podReadySeconds: 60, nodeReadySeconds: 120 } };
    const slots: Slot[] = ['new', 'new', ...all('old', 8)];
    // The pods started 30 s ago: a NotReady node would still count for 90 s.
    const open = safeRolloutProgress(input(dsWith(watched), slots, undefined, 30));
    expect(open.record).toMatchObject({ phase: 'Progressing', step: 0 });
    expect(open.allowance?.maxNewNodes).toBe(0);
    expect(open.requeueAfterSeconds).toBe(90);
    expect(open.events).toEqual([]);
    const closed = safeRolloutProgress(input(dsWith(watched), slots, undefined, 121));
    expect(closed.record?.step).toBe(1);
    expect(closed.events.map((e) => e.reason)).toEqual(['RolloutStepComplete']);
  });

  it('counts a tolerated failed node towards its step, so the rollout goes on', () => {
    const tolerant = { steps: [{ nodes: 2 }], health: { podReadySeconds: 60, maxFailedNodes: 1 } };
    const progress = safeRolloutProgress(
      input(dsWith(tolerant), ['new', 'new-', ...all('old', 8)], undefined, 61),
    );
    expect(progress.record?.failedNodes?.map((f) => f.node)).toEqual(['n02']);
    expect(progress.record).toMatchObject({ phase: 'Progressing', step: 1 });
    expect(progress.allowance?.maxNewNodes).toBe(Number.POSITIVE_INFINITY);
    expect(progress.events[0]?.message).toContain('1 failed nodes tolerated');
  });

  it('counts restarts within the window and a node gone NotReady after its pod started', () => {
    const ds = dsWith({
      health: { podReadySeconds: 300, maxRestarts: 2, nodeReadySeconds: 120, maxFailedNodes: 5 },
    });
    const base = input(ds, ['new', 'new', ...all('old', 8)], undefined, 30);
    const crashing = base.views.map((view) =>
      view.name !== 'n01'
        ? view
        : {
            ...view,
            pods: view.pods.map((pod) => ({
              ...pod,
              status: {
                ...pod.status,
                containerStatuses: [{ name: 'main', restartCount: 3, ready: false, image: 'x', imageID: '' }],
              },
            })),
          },
    );
    const broken = crashing.map((view) =>
      view.name !== 'n02'
        ? view
        : {
            ...view,
            node: {
              ...view.node,
              status: { conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: ago(10) }] },
            },
          },
    );
    const progress = safeRolloutProgress({ ...base, views: broken });
    expect(progress.record?.failedNodes?.map((f) => [f.node, f.reason])).toEqual([
      ['n01', 'TooManyRestarts'],
      ['n02', 'NodeNotReady'],
    ]);
    expect(progress.record?.phase).toBe('Progressing');
  });
});

describe('safeRolloutProgress: revert', () => {
  const reverting = {
    steps: [{ nodes: 2 }],
    health: { podReadySeconds: 60, maxFailedNodes: 0, onFailure: 'Revert' },
  };
  const halted: RolloutRecord = {
    revision: HASH,
    phase: 'Reverting',
    step: 0,
    updatedNodes: 1,
    stableRevision: 'oldhash',
    failedNodes: [{ node: 'n01', reason: 'NodeNotReady', message: 'broke', at: '2026-01-01T23:59:00Z' }],
    haltedAt: '2026-01-01T23:59:01Z',
    haltReason: 'TooManyFailedNodes',
  };

  it('is not reverted while a failed node, NotReady and without its pod, takes no daemon pod', () => {
    const base = input(dsWith(reverting), ['going', ...all('old', 9)], halted);
    const broken = base.views[0]?.node;
    const tainted = {
      ...broken,
      spec: { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] },
      status: { conditions: [{ type: 'Ready', status: 'False' }] },
    };
    const pods = base.views.slice(1).flatMap((v) => v.pods);
    const views = nodeViewsFor(base.ds, [tainted, ...nodes.slice(1)] as typeof nodes, pods);
    const progress = safeRolloutProgress({ ...base, views });
    expect(progress.record?.phase).toBe('Reverting');
    expect(progress.record?.revertedAt).toBeUndefined();
    // Ready again and running the stable revision: reverted.
    const back = safeRolloutProgress(input(dsWith(reverting), all('old'), halted));
    expect(back.record).toMatchObject({ phase: 'Halted', revertedAt: '2026-01-02T00:00:00Z' });
    expect(back.events.map((e) => e.reason)).toEqual(['RolloutReverted']);
  });
});

describe('planRollout within a safe rollout', () => {
  it('replaces only the nodes the allowance names, in its order, no more than it allows', () => {
    const ds = dsWith(zoned);
    const state = input(ds, all('old'));
    const progress = safeRolloutProgress(state);
    const actions = planRollout({
      ds,
      nodes: state.views,
      currentHash: HASH,
      now: NOW,
      allowance: progress.allowance,
    });
    expect(actions.map((a) => (a.type === 'delete' ? a.node : a.type))).toEqual(['n01']);
  });
});
