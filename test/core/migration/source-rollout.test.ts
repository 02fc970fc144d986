import type { V1ControllerRevision, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { controllerRefFor } from '../../../lib/core/controller-ref.ts';
import { controllerRevisionFor, revisionData } from '../../../lib/core/controller-revision.ts';
import { sourceRollout } from '../../../lib/core/migration/source-rollout.ts';
import { aDaemonSet } from '../../support/builders.ts';

const ds = {
  ...aDaemonSet('agent', { namespace: 'ns' }),
  metadata: { name: 'agent', namespace: 'ns', uid: 'u-ds', generation: 2 },
};
const counts = { currentNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0 };
const settledStatus = { ...counts, observedGeneration: 2, desiredNumberScheduled: 2 };

function revision(name: string, hash: string, number: number, current: boolean): V1ControllerRevision {
  const r = controllerRevisionFor(ds, number);
  return {
    ...r,
    metadata: { ...r.metadata, name, labels: { 'controller-revision-hash': hash } },
    data: current
      ? revisionData(ds)
      : { spec: { template: { $patch: 'replace', spec: { containers: [] } } } },
  };
}

function pod(uid: string, hash: string, ready = true): V1Pod {
  return {
    metadata: {
      uid,
      labels: { app: 'agent', 'controller-revision-hash': hash },
      ownerReferences: [controllerRefFor(ds)],
    },
    status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}

const revisions = [revision('agent-old', 'old', 1, false), revision('agent-new', 'new', 2, true)];

describe('sourceRollout', () => {
  it('finds the revision holding the template and sees a settled DaemonSet as settled', () => {
    const state = sourceRollout({ ...ds, status: settledStatus }, revisions, [
      pod('a', 'new'),
      pod('b', 'new'),
    ]);
    expect(state.currentRevision).toEqual({
      name: 'agent-new',
      hash: 'new',
      revision: 2,
      labels: { 'controller-revision-hash': 'new' },
    });
    expect(state.pods.map((p) => p.metadata?.uid)).toEqual(['a', 'b']);
    expect(state.unsettled).toEqual([]);
  });

  it('says what is under way: an unobserved generation, old pods, unready pods, nodes without a pod', () => {
    const state = sourceRollout(
      { ...ds, status: { ...counts, observedGeneration: 1, desiredNumberScheduled: 3 } },
      revisions,
      [pod('a', 'old'), pod('b', 'new', false)],
    );
    expect(state.unsettled).toEqual([
      'its controller has not yet acted on generation 2',
      '1 of its 2 pods run an older revision than 2',
      '1 of its 2 pods are not ready',
      '1 of its 3 nodes have no pod yet',
    ]);
  });

  it('has no current revision when its controller has recorded none, and ignores others’ pods', () => {
    const stranger = { ...pod('c', 'new'), metadata: { uid: 'c', ownerReferences: [] } };
    const state = sourceRollout(
      { ...ds, status: settledStatus },
      [revisions[0] as V1ControllerRevision],
      [stranger],
    );
    expect(state.currentRevision).toBeUndefined();
    expect(state.pods).toEqual([]);
  });
});
