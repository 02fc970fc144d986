import type { V1DaemonSet, V1Node, V1Pod } from '@kubernetes/client-node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Action } from '../../lib/core/action.ts';
import { FAILURE_BACKOFF_ANNOTATION } from '../../lib/core/failure-backoff.ts';
import { planPair } from '../../lib/core/pair-plan.ts';
import { aDaemonSet, aNode, aPod } from '../support/builders.ts';

const NOW = new Date('2026-01-02T00:00:00Z');
const HASH = 'newhash';

const strategies = {
  unavailable: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
  surge: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
  onDelete: { type: 'OnDelete' },
} as const;

const podArb = fc.record({
  phase: fc.constantFrom('Pending', 'Running', 'Running', 'Succeeded', 'Failed' as const),
  ready: fc.boolean(),
  current: fc.boolean(),
  terminating: fc.boolean(),
  foreign: fc.boolean(),
  scheduled: fc.boolean(),
  ageSeconds: fc.integer({ min: 0, max: 7200 }),
  failures: fc.option(fc.integer({ min: 0, max: 12 })),
});

const stateArb = fc.record({
  strategy: fc.constantFrom('unavailable', 'surge', 'onDelete' as const),
  minReadySeconds: fc.constantFrom(0, 30),
  node: fc.constantFrom('plain', 'NoSchedule', 'NoExecute', 'gone' as const),
  pods: fc.array(podArb, { maxLength: 4 }),
});

type Generated = typeof podArb extends fc.Arbitrary<infer T> ? T : never;

function buildPod(ds: V1DaemonSet, spec: Generated, i: number): V1Pod {
  const owner = spec.foreign ? aDaemonSet('other') : ds;
  return aPod(`p${i}`, {
    owner,
    ...(spec.scheduled ? { nodeName: 'n1' } : {}),
    phase: spec.phase as 'Pending' | 'Running' | 'Succeeded' | 'Failed',
    ready: spec.ready && spec.phase === 'Running',
    readySince: new Date(NOW.getTime() - spec.ageSeconds * 500),
    labels: { 'controller-revision-hash': spec.current ? HASH : 'oldhash' },
    creationTimestamp: new Date(NOW.getTime() - spec.ageSeconds * 1000),
    ...(spec.terminating ? { deletionTimestamp: NOW } : {}),
    ...(spec.failures !== null
      ? { annotations: { [FAILURE_BACKOFF_ANNOTATION]: `1/${spec.failures}` } }
      : {}),
  });
}

function buildNode(kind: string): V1Node | undefined {
  if (kind === 'gone') return undefined;
  if (kind === 'plain') return aNode('n1');
  return aNode('n1', { taints: [{ key: 'dedicated', effect: kind }] });
}

/** The cluster after the executor ran `actions`: deletes remove, creates add a bound Running+Ready pod. */
function apply(pods: readonly V1Pod[], actions: readonly Action[]): V1Pod[] {
  const deleted = new Set(actions.flatMap((a) => (a.type === 'delete' ? [a.name] : [])));
  const created = actions.flatMap((a) => {
    if (a.type !== 'create') return [];
    const pod = structuredClone(a.pod);
    pod.metadata = {
      ...pod.metadata,
      uid: `uid-${pod.metadata?.name}`,
      resourceVersion: '1',
      creationTimestamp: NOW,
    };
    pod.spec = { containers: [], ...pod.spec, nodeName: a.node };
    pod.status = {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: NOW }],
    };
    return [pod];
  });
  return [...pods.filter((p) => !deleted.has(p.metadata?.name ?? '')), ...created];
}

describe('planPair (properties)', () => {
  it('applying a plan and planning again yields no create or delete', () => {
    fc.assert(
      fc.property(stateArb, (generated) => {
        const ds = aDaemonSet('agent', {
          updateStrategy: strategies[generated.strategy],
          minReadySeconds: generated.minReadySeconds,
        });
        const node = buildNode(generated.node);
        const pods = generated.pods.map((p, i) => buildPod(ds, p, i));
        const state = { ds, node, pods, currentHash: HASH, now: NOW, nodeName: 'n1' };
        const after = apply(pods, planPair(state));
        const again = planPair({ ...state, pods: after }).filter((a) => a.type !== 'requeue');
        expect(again).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it('never plans more than one create, and never touches pods of other controllers', () => {
    fc.assert(
      fc.property(stateArb, (generated) => {
        const ds = aDaemonSet('agent', { updateStrategy: strategies[generated.strategy] });
        const pods = generated.pods.map((p, i) => buildPod(ds, p, i));
        const actions = planPair({
          ds,
          node: buildNode(generated.node),
          pods,
          currentHash: HASH,
          now: NOW,
          nodeName: 'n1',
        });
        const foreign = new Set(generated.pods.flatMap((p, i) => (p.foreign ? [`p${i}`] : [])));
        expect(actions.filter((a) => a.type === 'create').length).toBeLessThanOrEqual(1);
        expect(actions.filter((a) => a.type === 'delete' && foreign.has(a.name))).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
