/**
 * A reconcile harness whose DaemonSet steps keep their node LISTs and pod tables whatever their
 * size, with DaemonSet `agent` created and its pods on every node: for the tests of what a step
 * on kept reads does.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { expect } from 'vitest';
import { compareResourceVersions } from '../../lib/kube/resource-version.ts';
import type { DaemonSetMessage } from '../../lib/messages/work-message.ts';
import { reconcileDaemonSet } from '../../lib/reconcile/daemon-set-step/daemon-set-step.ts';
import { KeptNodeLists } from '../../lib/reconcile/memory/kept-node-lists.ts';
import { KEPT_PODS_BUDGET, KeptPodLists } from '../../lib/reconcile/memory/kept-pod-lists.ts';
import { aDaemonSet, aNode } from './builders.ts';
import { createDaemonSet, daemonSetMessage, podsOf } from './reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from './reconcile-harness.ts';

/** Starts the harness on `nodes`; resolves once `agent` runs a pod on each. */
export async function startKeptReadsHarness(
  nodes: readonly string[],
): Promise<{ harness: Harness; message: DaemonSetMessage }> {
  const harness = await startReconcileHarness({ nodes: nodes.map((name) => aNode(name)), pollWork: false });
  (harness.deps.memory as { keptNodes: KeptNodeLists }).keptNodes = new KeptNodeLists(0);
  (harness.deps.memory as { keptPods: KeptPodLists }).keptPods = new KeptPodLists(KEPT_PODS_BUDGET, 0);
  const message = daemonSetMessage(createDaemonSet(harness, aDaemonSet('agent'))) as DaemonSetMessage;
  await reconcileDaemonSet(harness.deps, message, Date.now());
  const uid = message.daemonSet.uid ?? '';
  const deadline = Date.now() + 10_000;
  while (podsOf(harness, uid).length < nodes.length && Date.now() < deadline) await harness.invokeOnce(1);
  expect(podsOf(harness, uid)).toHaveLength(nodes.length);
  return { harness, message };
}

/** The newest resourceVersion among `pods`: a trigger's version a kept table can reach. */
export function newestVersion(pods: readonly V1Pod[]): string | undefined {
  return pods
    .map((pod) => pod.metadata?.resourceVersion ?? '')
    .sort((a, b) => compareResourceVersions(a, b) ?? 0)
    .at(-1);
}
