/**
 * How a halted rollout that reverts stands: `Reverting` while a node that should run the daemon, or
 * a failed node, does not run an available pod of the stable revision, `Halted` (with
 * `revertedAt`) once every one does; and the allowance of the rolling update towards the stable revision: every node, the failed
 * ones first, within maxUnavailable like any update (docs/design.md, 30).
 */

import { withoutTemplateGeneration } from './revert.ts';
import { rolloutNodes } from './rollout-nodes.ts';
import type { FailedNode, RolloutPhase } from './rollout-record.ts';
import type { RolloutAllowance, RolloutEvent, RolloutProgressInput } from './rollout-types.ts';

/** What the revert changes in the decision. */
export interface RevertOutcome {
  readonly phase: RolloutPhase;
  readonly revertedAt?: string;
  /** The rolling update's allowance, towards `revision`. */
  readonly allowance: RolloutAllowance;
  readonly revision: string;
}

/** The revert of a halted rollout to `stable`, at `now`, from the record's `revertedAt`. */
export function revertOutcome(
  input: Readonly<RolloutProgressInput>,
  stable: string,
  failed: readonly FailedNode[],
  revertedAt: string | undefined,
  events: RolloutEvent[],
): RevertOutcome {
  const back = rolloutNodes(
    withoutTemplateGeneration(input.ds),
    input.views,
    stable,
    input.settings.topologyKey,
    input.now,
  );
  const failedNames = new Set(failed.map((f) => f.node));
  const order = [
    ...back.filter((n) => failedNames.has(n.view.name)),
    ...back.filter((n) => !failedNames.has(n.view.name)),
  ].map((n) => n.view.name);
  const allowance = { halted: false, maxNewNodes: Number.POSITIVE_INFINITY, order };
  // A failed node whose pod is gone while it is NotReady takes no daemon pod (its not-ready
  // NoSchedule taint), so it is no node of the rollout now; it is not back until it runs one again.
  const listed = new Set(back.map((n) => n.view.name));
  const waiting = input.views.some((view) => failedNames.has(view.name) && !listed.has(view.name));
  if (waiting || !back.every((n) => n.available)) return { phase: 'Reverting', allowance, revision: stable };
  const at = revertedAt ?? input.now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  if (revertedAt === undefined)
    events.push({
      type: 'Normal',
      reason: 'RolloutReverted',
      message: `Every node runs revision ${stable} again after the rollout of ${input.currentHash} halted`,
    });
  return { phase: 'Halted', revertedAt: at, allowance, revision: stable };
}
