/**
 * The rolling update's deletes made in-place updates where the DaemonSet asks for them
 * (`inPlace: IfPossible`, docs/design.md, 31. In-place updates): each old pod the plan would delete
 * to replace it is updated in place instead when the change between its revision and the target
 * revision allows (effects/in-place-update.ts), and deleted as planned otherwise. The plan's budget
 * holds unchanged: an updated pod counts as not ready until its update settled
 * (core/in-place/in-place-state.ts), as a deleted one counts as missing until its replacement is
 * available. Only the no-surge plan's deletes qualify: with `maxSurge`, a new pod is created beside
 * the old one first, which an in-place update cannot do, so the rollout surges and recreates.
 * Pods of the target revision whose resize the node cannot take are deleted to be recreated
 * (effects/in-place-update-fallback.ts), whatever the setting now says: the resize was ours.
 */
import type { V1ControllerRevision, V1Node, V1Pod } from '@kubernetes/client-node';
import type { Action, DeleteAction } from '../../core/action.ts';
import { revisionData } from '../../core/controller-revision.ts';
import { CONTROLLER_REVISION_HASH_LABEL, type DaemonSet } from '../../core/daemon-set.ts';
import { inPlaceModeOf } from '../../core/in-place/in-place-setting.ts';
import type { ReconcileDeps } from '../deps/reconcile-deps.ts';
import { openSettledGates } from '../effects/in-place-gate-writes.ts';
import { gatedUpdateInPlace } from '../effects/in-place-gated-update.ts';
import { type ResizeFallbacks, resizeFallbacks } from '../effects/in-place-update-fallback.ts';
import { mapConcurrent } from '../effects/map-concurrent.ts';
import { emptyReport, type StepReport } from '../effects/step-report.ts';

/** What the in-place pass did. */
export interface InPlacePass {
  /** The plan's actions left to execute: the deletes not made in-place updates, and the rest. */
  readonly actions: readonly Action[];
  /** Pods updated or resized in place. */
  readonly updated: number;
  /** Deletes an in-place update could not replace, with their reasons (logged). */
  readonly recreated: number;
  /** The in-place updates, resizes and recreates counted by kind. */
  readonly report: StepReport;
  /** The resizes given up for a recreate: their deletes are among `actions`. */
  readonly fallbacks: ResizeFallbacks;
}

/** What the pass works from. */
export interface InPlaceRolloutInput {
  readonly ds: Readonly<DaemonSet>;
  readonly actions: readonly Action[];
  readonly pods: readonly V1Pod[];
  readonly revisions: readonly V1ControllerRevision[];
  /** The revision the rollout aims at (the current one, or a revert's stable one): `ds`'s template. */
  readonly targetHash: string;
  /** The listed nodes by name: each pod is sized for its node (node sizing). */
  readonly nodes?: ReadonlyMap<string, Readonly<V1Node>>;
}

/** True when `action` replaces an old pod for the rolling update (not a delete for the node's sake). */
const replaces = (action: Action): action is DeleteAction =>
  action.type === 'delete' && action.becauseOfNode !== true;

/**
 * The plan with its replacing deletes made in-place updates where possible (see the file's
 * comment). A pod found stale is neither updated nor deleted: the next step reads it again.
 */
export async function inPlaceInsteadOfDeletes(
  deps: ReconcileDeps,
  input: Readonly<InPlaceRolloutInput>,
): Promise<InPlacePass> {
  const { ds, actions, pods, revisions, targetHash } = input;
  const uid = ds.metadata?.uid ?? '';
  // Gated pods whose in-place update settled (or whose create was not followed by the gate's True)
  // get it (effects/in-place-gate-writes.ts), whatever the setting now says.
  const gates = await openSettledGates(deps, pods);
  for (const written of gates.written) deps.memory.keptPods.noteWritten(uid, written);
  const fallbacks = resizeFallbacks(deps, ds, pods, targetHash);
  const report = emptyReport();
  if (inPlaceModeOf(ds) !== 'IfPossible' || ds.spec?.updateStrategy?.type === 'OnDelete')
    return { actions: [...actions, ...fallbacks.deletes], updated: 0, recreated: 0, report, fallbacks };
  const byHash = (hash: string | undefined) =>
    revisions.find((r) => r.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] === hash);
  // The step that writes the target revision has not listed it: the DaemonSet's template is it.
  const newRevision: V1ControllerRevision = byHash(targetHash) ?? {
    metadata: { labels: { [CONTROLLER_REVISION_HASH_LABEL]: targetHash } },
    // With the DaemonSet's node-sizing rules, which its revision holds beside the template.
    data: revisionData(ds),
    revision: 0,
  };
  // By uid: a find per action was a scan of every pod per delete (20,000 × 1,000 per step).
  const byUid = new Map(pods.flatMap((p) => (p.metadata?.uid ? [[p.metadata.uid, p] as const] : [])));
  // Concurrently, as the executor sends deletes: one update after another held the rollout to
  // one round trip per pod, half the request budget on a busy thread.
  const outcomes = await mapConcurrent(actions, async (action) => {
    if (!replaces(action)) return undefined;
    const pod = byUid.get(action.uid);
    const oldRevision = byHash(pod?.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL]);
    if (pod === undefined || oldRevision === undefined) return undefined;
    const outcome = await gatedUpdateInPlace(deps, {
      ds,
      pod,
      oldRevision,
      newRevision,
      newHash: targetHash,
      node: input.nodes?.get(action.node),
    });
    // Noted at once: a step cut short by an error still tells the kept pods what it wrote.
    if (outcome.type === 'updated' || outcome.type === 'resized') {
      const written = outcome.pod.metadata?.resourceVersion;
      if (written !== undefined) deps.memory.keptPods.noteWritten(uid, written);
    }
    return { pod, outcome, node: action.node };
  });
  const kept: Action[] = [];
  let updated = 0;
  let recreated = 0;
  actions.forEach((action, i) => {
    const done = outcomes[i];
    if (done === undefined) {
      kept.push(action);
      return;
    }
    const { pod, outcome, node } = done;
    if (outcome.type === 'updated' || outcome.type === 'resized') {
      updated++;
      report[outcome.type === 'updated' ? 'updatedInPlace' : 'resizedInPlace']++;
    } else if (outcome.type === 'recreate') {
      recreated++;
      report.inPlaceRecreates++;
      deps.ports.logger.info('recreating a daemon pod: its change cannot be made in place', {
        pod: pod.metadata?.name,
        node,
        reason: outcome.reason,
      });
      kept.push(action);
    }
  });
  // After the loop: a fallback's pod is of the target revision, never one to update in place.
  return { actions: [...kept, ...fallbacks.deletes], updated, recreated, report, fallbacks };
}
