/**
 * The `pair` step: make one DaemonSet right on one node (upstream podsShouldBeOnNode + syncNodes
 * for a single node), idempotently, from hints or a fresh read.
 */
import { type Action, deletesBecauseOfNode } from '../../core/action.ts';
import { isActionable } from '../../core/actionable.ts';
import { planPair } from '../../core/pair-plan.ts';
import { terminationWaitSeconds } from '../../core/pair-waits.ts';
import { EverynodeError } from '../../errors/everynode-error.ts';
import { withRequeueCause } from '../../messages/requeue-envelope.ts';
import type { PairMessage } from '../../messages/work-message.ts';
import type { DepsPart, ReconcileDeps } from '../deps/reconcile-deps.ts';
import { executeActions } from '../effects/action-executor.ts';
import { emptyReport, type StepReport, sumReports } from '../effects/step-report.ts';
import { pairKey } from '../memory/expectations.ts';
import { knownGateKeys } from '../reads/known-gate-keys.ts';
import {
  confirmedForCreate,
  nodeVersion,
  type PairRead,
  readHintedPair,
  readPair,
  withConfirmedNode,
} from '../reads/pair-reader.ts';
import { withAdoptedOrphan } from './adopt-orphan.ts';

/** A pair kept changing under its plan (two Conflicts in a row); retried by redelivery. */
export class PairConflictError extends EverynodeError {
  constructor(message: Readonly<PairMessage>) {
    const { namespace, name } = message.daemonSet;
    super(
      `reconciling DaemonSet ${namespace}/${name} on node ${message.node.name}: pods changed while planning twice`,
      true,
    );
  }
}

/**
 * The plan for a read pair, its pods tolerating the node readiness gate keys of `deps`'s known
 * DaemonSets (reads/known-gate-keys.ts).
 */
export function planRead(deps: DepsPart<never, 'objects'>, read: Readonly<PairRead>, now: Date): Action[] {
  const { ds, node, pods, currentHash, nodeName } = read;
  return planPair({ ds, node, pods, currentHash, now, nodeName, gateKeys: knownGateKeys(deps, ds) });
}

/**
 * Reconciles the pair `message` names: read (hinted when the hints are usable), adopt the orphan the
 * message names, if any (`adopt-orphan.ts`), plan with `planPair`, execute. A Conflict on a delete re-reads the pair once without hints and plans
 * again; a second one throws PairConflictError. Failed-pod backoff and terminating pods become a
 * delayed requeue of the pair. A DaemonSet that is gone (or re-created under another uid), being
 * deleted, or invalid is nothing to do here: garbage collection removes its pods, and the DaemonSet
 * step reports an invalid spec. Nor is a create the API server refuses for its template: the
 * executor records it on the DaemonSet, skips the revision's creates from then on
 * (effects/template-refusal.ts), and the message is done.
 */
export async function reconcilePair(
  deps: ReconcileDeps,
  message: Readonly<PairMessage>,
  receivedAt = Date.now(),
): Promise<StepReport> {
  if (accountedFor(deps, message)) return emptyReport();
  const reports: StepReport[] = [];
  let read = hintsMissOwnCreate(deps, message)
    ? await readPair(deps, message, 'recent')
    : await readHintedPair(deps, message);
  if (read !== undefined && isActionable(read.ds)) {
    const adopted = await withAdoptedOrphan(deps, message, read);
    if (adopted.blocked) return adopted.report;
    read = adopted.read;
    reports.push(adopted.report);
  }
  for (let attempt = 0; attempt < 2; attempt++) {
    const now = deps.clock();
    const planned =
      read === undefined ? undefined : await planConfirmed(deps, message, read, now, receivedAt);
    if (planned === undefined) return sumReports(...reports);
    const { actions } = planned;
    read = planned.read;
    const verifyNameClashes = read.podsListedAt === undefined;
    const result = await executeActions(deps, read.ds, actions, { pods: read.pods, verifyNameClashes });
    reports.push(result.report, hintedReport(read));
    if (!result.conflict) {
      // A fan-out of this pair is no longer in flight for DaemonSet steps that list after now.
      deps.memory.expectations.handledPair(pairKeyOf(message), deps.clock().getTime());
      deps.memory.expectations.putPairSeen(pairKeyOf(message), read.podsListedAt, result.created);
      const gateKeys = knownGateKeys(deps, read.ds);
      const wait = waitSeconds({ ...read, gateKeys }, actions, now, message, result.requeueAfterSeconds);
      if (wait !== undefined) reports.push(await requeuePair(deps, message, wait, now));
      return sumReports(...reports);
    }
    read = await readPair(deps, message, 'fresh');
  }
  throw new PairConflictError(message);
}

/** A read and the plan made from it. */
interface Planned {
  readonly read: PairRead;
  readonly actions: Action[];
}

/**
 * The plan for `read`, its node confirmed first when the plan deletes a pod because of the node
 * (see `planOnCurrentNode`), its DaemonSet confirmed when the plan creates a pod (see
 * `confirmedForCreate`); undefined when there is nothing to do: the DaemonSet is gone, being
 * deleted or invalid.
 */
async function planConfirmed(
  deps: ReconcileDeps,
  message: Readonly<PairMessage>,
  read: PairRead,
  now: Date,
  receivedAt: number,
): Promise<Planned | undefined> {
  if (!isActionable(read.ds)) return undefined;
  const planned = await planOnCurrentNode(deps, read, now);
  if (!planned.actions.some((action) => action.type === 'create')) return planned;
  const confirmed = await confirmedForCreate(deps, message, planned.read, receivedAt);
  if (confirmed === undefined || !isActionable(confirmed.ds)) return undefined;
  return confirmed === planned.read ? planned : { read: confirmed, actions: planRead(deps, confirmed, now) };
}

/**
 * The plan for `read`, decided on the node's current version when it deletes a pod because of the
 * node (docs/design.md, 9. Hints, and why a stale hint is safe): a hinted or recently read node is
 * asked of the API server (one GET, see `withConfirmedNode`) and the pair planned again when its
 * resourceVersion, or its existence, differs. Other plans, creates included, go as they are: their
 * writes guard themselves.
 */
async function planOnCurrentNode(deps: ReconcileDeps, read: PairRead, now: Date): Promise<Planned> {
  const actions = planRead(deps, read, now);
  if (read.nodeConfirmed || !deletesBecauseOfNode(actions)) return { read, actions };
  const confirmed = await withConfirmedNode(deps, read);
  if (nodeVersion(confirmed.node) === nodeVersion(read.node)) return { read: confirmed, actions };
  return { read: confirmed, actions: planRead(deps, confirmed, now) };
}

function pairKeyOf(message: Readonly<PairMessage>): string {
  return pairKey(message.daemonSet.uid, message.node.name);
}

/**
 * True when the message is a pod watch event of the pair that this process has already accounted
 * for: it made the pair right from a LIST of the pair's pods at or after the event's
 * resourceVersion (or the version the hinted pods are as of), or the event is the ADDED of a pod it
 * created (the router turns every pod event it cannot classify into a pair message), so reading
 * the pair again, or planning from the hints, would change nothing. DaemonSet step hints name no
 * version: they come from a LIST newer than their cause.
 */
function accountedFor(deps: ReconcileDeps, message: Readonly<PairMessage>): boolean {
  const { cause, hints } = message;
  // An orphan is in no LIST of the pair's pods (it lacks everynode's node label) until adopted.
  if (cause.type !== 'watch' || cause.kind !== 'Pod' || message.orphan !== undefined) return false;
  const at = hints === undefined ? cause.resourceVersion : hints.podsResourceVersion;
  return at !== undefined && deps.memory.expectations.accountedFor(pairKeyOf(message), at);
}

/**
 * True when the message's hints (the relay's, as of their pods version) miss a pod this process
 * created on the pair since: planned from them, the pair would look empty and get a second pod.
 * Typically the DELETED event of a failed pod this process replaced, published before the relay saw
 * the replacement. The pair is then read instead.
 */
function hintsMissOwnCreate(deps: ReconcileDeps, message: Readonly<PairMessage>): boolean {
  const at = message.hints?.podsResourceVersion;
  return at !== undefined && deps.memory.expectations.wroteSince(pairKeyOf(message), at);
}

function hintedReport(read: Readonly<PairRead>): StepReport {
  const report = emptyReport();
  report.hinted = read.hinted ? 1 : 0;
  return report;
}

function waitSeconds(
  read: Readonly<PairRead & { gateKeys: readonly string[] }>,
  actions: readonly Action[],
  now: Date,
  message: Readonly<PairMessage>,
  backoff: number | undefined,
): number | undefined {
  const attempt = message.cause.type === 'requeue' ? (message.cause.attempt ?? 0) : 0;
  const termination = terminationWaitSeconds({ ...read, actions, now, attempt });
  const waits = [backoff, termination].filter((wait): wait is number => wait !== undefined);
  return waits.length > 0 ? Math.min(...waits) : undefined;
}

async function requeuePair(
  deps: ReconcileDeps,
  message: Readonly<PairMessage>,
  afterSeconds: number,
  now: Date,
): Promise<StepReport> {
  const reason = `pair waits ${afterSeconds}s (failed-pod backoff or terminating pod)`;
  await deps.ports.requeue.requeue(withRequeueCause(message, reason, now), afterSeconds);
  const report = emptyReport();
  report.requeues = 1;
  return report;
}
