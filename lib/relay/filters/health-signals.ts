/**
 * Which pod events reach their DaemonSet's step at once because they may break a safe rollout's
 * health rule (docs/design.md, 30. Rollouts that stop themselves): a pod of the revision being
 * rolled restarted or stopped being ready, while the rollout runs (Progressing or Paused) and has
 * health rules. Coalesced, such an event waited out its status window (one second on average)
 * before the step that halts saw it, and the rolling update went on meanwhile. A node turning
 * NotReady or Unknown reaches the steps of the rollouts whose new pod runs there at once too
 * (`rolloutsWatchingNode`), planned on a node LIST at least as new as that change: through its pods
 * alone, which the node lifecycle controller marks not ready, the step could come before the node
 * change and plan on a LIST that still shows the node Ready.
 */
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { controllerOf } from '../../core/controller-ref.ts';
import { CONTROLLER_REVISION_HASH_LABEL, type DaemonSet } from '../../core/daemon-set.ts';
import { isPodReady } from '../../core/pod-availability.ts';
import { rolloutRecordOf } from '../../core/safe-rollout/rollout-record.ts';
import { safeRolloutOf } from '../../core/safe-rollout/rollout-spec.ts';
import type { RelayNodeContext } from '../cluster-view/node-context.ts';

/** Per DaemonSet object (one per watched version): the revision whose pods' health counts, if any. */
const watched = new WeakMap<Readonly<DaemonSet>, string | null>();

function watchedRevision(ds: Readonly<DaemonSet>): string | null {
  const known = watched.get(ds);
  if (known !== undefined) return known;
  const record = rolloutRecordOf(ds);
  const running = record?.phase === 'Progressing' || record?.phase === 'Paused';
  const revision = running && safeRolloutOf(ds).health !== undefined ? (record?.revision ?? null) : null;
  watched.set(ds, revision);
  return revision;
}

/**
 * True when the pod event (`type`, with the relay's changed facets `changes`) of `pod` may break a
 * health rule of its DaemonSet's rollout, as `context` knows the DaemonSet: the pod is of the
 * revision being rolled, and it restarted (`restarts` changed) or is no longer ready. O(1): a map
 * lookup and, once per DaemonSet version, a look at its settings and record.
 */
export function mayBreakHealthRule(
  context: RelayNodeContext | undefined,
  type: 'ADDED' | 'MODIFIED' | 'DELETED',
  changes: readonly string[],
  pod: Readonly<V1Pod>,
): boolean {
  if (type !== 'MODIFIED') return false;
  const owner = controllerOf(pod)?.uid;
  const ds = owner === undefined ? undefined : context?.daemonSet(owner);
  const revision = ds === undefined ? null : watchedRevision(ds);
  if (revision === null || pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] !== revision) return false;
  return changes.includes('restarts') || (changes.includes('ready') && !isPodReady(pod));
}

/** A DaemonSet whose rollout a node event concerns. */
export interface RolloutRef {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

/** The most DaemonSets one node event names (a trigger's size is bounded). */
export const MAX_ROLLOUTS_PER_NODE_EVENT = 16;

/**
 * The managed DaemonSets whose safe rollout a node event (`type`, with the relay's changed facets
 * `changes`) may break: the node's Ready condition turned False or Unknown, and a pod of the
 * revision being rolled, as `context` knows it, runs there. Empty for any other event.
 */
export function rolloutsWatchingNode(
  context: RelayNodeContext | undefined,
  type: 'ADDED' | 'MODIFIED' | 'DELETED',
  changes: readonly string[],
  node: Readonly<V1Node>,
): RolloutRef[] {
  if (context === undefined || type !== 'MODIFIED' || !changes.includes('ready')) return [];
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status;
  if (ready === 'True') return [];
  const found = new Map<string, RolloutRef>();
  for (const pod of context.podsOn(node.metadata?.name ?? '')) {
    const uid = pod.controller?.uid;
    if (uid === undefined || found.has(uid)) continue;
    const ds = context.daemonSet(uid);
    const revision = ds === undefined ? null : watchedRevision(ds);
    if (ds === undefined || revision === null || pod.labels?.[CONTROLLER_REVISION_HASH_LABEL] !== revision)
      continue;
    found.set(uid, { namespace: ds.metadata?.namespace ?? 'default', name: ds.metadata?.name ?? '', uid });
    if (found.size >= MAX_ROLLOUTS_PER_NODE_EVENT) break;
  }
  return [...found.values()];
}
