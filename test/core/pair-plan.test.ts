import type { V1DaemonSet, V1Node, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { Action } from '../../lib/core/action.ts';
import { daemonPodName } from '../../lib/core/daemon-pod.ts';
import { FAILURE_BACKOFF_ANNOTATION } from '../../lib/core/failure-backoff.ts';
import { planPair } from '../../lib/core/pair-plan.ts';
import { aDaemonSet, aNode, aPod, type PodOptions } from '../support/builders.ts';

const NOW = new Date('2026-01-02T00:00:00Z');
const HASH = 'newhash';
const secondsAgo = (s: number) => new Date(NOW.getTime() - s * 1000);
const ds = aDaemonSet('agent');
const surgeDs = aDaemonSet('agent', {
  updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
});
const surgeSlowDs = aDaemonSet('agent', {
  minReadySeconds: 30,
  updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
});

/** A pod of `owner` on n1 at `hash` (current by default), Running and Ready unless told otherwise. */
function pod(name: string, options: PodOptions & { hash?: string } = {}, owner: V1DaemonSet = ds): V1Pod {
  const { hash, ...rest } = options;
  return aPod(name, {
    owner,
    nodeName: 'n1',
    phase: 'Running',
    labels: { 'controller-revision-hash': hash ?? HASH },
    creationTimestamp: secondsAgo(3600),
    readySince: secondsAgo(3600),
    ...rest,
  });
}

/** Actions in a compact, order-insensitive form: create@attempt-name, delete:name, requeue:s. */
function summary(actions: readonly Action[]): string[] {
  return actions
    .map((a) => {
      if (a.type === 'create') return `create:${a.pod.metadata?.name}`;
      if (a.type === 'delete') return `delete:${a.name}`;
      return `requeue:${a.afterSeconds}`;
    })
    .sort();
}

const newName = (attempt = 0) => daemonPodName('agent', 'n1', HASH, attempt);

interface Case {
  name: string;
  ds?: V1DaemonSet;
  node?: V1Node;
  nodeGone?: boolean;
  pods: V1Pod[];
  expected: string[];
}

const taintedNode = (effect: string) => aNode('n1', { taints: [{ key: 'dedicated', value: 'x', effect }] });

describe('planPair', () => {
  const cases: Case[] = [
    { name: 'no pod and shouldRun → create', pods: [], expected: [`create:${newName()}`] },
    {
      name: 'no pod on a NoSchedule-tainted node → nothing',
      node: taintedNode('NoSchedule'),
      pods: [],
      expected: [],
    },
    { name: 'one running pod → nothing', pods: [pod('p1')], expected: [] },
    {
      name: 'running pod stays on a node tainted NoSchedule (shouldContinueRunning)',
      node: taintedNode('NoSchedule'),
      pods: [pod('p1')],
      expected: [],
    },
    {
      name: 'untolerated NoExecute taint → delete all pods',
      node: taintedNode('NoExecute'),
      pods: [pod('p1'), pod('p2', { hash: 'old' })],
      expected: ['delete:p1', 'delete:p2'],
    },
    {
      name: 'node gone → delete its pods, terminating ones left alone',
      nodeGone: true,
      pods: [pod('p1'), pod('p2', { deletionTimestamp: secondsAgo(1) })],
      expected: ['delete:p1'],
    },
    {
      name: 'failed pod without record → delete and recreate under the next attempt',
      pods: [pod(newName(), { phase: 'Failed', ready: false })],
      expected: [`delete:${newName()}`, `create:${newName(1)}`],
    },
    {
      name: 'failed pod within backoff (3rd failure, 4 s, created 2 s ago) → requeue after 2 s',
      pods: [
        pod('p1', {
          phase: 'Failed',
          creationTimestamp: secondsAgo(2),
          annotations: { [FAILURE_BACKOFF_ANNOTATION]: '1/3' },
        }),
      ],
      expected: ['requeue:2'],
    },
    {
      name: 'failed pod past its backoff → delete and recreate',
      pods: [
        pod('p1', {
          phase: 'Failed',
          creationTimestamp: secondsAgo(5),
          annotations: { [FAILURE_BACKOFF_ANNOTATION]: '1/3' },
        }),
      ],
      expected: ['delete:p1', `create:${newName()}`],
    },
    {
      name: 'failed pod with a record of an older generation → replaced at once',
      pods: [
        pod('p1', {
          phase: 'Failed',
          creationTimestamp: secondsAgo(1),
          annotations: { [FAILURE_BACKOFF_ANNOTATION]: '0/9' },
        }),
      ],
      expected: ['delete:p1', `create:${newName()}`],
    },
    {
      name: 'succeeded pod → delete and recreate',
      pods: [pod(newName(), { phase: 'Succeeded' })],
      expected: [`delete:${newName()}`, `create:${newName(1)}`],
    },
    {
      name: 'two running pods → the newer is deleted',
      pods: [
        pod('young', { creationTimestamp: secondsAgo(10) }),
        pod('old', { creationTimestamp: secondsAgo(100) }),
      ],
      expected: ['delete:young'],
    },
    {
      name: 'same age → the name decides; a scheduled pod beats an older unscheduled one',
      pods: [
        pod('b'),
        pod('a'),
        pod('unscheduled', { nodeName: undefined, creationTimestamp: secondsAgo(9999) }),
      ],
      expected: ['delete:b', 'delete:unscheduled'],
    },
    {
      name: 'only a terminating pod → wait',
      pods: [pod('p1', { deletionTimestamp: secondsAgo(1) })],
      expected: [],
    },
    {
      name: 'failed pod replaced but a live pod still terminating → delete only, create later',
      pods: [pod('f', { phase: 'Failed' }), pod('t', { deletionTimestamp: secondsAgo(1) })],
      expected: ['delete:f'],
    },
    {
      name: 'terminal pod already being deleted is ignored; the new pod avoids its name',
      pods: [pod(newName(), { phase: 'Failed', deletionTimestamp: secondsAgo(1) })],
      expected: [`create:${newName(1)}`],
    },
    {
      name: "another controller's pod is never touched",
      pods: [pod('foreign', {}, aDaemonSet('other'))],
      expected: [`create:${newName()}`],
    },
    {
      name: 'DaemonSet being deleted → nothing',
      ds: { ...ds, metadata: { ...ds.metadata, deletionTimestamp: NOW } },
      pods: [],
      expected: [],
    },
    {
      name: 'surge: old ready and new not yet ready → keep both',
      ds: surgeDs,
      pods: [
        pod('old', { hash: 'old' }, surgeDs),
        pod('new', { ready: false, creationTimestamp: secondsAgo(5) }, surgeDs),
      ],
      expected: [],
    },
    {
      name: 'surge: new available → old deleted',
      ds: surgeDs,
      pods: [pod('old', { hash: 'old' }, surgeDs), pod('new', { creationTimestamp: secondsAgo(5) }, surgeDs)],
      expected: ['delete:old'],
    },
    {
      name: 'surge: old not ready → old deleted',
      ds: surgeDs,
      pods: [pod('old', { hash: 'old', ready: false }, surgeDs), pod('new', { ready: false }, surgeDs)],
      expected: ['delete:old'],
    },
    {
      name: 'surge: keeps the oldest old and oldest new, deletes the rest',
      ds: surgeDs,
      pods: [
        pod('old1', { hash: 'old', creationTimestamp: secondsAgo(300) }, surgeDs),
        pod('old2', { hash: 'old', creationTimestamp: secondsAgo(200) }, surgeDs),
        pod('new1', { ready: false, creationTimestamp: secondsAgo(20) }, surgeDs),
        pod('new2', { ready: false, creationTimestamp: secondsAgo(10) }, surgeDs),
      ],
      expected: ['delete:new2', 'delete:old2'],
    },
    {
      name: 'surge with minReadySeconds: new ready 10 s of 30 → requeue for when it is available',
      ds: surgeSlowDs,
      pods: [
        pod('old', { hash: 'old' }, surgeSlowDs),
        pod('new', { readySince: secondsAgo(10) }, surgeSlowDs),
      ],
      expected: ['requeue:21'],
    },
    {
      name: 'surge: only a terminating pod → create beside it',
      ds: surgeDs,
      pods: [pod(newName(), { deletionTimestamp: secondsAgo(1) }, surgeDs)],
      expected: [`create:${newName(1)}`],
    },
  ];

  it.each(cases)('$name', ({ ds: dsOfCase, node, nodeGone, pods, expected }) => {
    const state = {
      ds: dsOfCase ?? ds,
      node: nodeGone ? undefined : (node ?? aNode('n1')),
      pods,
      currentHash: HASH,
      now: NOW,
      nodeName: 'n1',
    };
    expect(summary(planPair(state))).toEqual([...expected].sort());
  });

  it('deletes carry uid and resourceVersion preconditions and the node', () => {
    const actions = planPair({
      ds,
      node: aNode('n1'),
      pods: [
        pod('old', { uid: 'u-1', resourceVersion: '42' }),
        pod('young', { uid: 'u-2', resourceVersion: '7', creationTimestamp: secondsAgo(1) }),
      ],
      currentHash: HASH,
      now: NOW,
    });
    expect(actions).toEqual([
      expect.objectContaining({
        type: 'delete',
        node: 'n1',
        namespace: 'default',
        name: 'young',
        uid: 'u-2',
        resourceVersion: '7',
      }),
    ]);
  });

  it('the replacement of a failed pod carries the next failure record and is pinned to the node', () => {
    const failed = pod('p1', {
      phase: 'Failed',
      creationTimestamp: secondsAgo(5),
      annotations: { [FAILURE_BACKOFF_ANNOTATION]: '1/3' },
    });
    const create = planPair({ ds, node: aNode('n1'), pods: [failed], currentHash: HASH, now: NOW }).find(
      (a) => a.type === 'create',
    );
    expect(create?.type === 'create' && create.pod.metadata?.annotations?.[FAILURE_BACKOFF_ANNOTATION]).toBe(
      '1/4',
    );
    expect(create?.type === 'create' && create.pod.metadata?.labels?.['controller-revision-hash']).toBe(HASH);
    expect(
      create?.type === 'create' &&
        create.pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution
          ?.nodeSelectorTerms,
    ).toEqual([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }]);
  });
});

describe('planPair with node readiness gate keys', () => {
  const KEY = 'example.com/agent-not-ready';
  const gate = (effect: string, value?: string) => ({ key: KEY, effect, ...(value ? { value } : {}) });
  const gatedNode = (...taints: { key: string; effect: string; value?: string }[]) => aNode('n1', { taints });
  const create = `create:${newName()}`;

  it.each([
    {
      name: 'gate taint, no pod',
      node: gatedNode(gate('NoSchedule')),
      pods: [],
      withKey: [create],
      without: [],
    },
    {
      name: 'gate taint with a value, no pod (Exists ignores it)',
      node: gatedNode(gate('NoSchedule', 'booting')),
      pods: [],
      withKey: [create],
      without: [],
    },
    {
      name: 'gate taint, a running pod: kept either way',
      node: gatedNode(gate('NoSchedule')),
      pods: [pod('p1')],
      withKey: [],
      without: [],
    },
    {
      name: 'gate taint and another NoSchedule taint, no pod: the other keeps it off',
      node: gatedNode(gate('NoSchedule'), { key: 'dedicated', value: 'x', effect: 'NoSchedule' }),
      pods: [],
      withKey: [],
      without: [],
    },
    {
      name: 'gate key tainted NoExecute: not tolerated, the pod goes either way',
      node: gatedNode(gate('NoExecute')),
      pods: [pod('p1')],
      withKey: ['delete:p1'],
      without: ['delete:p1'],
    },
    {
      name: 'gate key tainted PreferNoSchedule: ignored either way',
      node: gatedNode(gate('PreferNoSchedule')),
      pods: [],
      withKey: [create],
      without: [create],
    },
  ])('$name', ({ node, pods, withKey, without }) => {
    const state = { ds, node, pods, currentHash: HASH, now: NOW, nodeName: 'n1' };
    expect(summary(planPair({ ...state, gateKeys: [KEY] }))).toEqual(withKey);
    expect(summary(planPair(state))).toEqual(without);
  });

  it('creates, the replacement of a failed pod too, carry the toleration; the revision stays', () => {
    const failed = pod('p1', { phase: 'Failed', creationTimestamp: secondsAgo(3600) });
    for (const pods of [[], [failed]]) {
      const state = { ds, node: gatedNode(gate('NoSchedule')), pods, currentHash: HASH, now: NOW };
      const created = planPair({ ...state, gateKeys: [KEY] }).find((a) => a.type === 'create');
      const plain = planPair({ ...state, node: aNode('n1') }).find((a) => a.type === 'create');
      if (created?.type !== 'create' || plain?.type !== 'create') throw new Error('no create planned');
      expect(created.pod.spec?.tolerations).toEqual([
        ...(plain.pod.spec?.tolerations ?? []),
        { key: KEY, operator: 'Exists', effect: 'NoSchedule' },
      ]);
      expect(created.pod.metadata).toEqual(plain.pod.metadata);
      expect(created.pod.metadata?.labels?.['controller-revision-hash']).toBe(HASH);
    }
    expect(ds.spec?.template.spec?.tolerations).toBeUndefined();
  });
});
