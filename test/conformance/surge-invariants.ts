/**
 * The invariants upstream's surge test ("should surge pods onto nodes when spec was updated and
 * update strategy is RollingUpdate", test/e2e/apps/daemon_set.go) checks on every look at the pods
 * during a maxSurge rollout, and its test of whether the rollout is done, as pure functions.
 */
import type { V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { isPodAvailable } from '../../lib/core/pod-availability.ts';
import { isControlledBy } from './daemon-set-checks.ts';

/** What the test remembers between looks. */
export interface SurgeMemory {
  /** uid of an old pod running beside a new one on its node → when that was first seen (ms). */
  readonly ageOfOldPod: Map<string, number>;
  /** uids of the pods the test deleted itself. */
  deliberatelyDeletedPods: Set<string>;
}

/** The rollout as one look saw it. */
export interface SurgeLook {
  /** Invariants violated. */
  readonly errors: string[];
  /** node → VERSION → pods not being deleted. */
  readonly nodesToVersions: Map<string, Map<string, number>>;
  /** node → VERSION → pods being deleted that the test did not delete. */
  readonly nodesToDeletedVersions: Map<string, Map<string, number>>;
  /** New pods that are unavailable or being deleted. */
  readonly newUnavailableCount: number;
}

/** The versions and limits of the rollout. */
export interface SurgeRollout {
  readonly oldVersion: string;
  readonly newVersion: string;
  readonly maxSurge: number;
  readonly maxSurgeOverlapMs: number;
}

const versionOf = (pod: Readonly<V1Pod>) => pod.spec?.containers[0]?.env?.[0]?.value ?? '';

function bump(counts: Map<string, Map<string, number>>, node: string, version: string): void {
  const versions = counts.get(node) ?? new Map<string, number>();
  versions.set(version, (versions.get(version) ?? 0) + 1);
  counts.set(node, versions);
}

/** Counts the pods of `ds` by node and version, and the unavailable ones by version. */
function countPods(
  pods: readonly V1Pod[],
  ds: Readonly<V1DaemonSet>,
  memory: SurgeMemory,
  rollout: SurgeRollout,
  now: Date,
) {
  const nodesToVersions = new Map<string, Map<string, number>>();
  const nodesToDeletedVersions = new Map<string, Map<string, number>>();
  const versions = new Set<string>();
  let newUnavailableCount = 0;
  let newDeliberatelyDeletedCount = 0;
  let oldUnavailableCount = 0;
  for (const pod of pods.filter((p) => isControlledBy(p, ds))) {
    const node = pod.spec?.nodeName ?? '';
    const uid = pod.metadata?.uid ?? '';
    const deleting = Boolean(pod.metadata?.deletionTimestamp);
    // Upstream means to count the versions here but fills a shadowing variable instead, so its
    // "at most 2 versions" check never fires; this one does what it says.
    versions.add(versionOf(pod));
    if (!deleting) bump(nodesToVersions, node, versionOf(pod));
    else if (!memory.deliberatelyDeletedPods.has(uid)) bump(nodesToDeletedVersions, node, versionOf(pod));
    const unavailable = deleting || !isPodAvailable(pod, ds.spec?.minReadySeconds ?? 0, now);
    if (versionOf(pod) === rollout.newVersion && unavailable) {
      if (memory.deliberatelyDeletedPods.has(uid)) newDeliberatelyDeletedCount++;
      newUnavailableCount++;
    } else if (versionOf(pod) !== rollout.newVersion && unavailable) oldUnavailableCount++;
  }
  return {
    nodesToVersions,
    nodesToDeletedVersions,
    versions,
    newUnavailableCount,
    newDeliberatelyDeletedCount,
    oldUnavailableCount,
  };
}

/**
 * Remembers since when each old pod runs beside a new one on its node (forgetting pods gone or no
 * longer beside one) and forgets deliberately deleted pods that are gone; returns the number of
 * pods being deleted per node that the test did not delete.
 */
function remember(
  pods: readonly V1Pod[],
  ds: Readonly<V1DaemonSet>,
  memory: SurgeMemory,
  nodesToVersions: Map<string, Map<string, number>>,
  rollout: SurgeRollout,
  now: number,
): Map<string, number> {
  const deletedPerNode = new Map<string, number>();
  const podUIDs = new Set<string>();
  const deletedPodUIDs = new Set<string>();
  for (const pod of pods.filter((p) => isControlledBy(p, ds))) {
    const [node, uid] = [pod.spec?.nodeName ?? '', pod.metadata?.uid ?? ''];
    if (pod.metadata?.deletionTimestamp) {
      deletedPodUIDs.add(uid);
      if (!memory.deliberatelyDeletedPods.has(uid))
        deletedPerNode.set(node, (deletedPerNode.get(node) ?? 0) + 1);
      continue;
    }
    podUIDs.add(uid);
    if (versionOf(pod) === rollout.newVersion) continue;
    if ((nodesToVersions.get(node)?.get(rollout.newVersion) ?? 0) > 0) {
      if (!memory.ageOfOldPod.has(uid)) memory.ageOfOldPod.set(uid, now);
    } else memory.ageOfOldPod.delete(uid);
  }
  for (const uid of memory.ageOfOldPod.keys()) if (!podUIDs.has(uid)) memory.ageOfOldPod.delete(uid);
  memory.deliberatelyDeletedPods = new Set(
    [...memory.deliberatelyDeletedPods].filter((uid) => deletedPodUIDs.has(uid)),
  );
  return deletedPerNode;
}

/** The per-node invariants: at most one running pod of a version, two deleted, two in all. */
function nodeErrors(
  look: Pick<SurgeLook, 'nodesToVersions' | 'nodesToDeletedVersions'>,
  nodes: Set<string>,
): string[] {
  const errors: string[] = [];
  for (const node of [...nodes].filter((n) => n !== '')) {
    const versionCount = new Map<string, number>();
    for (const [version, count] of look.nodesToVersions.get(node) ?? []) {
      if (count > 1)
        errors.push(
          `node ${node} has ${count} instances of version ${version} running simultaneously, must have max 1`,
        );
      versionCount.set(version, (versionCount.get(version) ?? 0) + count);
    }
    for (const [version, count] of look.nodesToDeletedVersions.get(node) ?? []) {
      if (count > 2)
        errors.push(
          `node ${node} has ${count} deleted instances of version ${version} running simultaneously, must have max 1`,
        );
      versionCount.set(version, (versionCount.get(version) ?? 0) + count);
    }
    for (const [version, count] of versionCount) {
      if (count > 2)
        errors.push(
          `node ${node} has ${count} total instances of version ${version} running simultaneously, must have max 2 (one deleted and one running)`,
        );
    }
  }
  return errors;
}

/** One look at the pods of `ds` during the rollout: what it saw and which invariants it broke. */
export function lookAtSurge(
  pods: readonly V1Pod[],
  ds: Readonly<V1DaemonSet>,
  memory: SurgeMemory,
  rollout: SurgeRollout,
  now: Date,
): SurgeLook {
  const counts = countPods(pods, ds, memory, rollout, now);
  const deletedPerNode = remember(pods, ds, memory, counts.nodesToVersions, rollout, now.getTime());
  const nodesWithoutOldVersion = [...counts.nodesToVersions.values()].filter(
    (v) => !v.get(rollout.oldVersion),
  ).length;
  const errors: string[] = [];
  for (const [node, count] of deletedPerNode) {
    if (count > 1)
      errors.push(
        `Node ${node} has ${count} deleted pods, which may indicate a problem on the node or a controller race condition`,
      );
  }
  for (const [uid, firstSeen] of memory.ageOfOldPod) {
    if (now.getTime() - firstSeen > rollout.maxSurgeOverlapMs)
      errors.push(
        `An old pod with UID ${uid} has been running alongside a newer version for longer than ${rollout.maxSurgeOverlapMs} ms`,
      );
  }
  const allowed =
    rollout.maxSurge +
    counts.oldUnavailableCount +
    counts.newDeliberatelyDeletedCount +
    nodesWithoutOldVersion;
  if (counts.newUnavailableCount > allowed) {
    errors.push(
      `observed ${counts.newUnavailableCount} new unavailable pods greater than (surge count ${rollout.maxSurge} + old unavailable count ${counts.oldUnavailableCount} + deliberately deleted new count ${counts.newDeliberatelyDeletedCount} + nodes without old version ${nodesWithoutOldVersion}), may be infrastructure flake`,
    );
  }
  if (counts.versions.size > 2)
    errors.push(`observed ${counts.versions.size} versions running simultaneously, must have max 2`);
  const nodes = new Set([...counts.nodesToVersions.keys(), ...counts.nodesToDeletedVersions.keys()]);
  errors.push(...nodeErrors(counts, nodes));
  return { ...counts, errors: errors.sort() };
}

/**
 * Whether the rollout is done on every node of `nodeNames`: one pod there, of the new version, none
 * being deleted, and no new pod unavailable anywhere.
 */
export function surgeDone(look: SurgeLook, nodeNames: readonly string[], newVersion: string): boolean {
  return nodeNames.every((node) => {
    const versions = look.nodesToVersions.get(node);
    return (
      (versions?.get(newVersion) ?? 0) > 0 &&
      (versions?.size ?? 0) <= 1 &&
      (look.nodesToDeletedVersions.get(node)?.size ?? 0) === 0 &&
      look.newUnavailableCount === 0
    );
  });
}
