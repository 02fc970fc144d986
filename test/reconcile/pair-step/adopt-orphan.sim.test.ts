/**
 * The pair step given an orphan (`orphan` in the pair message, from the relay's orphan watch) over
 * the simulated cluster through the real client: it adopts the pod as upstream's ClaimPods does,
 * then keeps it as the node's daemon pod or deletes it when it is extra.
 */
import type { V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controllerOf } from '../../../lib/core/controller-ref.ts';
import { NODE_LABEL, nodeLabelValue } from '../../../lib/core/daemon-pod.ts';
import { DAEMONSET_UID_LABEL } from '../../../lib/core/daemon-set.ts';
import type { PairMessage } from '../../../lib/messages/work-message.ts';
import { reconcilePair } from '../../../lib/reconcile/pair-step/pair-step.ts';
import { aDaemonSet } from '../../support/builders.ts';
import { createDaemonSet, isReady, pairMessage, podsOf, waitFor } from '../../support/reconcile-cluster.ts';
import type { Harness } from '../../support/reconcile-harness.ts';
import { coldDeps, startStepHarness } from '../../support/reconcile-step-deps.ts';
import { newPod } from '../../support/store-test-helpers.ts';

describe('the pair step with an orphan', () => {
  let harness: Harness;
  let agent: V1DaemonSet;

  const uidOf = (object: { metadata?: { uid?: string } }) => object.metadata?.uid ?? '';
  /** The pod named `name` as stored now (undefined when gone). */
  const stored = (name: string): V1Pod | undefined =>
    harness.sim.store.list('pods', { namespace: 'default' }).find((pod) => pod.metadata.name === name) as
      | V1Pod
      | undefined;
  /** A hand-made pod with the agent's labels on `node`, stored; returns it. */
  const handMade = (name: string, node: string) =>
    harness.sim.store.create('pods', newPod(name, { labels: { app: 'agent' }, nodeName: node })) as V1Pod;
  const withOrphan = (node: string, pod: V1Pod): PairMessage => ({
    ...(pairMessage(agent, node) as PairMessage),
    orphan: { name: pod.metadata?.name ?? '', uid: uidOf(pod) },
  });

  beforeAll(async () => {
    harness = await startStepHarness();
    agent = createDaemonSet(harness, aDaemonSet('agent'));
  });
  afterAll(async () => harness?.stop());

  it("adopts an orphan on a node without the DaemonSet's pod and keeps it as that pod", async () => {
    harness.sim.nodes.add('o-keep');
    const orphan = handMade('keep-me', 'o-keep');
    const report = await reconcilePair(coldDeps(harness.deps), withOrphan('o-keep', orphan));
    expect([report.adopted, report.created, report.deleted]).toEqual([1, 0, 0]);
    const adopted = stored('keep-me');
    expect(controllerOf(adopted ?? {})?.uid).toBe(uidOf(agent));
    expect(adopted?.metadata?.labels).toMatchObject({
      app: 'agent',
      [DAEMONSET_UID_LABEL]: uidOf(agent),
      [NODE_LABEL]: nodeLabelValue('o-keep'),
    });
    // The next step of the pair sees it as the pair's pod: nothing to create.
    const again = await reconcilePair(coldDeps(harness.deps), pairMessage(agent, 'o-keep') as PairMessage);
    expect(again.created).toBe(0);
  });

  it("adopts and deletes an orphan on a node that runs the DaemonSet's pod already", async () => {
    harness.sim.nodes.add('o-extra');
    await reconcilePair(coldDeps(harness.deps), pairMessage(agent, 'o-extra') as PairMessage);
    const own = () =>
      podsOf(harness, uidOf(agent)).filter(
        (pod) => pod.spec?.nodeName === 'o-extra' && !pod.metadata?.deletionTimestamp,
      );
    await waitFor('the agent ready on o-extra', () => own().some(isReady));
    const [daemonPod] = own();
    const orphan = handMade('extra', 'o-extra');
    // Started by the kubelet first: a pod whose status keeps changing while the step plans makes it
    // give up with a retryable PairConflictError (the queue redelivers it), not the outcome tested.
    await waitFor('the orphan ready on o-extra', () => isReady(stored('extra') ?? {}));
    const report = await reconcilePair(coldDeps(harness.deps), withOrphan('o-extra', orphan));
    expect([report.adopted, report.created, report.deleted]).toEqual([1, 0, 1]);
    const extra = stored('extra');
    expect(extra === undefined || extra.metadata?.deletionTimestamp !== undefined).toBe(true);
    expect(own().map(uidOf)).toEqual([uidOf(daemonPod ?? {})]);
  });

  it('leaves an orphan alone that another controller has taken, or that is gone', async () => {
    harness.sim.nodes.add('o-taken');
    const orphan = handMade('taken', 'o-taken');
    const owner = { apiVersion: 'v1', kind: 'Pod', name: 'keep-me', uid: uidOf(stored('keep-me') ?? {}) };
    harness.sim.store.mutate('pods', 'default', 'taken', (pod) => {
      pod.metadata.ownerReferences = [{ ...owner, controller: true }];
    });
    const report = await reconcilePair(coldDeps(harness.deps), withOrphan('o-taken', orphan));
    expect(report.adopted).toBe(0);
    expect(controllerOf(stored('taken') ?? {})?.name).toBe('keep-me');
    const gone = { ...orphan, metadata: { ...orphan.metadata, name: 'never-was', uid: 'no-such-uid' } };
    const none = await reconcilePair(coldDeps(harness.deps), withOrphan('o-taken', gone));
    expect(none.adopted).toBe(0);
  });
});
