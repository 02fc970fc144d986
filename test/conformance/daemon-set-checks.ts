/**
 * The judgements of upstream's DaemonSet e2e tests (test/e2e/apps/daemon_set.go and
 * test/e2e/framework/daemonset/fixtures.go, e2enode.GetReadySchedulableNodes), as pure functions of
 * the objects kubectl printed. Like upstream, which imports the controller's own predicates
 * (daemon.NodeShouldRunDaemonPod, daemon.Match, podutil.IsPodAvailable), they use the ports of
 * those in lib/core; a condition that is not met yet returns what is missing, for the timeout's
 * message, as upstream's condition functions log it.
 */
import type { V1ControllerRevision, V1DaemonSet, V1Node, V1Pod } from '@kubernetes/client-node';
import { expect } from 'vitest';
import { isControlledBy } from '../../lib/core/controller-ref.ts';
import { revisionMatches } from '../../lib/core/controller-revision.ts';
import { CONTROLLER_REVISION_HASH_LABEL } from '../../lib/core/daemon-set.ts';
import { nodeShouldRunDaemonPod } from '../../lib/core/placement.ts';
import { isPodAvailable } from '../../lib/core/pod-availability.ts';

/** The label prefix upstream's tests put on nodes (daemonsetLabelPrefix). */
export const DAEMONSET_LABEL_PREFIX = 'daemonset-';
/** upstream daemonsetNameLabel. */
export const DAEMONSET_NAME_LABEL = `${DAEMONSET_LABEL_PREFIX}name`;
/** upstream daemonsetColorLabel. */
export const DAEMONSET_COLOR_LABEL = `${DAEMONSET_LABEL_PREFIX}color`;

/** upstream metav1.IsControlledBy: the object's controller reference names `owner`'s uid. */
export { isControlledBy };

/** upstream e2edaemonset.SchedulableNodes: the nodes daemon.NodeShouldRunDaemonPod says should run `ds`. */
export function schedulableNodes(nodes: readonly V1Node[], ds: Readonly<V1DaemonSet>): string[] {
  return nodes
    .filter((node) => nodeShouldRunDaemonPod(node, ds).shouldRun)
    .map((n) => n.metadata?.name ?? '');
}

/**
 * upstream checkDaemonPodStateOnNodes with CheckDaemonPodOnNodes's state (podutil.IsPodAvailable):
 * exactly one available, not terminating pod of `ds` on each of `nodeNames`, and on no other node.
 */
export function daemonPodsOnNodes(
  pods: readonly V1Pod[],
  ds: Readonly<V1DaemonSet>,
  nodeNames: readonly string[],
  now: Date,
): true | string {
  const nodesToPodCount = new Map<string, number>();
  for (const pod of pods) {
    if (!isControlledBy(pod, ds) || pod.metadata?.deletionTimestamp) continue;
    if (!isPodAvailable(pod, ds.spec?.minReadySeconds ?? 0, now)) continue;
    const node = pod.spec?.nodeName ?? '';
    nodesToPodCount.set(node, (nodesToPodCount.get(node) ?? 0) + 1);
  }
  for (const node of nodeNames) {
    const count = nodesToPodCount.get(node) ?? 0;
    if (count !== 1) return `node ${node} is running ${count} available daemon pods, expected 1`;
  }
  if (nodesToPodCount.size !== nodeNames.length) {
    return `available daemon pods on ${[...nodesToPodCount.keys()].sort().join(', ')}; expected on exactly [${nodeNames.join(', ')}]`;
  }
  return true;
}

/** upstream e2enode.IsNodeReady: condition Ready True, NetworkUnavailable not True. */
function isNodeReady(node: Readonly<V1Node>): boolean {
  const conditions = node.status?.conditions ?? [];
  const status = (type: string) => conditions.find((c) => c.type === type)?.status;
  return status('Ready') === 'True' && status('NetworkUnavailable') !== 'True';
}

/**
 * upstream e2enode.GetReadySchedulableNodes: Ready, not cordoned, and without a NoSchedule or
 * NoExecute taint (a pod without tolerations could be scheduled there), sorted by name.
 */
export function readySchedulableNodes(nodes: readonly V1Node[]): V1Node[] {
  const untainted = (node: Readonly<V1Node>) =>
    !(node.spec?.taints ?? []).some((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute');
  return nodes
    .filter((node) => !node.spec?.unschedulable && isNodeReady(node) && untainted(node))
    .sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
}

/** upstream separateDaemonSetNodeLabels: the test's own labels (prefix `daemonset-`) and the others. */
export function separateDaemonSetNodeLabels(
  labels: Readonly<Record<string, string>> = {},
): [Record<string, string>, Record<string, string>] {
  const daemonSetLabels: Record<string, string> = {};
  const otherLabels: Record<string, string> = {};
  for (const [key, value] of Object.entries(labels)) {
    if (key.startsWith(DAEMONSET_LABEL_PREFIX)) daemonSetLabels[key] = value;
    else otherLabels[key] = value;
  }
  return [daemonSetLabels, otherLabels];
}

/**
 * upstream checkDaemonPodsImageAndAvailability: true once every node that should run `ds` has a
 * (not terminating) pod of `image`; throws — failing the wait at once, as upstream's condition
 * returns an error — when more than `maxUnavailable` of its not terminating pods are unavailable.
 */
export function daemonPodsImageAndAvailability(
  pods: readonly V1Pod[],
  ds: Readonly<V1DaemonSet>,
  nodes: readonly V1Node[],
  image: string,
  maxUnavailable: number,
  now: Date,
): true | string {
  let unavailablePods = 0;
  const nodesToUpdatedPodCount = new Map<string, number>();
  const wrong: string[] = [];
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp || !isControlledBy(pod, ds)) continue;
    const node = pod.spec?.nodeName ?? '';
    if (pod.spec?.containers[0]?.image !== image) wrong.push(`${pod.metadata?.name} on ${node}`);
    else nodesToUpdatedPodCount.set(node, (nodesToUpdatedPodCount.get(node) ?? 0) + 1);
    if (!isPodAvailable(pod, ds.spec?.minReadySeconds ?? 0, now)) unavailablePods++;
  }
  if (unavailablePods > maxUnavailable) {
    throw new Error(
      `number of unavailable pods: ${unavailablePods} is greater than maxUnavailable: ${maxUnavailable}`,
    );
  }
  const missing = schedulableNodes(nodes, ds).filter((node) => !nodesToUpdatedPodCount.get(node));
  return missing.length === 0
    ? true
    : `no pod of ${image} yet on ${missing.join(', ')}; wrong image: ${wrong.join(', ')}`;
}

/**
 * upstream checkDaemonSetPodsLabels: every pod not being deleted carries a controller-revision-hash
 * label, equal to `hash` when one is given.
 */
export function expectDaemonSetPodsLabels(pods: readonly V1Pod[], hash: string): void {
  for (const pod of pods.filter((p) => !p.metadata?.deletionTimestamp)) {
    const podHash = pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '';
    expect(podHash.length, `hash label of pod ${pod.metadata?.name}`).toBeGreaterThan(0);
    if (hash.length > 0) expect(podHash, `unexpected hash for pod ${pod.metadata?.name}`).toBe(hash);
  }
}

/**
 * upstream curHistory: every revision has a hash label, and exactly one of them holds the current
 * template of `ds` (daemon.Match); returns that one.
 */
export function curHistory(
  revisions: readonly V1ControllerRevision[],
  ds: Readonly<V1DaemonSet>,
): V1ControllerRevision {
  for (const revision of revisions) {
    expect(revision.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '').not.toBe('');
  }
  const current = revisions.filter((revision) => revisionMatches(ds, revision));
  expect(current, 'revisions holding the current template').toHaveLength(1);
  return current[0] as V1ControllerRevision;
}
