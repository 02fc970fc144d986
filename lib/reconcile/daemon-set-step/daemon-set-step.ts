/**
 * The `daemonset` step (docs/design.md, 15. The DaemonSet step; upstream daemon_controller.go
 * syncDaemonSet): validation, ControllerRevisions, adoption, fan-out of the pairs that need work,
 * the rolling update step, status. Serialized per DaemonSet by its FIFO group, which is what keeps
 * the rolling update within its budget.
 */
import type { V1ControllerRevision, V1Pod } from '@kubernetes/client-node';
import { DAEMONSET_UID_LABEL, type DaemonSet } from '../../core/daemon-set.ts';
import { isEmptyLabelSelector } from '../../core/label-selector.ts';
import { validateDaemonSet } from '../../core/validation.ts';
import {
  daemonSetRequeueSlot,
  nodeRecountSlot,
  rolloutTimerSlot,
  withRequeueCause,
} from '../../messages/requeue-envelope.ts';
import type { DaemonSetMessage } from '../../messages/work-message.ts';
import type { ReconcileDeps } from '../deps/reconcile-deps.ts';
import { claimPods } from '../effects/claim-pods.ts';
import { emptyReport, type StepReport, sumReports } from '../effects/step-report.ts';
import { EventReason } from '../memory/event-recorder.ts';
import { RECENT_READ_MS } from '../memory/object-cache.ts';
import { violationQueries } from '../reads/selector-query.ts';
import { readNodes } from './read-nodes.ts';
import { keptPodsVersion, readDaemonSetPods, willCatchUp } from './read-pods.ts';
import { type DaemonSetReads, syncDaemonSet } from './sync-daemon-set.ts';
import { INVALID_SPEC_REASON, invalidSpecStatus, writeDaemonSetStatus } from './write-status.ts';

/** The requeue reason of the step that counts again from a fresh node LIST after one planned on a kept LIST. */
export const RECOUNT_REASON = 'recount from a fresh node LIST';

/**
 * The requeue reason of the step a safe rollout's timer brings (a health deadline, a health window
 * closing, a timed pause ending). It lists every node again: a node that turned NotReady within its
 * window must not be missed by a kept LIST.
 */
export const ROLLOUT_TIMER_REASON = 'safe rollout waits for a pause or a health deadline';

/** Upstream's SelectingAll event message. */
export const SELECTING_ALL_MESSAGE =
  'This daemon set is selecting all pods. A non-empty selector is required.';

/**
 * The DaemonSet the message names, or undefined when there is nothing to do (gone, re-created, being
 * deleted): the process then forgets every copy of the one the message named, so no step of it plans
 * a pod from a copy read before.
 */
async function readDaemonSet(
  deps: ReconcileDeps,
  message: Readonly<DaemonSetMessage>,
): Promise<DaemonSet | undefined> {
  const { namespace, name, uid } = message.daemonSet;
  const ds = await deps.ports.kube.getDaemonSet(namespace, name);
  if (ds !== undefined) deps.memory.objects.putRecentDaemonSet(ds, deps.clock().getTime());
  const named = uid === undefined || ds?.metadata?.uid === uid;
  // A DaemonSet being deleted is left to garbage collection (upstream returns early too).
  if (ds !== undefined && named && !ds.metadata?.deletionTimestamp) return ds;
  const gone = uid ?? (named ? ds?.metadata?.uid : undefined);
  if (gone !== undefined) {
    deps.memory.objects.forgetDaemonSet(gone);
    deps.memory.keptPods.forget(gone);
    deps.memory.keptRevisions.forget(gone);
  }
  return undefined;
}

/**
 * An invalid spec: a Warning event and the invalid-spec condition, no pod touched, no retry
 * (the next change of the DaemonSet brings a new message). Upstream's SelectingAll event first when
 * the selector is empty.
 */
async function reportInvalid(
  deps: ReconcileDeps,
  ds: Readonly<DaemonSet>,
  violations: readonly string[],
): Promise<StepReport> {
  if (isEmptyLabelSelector(ds.spec?.selector ?? {})) {
    deps.memory.events.warning(ds, EventReason.SelectingAll, SELECTING_ALL_MESSAGE);
  }
  const message = violations.join('; ');
  deps.memory.events.warning(ds, EventReason.InvalidSpec, message);
  deps.ports.logger.warn('DaemonSet spec is invalid; touching none of its pods', {
    daemonSet: `${ds.metadata?.namespace}/${ds.metadata?.name}`,
    reason: INVALID_SPEC_REASON,
    violations,
  });
  const report = emptyReport();
  report.statusWrites = await writeDaemonSetStatus(deps, ds, invalidSpecStatus(ds, message, deps.clock()));
  return report;
}

/**
 * The revisions of the namespace (fresh: revision writes are few and a stale list would only make
 * them collide), every node and the DaemonSet's candidate pods (from the watch cache: every write
 * that follows is guarded) — the pods matching its selector, and those it controls (labelled with
 * its uid) that no longer match and must be released, found by one small LIST per selector
 * requirement rather than a second LIST of all its pods. The node LIST is shared with the other
 * DaemonSet steps of the process whose messages arrived before it began (`receivedAt`).
 */
async function readAround(
  deps: ReconcileDeps,
  ds: Readonly<DaemonSet>,
  receivedAt: number,
  versions: Pick<DaemonSetMessage, 'nodesVersion' | 'podsVersion' | 'cause'>,
): Promise<
  DaemonSetReads & {
    readonly revisionsListedAt: number;
    readonly nodesKept: boolean;
    readonly podsKept: boolean;
    readonly nodesListedFrom: number;
  }
> {
  const namespace = ds.metadata?.namespace ?? 'default';
  const listedAt = deps.clock().getTime();
  const own = `${DAEMONSET_UID_LABEL}=${ds.metadata?.uid ?? ''}`;
  const listPods = (labelSelector: string) =>
    deps.ports.kube.listPods({ namespace, labelSelector, allowStale: true });
  const violations = violationQueries(ds.spec?.selector, own);
  const listUnmatched = () => Promise.all(violations.map(listPods));
  // A step catching up a kept pod table leaves the pods to release to the recount that follows it;
  // the recount catches the table up too, and lists those.
  const recount = isRecount(versions.cause);
  const podsVersion = versions.podsVersion ?? versionToCatchUp(deps, ds, versions.cause);
  const catchingUp = !recount && willCatchUp(deps, ds, podsVersion);
  const [revisions, sharedNodes, matching, listedUnmatched] = await Promise.all([
    readRevisions(deps, ds, versions.podsVersion),
    readNodes(deps, receivedAt, versions.nodesVersion),
    readDaemonSetPods(deps, ds, podsVersion),
    catchingUp ? undefined : listUnmatched(),
  ]);
  const unmatched = matching.kept && !recount ? [] : (listedUnmatched ?? (await listUnmatched()));
  const nodes = sharedNodes.value;
  if (listedAt - sharedNodes.startedAt < RECENT_READ_MS)
    deps.memory.objects.putListedNodes(nodes.items, Math.min(listedAt, sharedNodes.startedAt));
  const pods = new Map<string, V1Pod>();
  for (const pod of [...matching.items, ...unmatched.flatMap((list) => list.items)])
    pods.set(pod.metadata?.uid ?? '', pod);
  const observation = `${nodes.resourceVersion}/${matching.resourceVersion}`;
  return {
    revisions: revisions.items,
    revisionsListedAt: revisions.listedAt,
    nodes: nodes.items,
    pods: [...pods.values()],
    observation,
    nodesResourceVersion: nodes.resourceVersion,
    listedAt,
    nodesKept: sharedNodes.kept === true,
    // Caught up until quiet, with the pods to release listed, the recount counts as a LIST would.
    podsKept: matching.kept && !recount,
    nodesListedFrom: sharedNodes.startedAt,
  };
}

/** True for the recount a step planned on kept reads asked for (see requeueRecount). */
function isRecount(cause: DaemonSetMessage['cause']): boolean {
  return cause.type === 'requeue' && cause.reason === RECOUNT_REASON;
}

/**
 * For a step without a pod version that a relay trigger or a requeue brought (a safe rollout's
 * health signal or timer, a node change, a DaemonSet change, the recount): the version of the kept
 * pod table, which the step then catches up until the watch falls quiet — what a LIST from the
 * watch cache would show, for the parse of the pods that changed rather than every pod (at 5,000
 * nodes a LIST held the pipeline's thread about 0.5 s, the health steps that halt a rollout each
 * made one, and a recount landing in a revert delayed its creates). A resync and a replay list, and
 * a table is listed again once 120 s old: the backstops a kept table is bounded by.
 */
function versionToCatchUp(
  deps: ReconcileDeps,
  ds: Readonly<DaemonSet>,
  cause: DaemonSetMessage['cause'],
): string | undefined {
  const brought = cause.type === 'watch' || cause.type === 'requeue';
  return brought ? keptPodsVersion(deps, ds) : undefined;
}

/**
 * The namespace's ControllerRevisions: with `podsVersion` (a step a relay trigger brought), the
 * list this process's last step of the DaemonSet planned on without writing one, while the
 * DaemonSet's generation is the same (`KeptRevisions`); else a fresh LIST. With when it was listed.
 */
async function readRevisions(
  deps: ReconcileDeps,
  ds: Readonly<DaemonSet>,
  podsVersion: string | undefined,
): Promise<{ readonly items: V1ControllerRevision[]; readonly listedAt: number }> {
  const now = deps.clock().getTime();
  const kept =
    podsVersion === undefined
      ? undefined
      : deps.memory.keptRevisions.get(ds.metadata?.uid ?? '', ds.metadata?.generation ?? 0, now);
  if (kept !== undefined) return { items: [...kept.revisions], listedAt: kept.listedAt };
  const list = await deps.ports.kube.listControllerRevisions(ds.metadata?.namespace ?? 'default');
  return { items: list.items, listedAt: now };
}

/**
 * Runs the DaemonSet-wide steps for the DaemonSet `message` names. Nothing happens when it is gone,
 * re-created under another uid, or being deleted; an invalid spec is reported and touches no pod.
 * Otherwise: adoption, revisions, rolling update, fan-out and status (see syncDaemonSet), and a
 * delayed `daemonset` message when something depends on time passing. `receivedAt`: when the
 * message arrived (ms since the epoch).
 */
export async function reconcileDaemonSet(
  deps: ReconcileDeps,
  message: Readonly<DaemonSetMessage>,
  receivedAt = Date.now(),
): Promise<StepReport> {
  if (isCoveredRecount(deps, message)) return emptyReport();
  const ds = await readDaemonSet(deps, message);
  if (ds === undefined) return emptyReport();
  const violations = validateDaemonSet(ds).map((v) => `${v.field}: ${v.message}`);
  if (violations.length > 0) return reportInvalid(deps, ds, violations);
  const reads = await readAround(deps, ds, receivedAt, message);
  const uid = ds.metadata?.uid ?? '';
  deps.memory.keptRevisions.forget(uid);
  const claim = await claimPods(deps, ds, reads.pods);
  const sync = await syncDaemonSet(deps, ds, { ...reads, pods: claim.claimed }, message.cause, claim.blocked);
  // A list the step wrote no revision to (nor lost a race on) is still the namespace's revisions.
  if (sync.report.revisionWrites === 0 && sync.report.conflicts === 0)
    deps.memory.keptRevisions.put(
      uid,
      ds.metadata?.generation ?? 0,
      reads.revisions,
      reads.revisionsListedAt,
    );
  const reports = [claim.report, sync.report];
  const named = { ...message, daemonSet: { ...message.daemonSet, uid } };
  if (sync.requeueAfterSeconds !== undefined) {
    const now = deps.clock();
    const again = withRequeueCause(named, sync.requeueReason, now);
    const slot = daemonSetRequeueSlot(uid, sync.requeueAfterSeconds, now);
    await deps.ports.requeue.requeue(again, slot.afterSeconds, slot.deduplicationId);
    reports.push({ ...emptyReport(), requeues: 1 });
  }
  if (sync.rolloutTimerSeconds !== undefined) {
    const now = deps.clock();
    const {
      nodesVersion: _n,
      podsVersion: _p,
      ...again
    } = withRequeueCause(named, ROLLOUT_TIMER_REASON, now) as DaemonSetMessage;
    const slot = rolloutTimerSlot(uid, sync.rolloutTimerSeconds, now);
    await deps.ports.requeue.requeue(again, slot.afterSeconds, slot.deduplicationId);
    reports.push({ ...emptyReport(), requeues: 1 });
  }
  if (reads.nodesKept || reads.podsKept) {
    if (await requeueRecount(deps, named)) reports.push({ ...emptyReport(), requeues: 1 });
  } else deps.memory.keptNodes.noteFresh(uid, reads.nodesListedFrom);
  return sumReports(...reports);
}

/** A recount a later step of its DaemonSet in this process already made (see KeptNodeLists). */
function isCoveredRecount(deps: ReconcileDeps, message: Readonly<DaemonSetMessage>): boolean {
  const { cause } = message;
  if (cause.type !== 'requeue' || cause.reason !== RECOUNT_REASON || message.daemonSet.uid === undefined)
    return false;
  const requestedAt = Date.parse(cause.requestedAt ?? '');
  return !Number.isNaN(requestedAt) && deps.memory.keptNodes.covers(message.daemonSet.uid, requestedAt);
}

/**
 * After a step planned on a kept node LIST: the same DaemonSet's step at the end of the recount
 * window, without a node version, so it lists every node again. The relay's version covers the node
 * changes it had forwarded, but it watches nodes and pods on separate streams: a pod made for a node
 * change can arrive before that change, and a step of another process may hold an older LIST. The
 * recount bounds how long a status can stay counted from such a LIST.
 */
async function requeueRecount(deps: ReconcileDeps, message: Readonly<DaemonSetMessage>): Promise<boolean> {
  const now = deps.clock();
  const uid = message.daemonSet.uid ?? '';
  const slot = nodeRecountSlot(uid, now);
  if (deps.memory.keptNodes.asked(uid, slot.deduplicationId)) return false;
  const {
    nodesVersion: _nodes,
    podsVersion: _pods,
    ...fresh
  } = withRequeueCause(message, RECOUNT_REASON, now) as DaemonSetMessage;
  await deps.ports.requeue.requeue(fresh, slot.afterSeconds, slot.deduplicationId);
  deps.memory.keptNodes.noteAsked(uid, slot.deduplicationId);
  return true;
}
