/**
 * The orphan a pair message names (docs/design.md, 14. The pair step): a pod without a controller
 * that matches the DaemonSet's selector and targets the pair's node, which the relay saw appear.
 * Upstream's addPod enqueues every DaemonSet matching an orphan, whose sync adopts it (ClaimPods)
 * and then deletes it if the node should not run the DaemonSet or already runs its pod; here the
 * pair step does both for the one node concerned.
 */
import { isControlledBy } from '../../core/controller-ref.ts';
import { targetNodeName } from '../../core/daemon-pod.ts';
import type { PairMessage } from '../../messages/work-message.ts';
import type { ReconcileDeps } from '../deps/reconcile-deps.ts';
import { claimPods, readPodNow } from '../effects/claim-pods.ts';
import { emptyReport, type StepReport } from '../effects/step-report.ts';
import type { PairRead } from '../reads/pair-reader.ts';

/** A pair read with the named orphan among its pods once adopted, and what adopting did. */
export interface WithOrphan {
  readonly read: PairRead;
  readonly report: StepReport;
  /**
   * The orphan is still there but neither this step nor another could be seen adopting it (its
   * patch met changes twice): planned without it, the pair would look empty and get a second pod,
   * so the step plans nothing this time, as the DaemonSet step skips such a node.
   */
  readonly blocked?: true;
}

/**
 * `read` with the orphan `message` names adopted into its pods (one LIST of the pod by name, one
 * guarded PATCH of its owner references and labels): the plan made from it then deletes the pod if
 * it is extra. `read` itself when the message names none, the read has it already, or it is gone,
 * now targets another node, or may not be adopted (`planAdoption`: another controller took it, it
 * is being deleted, its labels no longer match).
 */
export async function withAdoptedOrphan(
  deps: ReconcileDeps,
  message: Readonly<PairMessage>,
  read: PairRead,
): Promise<WithOrphan> {
  const orphan = message.orphan;
  const none = { read, report: emptyReport() };
  if (orphan === undefined || read.pods.some((pod) => pod.metadata?.uid === orphan.uid)) return none;
  const pod = await readPodNow(deps, message.daemonSet.namespace, orphan.name, orphan.uid);
  if (pod === undefined || targetNodeName(pod) !== read.nodeName) return none;
  const { claimed, blocked, report } = await claimPods(deps, read.ds, [pod]);
  if (claimed.length > 0) return { read: { ...read, pods: [...read.pods, ...claimed] }, report };
  if (blocked.size === 0) return { read, report };
  // The patch met a change: another step — the DaemonSet step, claiming every orphan at once — may
  // have adopted it meanwhile. Then it is the pair's pod; else the pair waits for the next step.
  const now = await readPodNow(deps, message.daemonSet.namespace, orphan.name, orphan.uid);
  if (now !== undefined && isControlledBy(now, read.ds))
    return { read: { ...read, pods: [...read.pods, now] }, report };
  return now === undefined ? { read, report } : { read, report, blocked: true };
}
