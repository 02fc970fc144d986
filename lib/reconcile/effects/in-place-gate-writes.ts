/**
 * The writes of the in-place readiness gate (core/in-place/in-place-gate.ts), each one PATCH of
 * pods/status setting conditions by type:
 * - `openCreatedGate`: right after a gated pod's create, its condition True, so the pod turns Ready
 *   as soon as its containers are (the kubelet holds a gate without its condition not ready);
 * - `closeGate`: before the patch that restarts a container, the condition False and the pod's
 *   Ready False;
 * - `openSettledGates`: on a DaemonSet step, each gated pod whose update settled (or whose create
 *   was not followed by its True, the process having stopped in between) gets its True.
 * Each is guarded by the pod's uid; the opening of a listed pod also by its resourceVersion, so a
 * stale view never opens the gate of a pod a later update closed again (Kruise's Refresh: "only
 * update the condition for the checked Pod version").
 */
import type { V1Pod } from '@kubernetes/client-node';
import { closeGateConditions, gateToOpen, openGateCondition } from '../../core/in-place/in-place-gate.ts';
import { ConflictError, NotFoundError } from '../../kube/errors/kube-api-errors.ts';
import type { DepsPart } from '../deps/reconcile-deps.ts';
import { mapConcurrent } from './map-concurrent.ts';

/** What the gate writes need: the API and the logs. */
export type GateDeps = DepsPart<'kube' | 'logger', never>;

/** The pod's name and uid, as the writes' target. */
function targetOf(pod: Readonly<V1Pod>, withVersion: boolean) {
  const meta = pod.metadata ?? {};
  const version = withVersion ? meta.resourceVersion : undefined;
  return {
    namespace: meta.namespace ?? 'default',
    name: meta.name ?? '',
    uid: meta.uid ?? '',
    ...(version === undefined ? {} : { resourceVersion: version }),
  };
}

/** True when `error` says the pod is gone or not the one read. */
const isStale = (error: unknown) => error instanceof ConflictError || error instanceof NotFoundError;

/**
 * Sets the gate of the just created `pod` True, when it has one; resolves to the pod as stored after
 * that write (undefined when none was made). Any failure is logged, not thrown: the pod was made,
 * and the DaemonSet step its creation brings opens the gate (`openSettledGates`).
 */
export async function openCreatedGate(deps: GateDeps, pod: Readonly<V1Pod>): Promise<V1Pod | undefined> {
  if (!gateToOpen(pod)) return undefined;
  try {
    return await deps.ports.kube.patchPodConditions(targetOf(pod, false), [openGateCondition(deps.clock())]);
  } catch (error) {
    if (isStale(error)) return undefined;
    deps.ports.logger.warn('could not open the in-place readiness gate of a created pod; a later step will', {
      pod: `${pod.metadata?.namespace}/${pod.metadata?.name}`,
      error: error instanceof Error ? error.message : String(error),
    });
    return undefined;
  }
}

/**
 * Closes the gate of `pod` before an in-place update restarts its containers; `stale` when the pod
 * is gone or re-created (nothing written). Other errors are thrown.
 */
export async function closeGate(deps: GateDeps, pod: Readonly<V1Pod>): Promise<'closed' | 'stale'> {
  try {
    await deps.ports.kube.patchPodConditions(targetOf(pod, false), closeGateConditions(pod, deps.clock()));
    return 'closed';
  } catch (error) {
    if (isStale(error)) return 'stale';
    throw error;
  }
}

/**
 * Opens the gate of each of `pods` that is owed it (core gateToOpen), guarded by the resourceVersion
 * listed; returns how many were opened, how many had changed since (to be looked at again), and
 * the resourceVersions the openings left the pods at.
 */
export async function openSettledGates(
  deps: GateDeps,
  pods: readonly Readonly<V1Pod>[],
): Promise<{ readonly opened: number; readonly changed: number; readonly written: readonly string[] }> {
  let [opened, changed] = [0, 0];
  const written: string[] = [];
  // Concurrently: a rollout opens up to maxUnavailable gates in one step.
  await mapConcurrent(pods.filter(gateToOpen), async (pod) => {
    try {
      const stored = await deps.ports.kube.patchPodConditions(targetOf(pod, true), [
        openGateCondition(deps.clock()),
      ]);
      if (stored.metadata?.resourceVersion) written.push(stored.metadata.resourceVersion);
      opened++;
    } catch (error) {
      if (error instanceof ConflictError) changed++;
      else if (!(error instanceof NotFoundError)) throw error;
    }
  });
  return { opened, changed, written };
}
