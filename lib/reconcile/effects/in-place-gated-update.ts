/**
 * An in-place update behind the pod's readiness gate (core/in-place/in-place-gate.ts): when the
 * update restarts a container of a gated pod, the gate is closed first (the pod leaves its
 * Services' endpoints), then the update is sent (in-place-update.ts); the gate opens again once the
 * update settled, on a later DaemonSet step (`openSettledGates`). A pod without the gate (created
 * before it, or by the built-in controller before a migration) is updated without one.
 */
import { closesGateFor } from '../../core/in-place/in-place-gate.ts';
import type { DepsPart } from '../deps/reconcile-deps.ts';
import { closeGate } from './in-place-gate-writes.ts';
import { type InPlaceOutcome, type InPlaceUpdateRequest, updateInPlace } from './in-place-update.ts';
import { inPlacePlan } from './in-place-update-plan.ts';

/** What the gated update needs: the API, the logs, and the event recorder. */
export type GatedUpdateDeps = DepsPart<'kube' | 'logger', 'events'>;

/**
 * `updateInPlace` with the gate closed first when the change restarts a container of a gated pod;
 * `stale` (nothing else written) when the pod went or was re-created before the gate closed.
 */
export async function gatedUpdateInPlace(
  deps: GatedUpdateDeps,
  request: Readonly<InPlaceUpdateRequest>,
): Promise<InPlaceOutcome> {
  const plan = inPlacePlan(request);
  if (plan.type !== 'recreate' && closesGateFor(request.pod, plan.change)) {
    if ((await closeGate(deps, request.pod)) === 'stale') return { type: 'stale' };
  }
  return updateInPlace(deps, request);
}
