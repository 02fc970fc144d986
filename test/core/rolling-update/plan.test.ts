import type { V1DaemonSet, V1Node, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { Action } from '../../../lib/core/action.ts';
import { nodeViewsFor } from '../../../lib/core/node-view.ts';
import { planRollout } from '../../../lib/core/rolling-update/plan.ts';
import { aDaemonSet, aNode, aPod, type DaemonSetOptions } from '../../support/builders.ts';

const NOW = new Date('2026-01-02T00:00:00Z');
const HASH = 'newhash';
const secondsAgo = (s: number) => new Date(NOW.getTime() - s * 1000);

/** What a node holds: old/new pod, available or not (`-`), both, or nothing. */
type Slot = 'old' | 'old-' | 'new' | 'new-' | 'old+new' | 'old+new-' | 'none';

function podsFor(ds: V1DaemonSet, node: string, slot: Slot): V1Pod[] {
  const make = (kind: 'old' | 'new', available: boolean) =>
    aPod(`${node}-${kind}`, {
      owner: ds,
      nodeName: node,
      phase: 'Running',
      ready: available,
      readySince: secondsAgo(3600),
      creationTimestamp: secondsAgo(kind === 'old' ? 7200 : 60),
      labels: { 'controller-revision-hash': kind === 'new' ? HASH : 'oldhash' },
    });
  switch (slot) {
    case 'none':
      return [];
    case 'old+new':
      return [make('old', true), make('new', true)];
    case 'old+new-':
      return [make('old', true), make('new', false)];
    default:
      return [make(slot.startsWith('old') ? 'old' : 'new', !slot.endsWith('-'))];
  }
}

function rollout(
  options: DaemonSetOptions,
  slots: Slot[],
  nodeLabels: Record<string, string>[] = [],
): string[] {
  const ds = aDaemonSet('agent', options);
  const nodes: V1Node[] = slots.map((_, i) => aNode(`n${i + 1}`, { labels: nodeLabels[i] ?? {} }));
  const pods = slots.flatMap((slot, i) => podsFor(ds, `n${i + 1}`, slot));
  return summary(planRollout({ ds, nodes: nodeViewsFor(ds, nodes, pods), currentHash: HASH, now: NOW }));
}

function summary(actions: readonly Action[]): string[] {
  return actions.map((a) =>
    a.type === 'create'
      ? `create@${a.node}`
      : a.type === 'delete'
        ? `delete:${a.name}`
        : `requeue:${a.afterSeconds}`,
  );
}

const rolling = (rollingUpdate: Record<string, unknown>): DaemonSetOptions => ({
  updateStrategy: { type: 'RollingUpdate', rollingUpdate },
});
const withAnnotations = (
  annotations: Record<string, string>,
  base: DaemonSetOptions = {},
): DaemonSetOptions => ({
  ...base,
  annotations,
});

const OLD4: Slot[] = ['old', 'old', 'old', 'old'];

interface Case {
  name: string;
  options: DaemonSetOptions;
  slots: Slot[];
  labels?: Record<string, string>[];
  expected: string[];
}

describe('planRollout', () => {
  it.each<Case>([
    {
      name: 'maxUnavailable 1 → one old pod at a time',
      options: {},
      slots: OLD4,
      expected: ['delete:n1-old'],
    },
    {
      name: 'maxUnavailable 2 → two',
      options: rolling({ maxUnavailable: 2 }),
      slots: OLD4,
      expected: ['delete:n1-old', 'delete:n2-old'],
    },
    {
      name: 'maxUnavailable 25% of 5 nodes rounds up to 2',
      options: rolling({ maxUnavailable: '25%' }),
      slots: [...OLD4, 'old'] as Slot[],
      expected: ['delete:n1-old', 'delete:n2-old'],
    },
    {
      name: 'maxUnavailable 10% of 5 nodes rounds up to 1',
      options: rolling({ maxUnavailable: '10%' }),
      slots: [...OLD4, 'old'] as Slot[],
      expected: ['delete:n1-old'],
    },
    {
      name: 'maxUnavailable 0 and maxSurge 0 fall back to 1',
      options: rolling({ maxUnavailable: 0, maxSurge: 0 }),
      slots: OLD4,
      expected: ['delete:n1-old'],
    },
    {
      name: 'an unavailable new pod uses up the budget',
      options: {},
      slots: ['new-', 'old', 'old'] as Slot[],
      expected: [],
    },
    {
      name: 'a node without a pod uses up the budget',
      options: {},
      slots: ['none', 'old'] as Slot[],
      expected: [],
    },
    {
      name: 'unavailable old pods are always replaced (upstream), available ones only within budget',
      options: {},
      slots: ['old', 'old-', 'old', 'old-'] as Slot[],
      expected: ['delete:n2-old', 'delete:n4-old'],
    },
    {
      name: 'strict: unavailable old pods are replaced within maxUnavailable only',
      options: rolling({ maxUnavailable: 1, strict: true }),
      slots: ['old', 'old-', 'old', 'old-'] as Slot[],
      expected: ['delete:n2-old'],
    },
    {
      name: 'strict through the annotation on apps/v1',
      options: withAnnotations({ 'everynode.dev/strict': 'true' }),
      slots: ['new-', 'old-', 'old'] as Slot[],
      expected: [],
    },
    {
      name: 'OnDelete → nothing',
      options: { updateStrategy: { type: 'OnDelete' } },
      slots: OLD4,
      expected: [],
    },
    {
      name: 'paused → nothing',
      options: rolling({ maxUnavailable: 4, paused: true }),
      slots: OLD4,
      expected: [],
    },
    {
      name: 'partition 3 keeps three old pods',
      options: rolling({ maxUnavailable: 4, partition: 3 }),
      slots: OLD4,
      expected: ['delete:n1-old'],
    },
    {
      name: 'partition counts pods already updated',
      options: withAnnotations({ 'everynode.dev/partition': '2' }, rolling({ maxUnavailable: 4 })),
      slots: ['new', 'old', 'old', 'old'] as Slot[],
      expected: ['delete:n2-old'],
    },
    {
      name: 'partition equal to the old pods → nothing',
      options: rolling({ maxUnavailable: 4, partition: 4 }),
      slots: OLD4,
      expected: [],
    },
    {
      name: 'rollout selector: only matching nodes are rolled',
      options: rolling({ maxUnavailable: 4, selector: { matchLabels: { canary: 'true' } } }),
      slots: OLD4,
      labels: [{}, { canary: 'true' }, {}, { canary: 'true' }],
      expected: ['delete:n2-old', 'delete:n4-old'],
    },
    {
      name: 'rollout selector annotation in kubectl syntax',
      options: withAnnotations(
        { 'everynode.dev/rollout-selector': 'zone in (a)' },
        rolling({ maxUnavailable: 4 }),
      ),
      slots: OLD4,
      labels: [{ zone: 'b' }, { zone: 'a' }, {}, {}],
      expected: ['delete:n2-old'],
    },
    {
      name: 'burstReplicas caps the deletes of one step',
      options: withAnnotations({ 'everynode.dev/burst-replicas': '1' }, rolling({ maxUnavailable: 4 })),
      slots: OLD4,
      expected: ['delete:n1-old'],
    },
    { name: 'everything updated → nothing', options: {}, slots: ['new', 'new'] as Slot[], expected: [] },
    {
      name: 'surge: a new pod beside one available old pod, no delete',
      options: rolling({ maxSurge: 1, maxUnavailable: 0 }),
      slots: ['old', 'old', 'old'] as Slot[],
      expected: ['create@n1'],
    },
    {
      name: 'surge: the old pod goes once its new pod is available; the next node surges',
      options: rolling({ maxSurge: 1, maxUnavailable: 0 }),
      slots: ['old+new', 'old', 'old'] as Slot[],
      expected: ['delete:n1-old', 'create@n2'],
    },
    {
      name: 'surge: a new pod not yet available uses up maxSurge',
      options: rolling({ maxSurge: 1, maxUnavailable: 0 }),
      slots: ['old+new-', 'old', 'old'] as Slot[],
      expected: [],
    },
    {
      name: 'surge: unavailable old pods get a new pod beyond maxSurge (upstream)',
      options: rolling({ maxSurge: 1, maxUnavailable: 0 }),
      slots: ['old', 'old-', 'old-'] as Slot[],
      expected: ['create@n2', 'create@n3', 'create@n1'],
    },
    {
      name: 'surge strict: unavailable old pods count against maxSurge',
      options: rolling({ maxSurge: 1, maxUnavailable: 0, strict: true }),
      slots: ['old', 'old-', 'old-'] as Slot[],
      expected: ['create@n2'],
    },
    {
      name: 'surge 50% of 3 nodes rounds up to 2',
      options: rolling({ maxSurge: '50%', maxUnavailable: 0 }),
      slots: ['old', 'old', 'old'] as Slot[],
      expected: ['create@n1', 'create@n2'],
    },
  ])('$name', ({ options, slots, labels, expected }) => {
    expect(rollout(options, slots, labels)).toEqual(expected);
  });

  it('waits for minReadySeconds: a new pod ready for 10 s of 60 blocks and requeues', () => {
    const ds = aDaemonSet('agent', { minReadySeconds: 60 });
    const nodes = [aNode('n1'), aNode('n2')];
    const pods = [
      aPod('n1-new', {
        owner: ds,
        nodeName: 'n1',
        phase: 'Running',
        readySince: secondsAgo(10),
        labels: { 'controller-revision-hash': HASH },
      }),
      aPod('n2-old', {
        owner: ds,
        nodeName: 'n2',
        phase: 'Running',
        readySince: secondsAgo(3600),
        labels: { 'controller-revision-hash': 'old' },
      }),
    ];
    const actions = planRollout({ ds, nodes: nodeViewsFor(ds, nodes, pods), currentHash: HASH, now: NOW });
    expect(summary(actions)).toEqual(['requeue:51']);
  });

  it('deletes a pod it counted available by uid alone, and one it counted unavailable only as listed', () => {
    // Any change to an available pod since the listing can only make it unavailable or terminating
    // (only the DaemonSet step moves a revision label): deleting it still spends the slot planned.
    // An unavailable pod that turned available would spend one the plan did not give.
    const ds = aDaemonSet('agent', rolling({ maxUnavailable: 2 }));
    const nodes = [aNode('n1'), aNode('n2')];
    const pods = [...podsFor(ds, 'n1', 'old'), ...podsFor(ds, 'n2', 'old-')];
    const actions = planRollout({ ds, nodes: nodeViewsFor(ds, nodes, pods), currentHash: HASH, now: NOW });
    const preconditions = actions.flatMap((a) =>
      a.type === 'delete' ? [`${a.name}: ${a.uid === '' ? '-' : 'uid'} ${a.resourceVersion || '-'}`] : [],
    );
    expect(preconditions.sort()).toEqual(['n1-old: uid -', 'n2-old: uid 1']);
  });

  it('surge creates are pinned daemon pods of the current revision', () => {
    const ds = aDaemonSet('agent', rolling({ maxSurge: 1, maxUnavailable: 0 }));
    const pods = podsFor(ds, 'n1', 'old');
    const [create] = planRollout({
      ds,
      nodes: nodeViewsFor(ds, [aNode('n1')], pods),
      currentHash: HASH,
      now: NOW,
    });
    expect(create?.type === 'create' && create.pod.metadata?.labels?.['controller-revision-hash']).toBe(HASH);
    expect(create?.type === 'create' && create.pod.metadata?.ownerReferences?.[0]?.uid).toBe(
      ds.metadata?.uid,
    );
  });

  it('surge creates on a gated node tolerate the gate keys, at the same revision and name', () => {
    const KEY = 'example.com/agent-not-ready';
    const ds = aDaemonSet('agent', rolling({ maxSurge: 1, maxUnavailable: 0 }));
    const gated = aNode('n1', { taints: [{ key: KEY, effect: 'NoSchedule' }] });
    const pods = podsFor(ds, 'n1', 'old');
    const state = { ds, currentHash: HASH, now: NOW };
    const withKey = planRollout({ ...state, nodes: nodeViewsFor(ds, [gated], pods, [KEY]), gateKeys: [KEY] });
    const plain = planRollout({ ...state, nodes: nodeViewsFor(ds, [aNode('n1')], pods) });
    // Without the key the gated node should not run the pod: its old pod goes, nothing is created.
    expect(summary(planRollout({ ...state, nodes: nodeViewsFor(ds, [gated], pods) }))).toEqual([
      'delete:n1-old',
    ]);
    expect(summary(withKey)).toEqual(['create@n1']);
    const [create] = withKey;
    const [plainCreate] = plain;
    if (create?.type !== 'create' || plainCreate?.type !== 'create') throw new Error('no surge create');
    expect(create.pod.spec?.tolerations).toEqual([
      ...(plainCreate.pod.spec?.tolerations ?? []),
      { key: KEY, operator: 'Exists', effect: 'NoSchedule' },
    ]);
    expect(create.pod.metadata).toEqual(plainCreate.pod.metadata);
  });
});
