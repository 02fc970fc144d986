/**
 * The body of the DaemonSet step once the DaemonSet is known valid and its pods claimed: revisions,
 * rolling update, fan-out of the pairs that need work, status (upstream syncDaemonSet: manage,
 * rollingUpdate, cleanupHistory, updateDaemonSetStatus).
 */
import type { V1ControllerRevision, V1DaemonSetStatus, V1Node, V1Pod } from '@kubernetes/client-node';
import type { DaemonSet } from '../../core/daemon-set.ts';
import { daemonSetStatusFromViews, statusRequeue } from '../../core/daemon-set-status.ts';
import { type NodeView, nodeViewsFor } from '../../core/node-view.ts';
import { earliestNodeFreeSeconds } from '../../core/pair-waits.ts';
import { withPlacementStatus } from '../../core/placement-status.ts';
import { podTargetAt } from '../../core/safe-rollout/revert.ts';
import { safeRolloutProgress } from '../../core/safe-rollout/rollout-progress.ts';
import { type RolloutRecord, rolloutRecordOf } from '../../core/safe-rollout/rollout-record.ts';
import { safeRolloutOf } from '../../core/safe-rollout/rollout-spec.ts';
import type { MessageCause } from '../../messages/message-cause.ts';
import type { ReconcileDeps } from '../deps/reconcile-deps.ts';
import { emptyReport, type StepReport, sumReports } from '../effects/step-report.ts';
import { REFUSED_REASON, refusedRevision } from '../effects/template-refusal.ts';
import { sendGateRechecks } from '../node-gates/resync-recheck.ts';
import { knownGateKeys } from '../reads/known-gate-keys.ts';
import { fanOutPairs } from './fan-out-pairs.ts';
import { reportUnschedulable } from './report-unschedulable.ts';
import { rollingUpdate } from './rolling-update.ts';
import { type RevisionResult, syncRevisionHistory } from './sync-revision-history.ts';
import { recordRolloutEvents, writeStatusAndRecord } from './write-rollout-record.ts';
import { INVALID_SPEC_CONDITION } from './write-status.ts';
import { yieldToEventLoop } from './yield-to-event-loop.ts';

/** What the step reads besides the DaemonSet. */
export interface DaemonSetReads {
  readonly revisions: V1ControllerRevision[];
  readonly nodes: V1Node[];
  readonly pods: V1Pod[];
  /** The resourceVersions of the node and pod LISTs: what the step's decisions rest on. */
  readonly observation: string;
  /** The resourceVersion of the node LIST. */
  readonly nodesResourceVersion: string;
  /** When the LISTs began (ms since the epoch). */
  readonly listedAt: number;
}

/** Seconds before the step runs again when the burst cap left pairs for later. */
export const BURST_CONTINUATION_SECONDS = 1;

/** What the sync did, and when it must run again (undefined: only when something changes). */
export interface SyncResult {
  readonly report: StepReport;
  readonly requeueAfterSeconds?: number;
  readonly requeueReason: string;
  /** When the safe rollout's decision changes with time alone (its own short window: see rolloutTimerSlot). */
  readonly rolloutTimerSeconds?: number;
}

/** The earliest of the waits, with the reason of the earliest. */
function earliest(waits: readonly [number | undefined, string][]): { seconds?: number; reason: string } {
  let best: { seconds?: number; reason: string } = { reason: '' };
  for (const [seconds, reason] of waits) {
    if (seconds !== undefined && (best.seconds === undefined || seconds < best.seconds))
      best = { seconds, reason };
  }
  return best;
}

/**
 * The status counted from `views` (upstream updateDaemonSetStatus) with the collisionCount of the
 * revision step, without the invalid-spec condition of an earlier run: the spec is valid now (core
 * keeps conditions it does not own). The refused-template condition (effects/template-refusal.ts)
 * stays while it names the current revision; a new revision clears it.
 */
function statusOf(
  ds: Readonly<DaemonSet>,
  views: readonly NodeView[],
  revision: Readonly<RevisionResult>,
  now: Date,
  rollout: RolloutRecord | undefined,
): V1DaemonSetStatus {
  const synced = { ...ds, status: { ...ds.status, collisionCount: revision.collisionCount } } as DaemonSet;
  const status = daemonSetStatusFromViews(synced, views, revision.currentHash, now, rollout);
  if (revision.collisionCount === 0 && ds.status?.collisionCount === undefined) delete status.collisionCount;
  const refused = refusedRevision(ds) === revision.currentHash;
  const conditions =
    status.conditions?.filter(
      (c) => c.type !== INVALID_SPEC_CONDITION || (refused && c.reason === REFUSED_REASON),
    ) ?? [];
  if (conditions.length > 0) status.conditions = conditions;
  else delete status.conditions;
  return withPlacementStatus(status, ds, views, now);
}

/**
 * Writes the revisions, executes the rolling-update step on the listed state (rolling-update.ts:
 * deleting old pods, creating surge pods), fans out the other pairs that need work with hints, and writes the status
 * computed from the listed state if it changed; on a resync, the node steps of the nodes whose
 * readiness gate the view disagrees with (node-gates/resync-recheck.ts). Asks to run again after the earliest of: the
 * rollout's minReadySeconds wait, the status's time-dependent fields, the end of the grace period
 * of pods blocking a node (so the replacements are fanned out with hints), a burst continuation,
 * orphans that could not be adopted (their nodes, `blocked`, get no pod meanwhile). Pods becoming
 * ready are the router's to announce (coalesced status refreshes:
 * docs/design.md, 12. The status-refresh window).
 */
export async function syncDaemonSet(
  deps: ReconcileDeps,
  ds: Readonly<DaemonSet>,
  reads: Readonly<DaemonSetReads>,
  cause: MessageCause,
  blocked: ReadonlySet<string> = new Set(),
): Promise<SyncResult> {
  await yieldToEventLoop();
  const revision = await syncRevisionHistory(deps, ds, reads.revisions, reads.pods);
  const { currentHash } = revision;
  deps.memory.objects.putRevisionHash(
    { ...ds, status: { ...ds.status, collisionCount: revision.collisionCount } } as DaemonSet,
    currentHash,
  );
  deps.memory.objects.putDaemonSet(ds, reads.listedAt);
  const now = deps.clock();
  // Placed, and created, as pods tolerating the node readiness gate keys in use.
  const gateKeys = knownGateKeys(deps, ds);
  await yieldToEventLoop();
  const views = nodeViewsFor(ds, reads.nodes, reads.pods, gateKeys);
  await yieldToEventLoop();
  // A safe rollout's steps, domains and halt (docs/design.md, 30), decided before the rolling update.
  const stored = rolloutRecordOf(ds);
  const progress = safeRolloutProgress({ ds, views, currentHash, settings: safeRolloutOf(ds), stored, now });
  const { allowance } = progress;
  await yieldToEventLoop();
  // A halt is written before anything is deleted: the pair steps that replace the pods this step
  // deletes read it, and a step cut short (a 429) leaves it written.
  const halting = progress.record?.haltedAt !== undefined && stored?.haltedAt !== progress.record.haltedAt;
  const early = halting
    ? await writeStatusAndRecord(
        deps,
        ds,
        statusOf(ds, views, revision, now, progress.record),
        progress.record,
      )
    : { writes: 0, ds };
  // While a halted rollout reverts, the rolling update and the fan-out aim at the stable revision.
  const stable = progress.revertTo && podTargetAt(ds, progress.revertTo, reads.revisions);
  const target = stable || { ds, hash: currentHash };
  const rollout = await rollingUpdate(deps, {
    ds: target.ds,
    views,
    pods: reads.pods,
    currentHash: target.hash,
    gateKeys,
    now,
    allowance,
    revisions: reads.revisions,
  });
  const skip = new Set([
    ...blocked,
    ...rollout.actions.flatMap((a) => (a.type === 'requeue' ? [] : [a.node])),
  ]);
  await yieldToEventLoop();
  const fan = await fanOutPairs(deps, {
    ds: target.ds,
    views,
    gateKeys,
    currentHash: target.hash,
    now,
    cause,
    skip,
    observation: reads.observation,
    nodesResourceVersion: reads.nodesResourceVersion,
    listedAt: reads.listedAt,
  });
  const rechecks = await sendGateRechecks(deps, ds, views, cause, now);
  await yieldToEventLoop();
  const status = statusOf(ds, views, revision, now, progress.record);
  const rolloutEvents = recordRolloutEvents(deps, ds, progress.record, progress.events);
  const placementEvents = reportUnschedulable(deps, ds, views, now);
  const written = await writeStatusAndRecord(deps, early.ds, status, progress.record);
  const statusWrites = early.writes + written.writes;
  const wait = earliest([
    [rollout.executed.requeueAfterSeconds, 'rolling update waits for minReadySeconds'],
    [rollout.resizeDeadlineSeconds, 'a deferred in-place resize reaches its deadline'],
    [statusRequeue(ds, status, now)?.afterSeconds, 'status depends on time passing'],
    [earliestNodeFreeSeconds(ds, rollout.viewsAfter, now), 'pods terminating on nodes that need one'],
    [fan.capped ? BURST_CONTINUATION_SECONDS : undefined, 'burst cap left pairs for the next run'],
    [blocked.size > 0 ? BURST_CONTINUATION_SECONDS : undefined, 'orphans changed while being adopted'],
  ]);
  return {
    report: sumReports(revision.report, rollout.executed.report, rolloutEvents, placementEvents, {
      ...emptyReport(),
      fannedOut: fan.sent + rechecks,
      statusWrites,
    }),
    ...(wait.seconds !== undefined ? { requeueAfterSeconds: wait.seconds } : {}),
    requeueReason: wait.reason,
    ...(progress.requeueAfterSeconds === undefined
      ? {}
      : { rolloutTimerSeconds: progress.requeueAfterSeconds }),
  };
}
