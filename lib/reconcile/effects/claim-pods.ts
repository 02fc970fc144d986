/**
 * Adoption and release of pods by ControllerRef (upstream controller_ref_manager.go ClaimPods as
 * getDaemonPods uses it), executed with preconditions so a pod that changed since it was listed is
 * left for the next run.
 */
import type { V1OwnerReference, V1Pod } from '@kubernetes/client-node';
import { planAdoption } from '../../core/adoption.ts';
import { controllerRefFor } from '../../core/controller-ref.ts';
import { NODE_LABEL, nodeLabelValue, targetNodeName } from '../../core/daemon-pod.ts';
import { DAEMONSET_UID_LABEL, type DaemonSet } from '../../core/daemon-set.ts';
import { ConflictError, NotFoundError } from '../../kube/errors/kube-api-errors.ts';
import type { ReconcileDeps } from '../deps/reconcile-deps.ts';
import { mapConcurrent } from './map-concurrent.ts';
import { emptyReport, type StepReport } from './step-report.ts';

/** The pods the DaemonSet controls after claiming, and what claiming did. */
export interface ClaimResult {
  readonly claimed: V1Pod[];
  /** Nodes of orphans that could not be adopted this run: creating a pod there would duplicate them. */
  readonly blocked: ReadonlySet<string>;
  readonly report: StepReport;
}

/** `pod`'s owner references with `ref` replacing any controller reference (adoption). */
function withController(pod: Readonly<V1Pod>, ref: V1OwnerReference): V1OwnerReference[] {
  return [...(pod.metadata?.ownerReferences ?? []).filter((r) => r.uid !== ref.uid && !r.controller), ref];
}

/** `pod`'s owner references without the DaemonSet's (release). */
function withoutOwner(pod: Readonly<V1Pod>, uid: string): V1OwnerReference[] {
  return (pod.metadata?.ownerReferences ?? []).filter((r) => r.uid !== uid);
}

/** New owner references (and labels) for a pod, or undefined when the pod (as now read) needs no change. */
type OwnersOf = (
  pod: Readonly<V1Pod>,
) => { owners: V1OwnerReference[]; labels: Record<string, string | null> | undefined } | undefined;

/**
 * The labels a pod gets with its new owners. On adoption: the DaemonSet uid label, which the relay
 * watches, so an adopted pod is followed like a created one (its deletion, failure and readiness
 * reach the router; node hints include it); and the node label of the node it targets, by which
 * the pair step lists a pair's pods (reads/selector-query.ts), so it is never taken for missing and
 * doubled. On release: the uid label is removed when it names that DaemonSet; the node label stays,
 * so the name stays taken.
 */
function labelsFor(
  pod: Readonly<V1Pod>,
  dsUid: string,
  adopting: boolean,
): Record<string, string | null> | undefined {
  const labels = pod.metadata?.labels ?? {};
  const current = labels[DAEMONSET_UID_LABEL];
  if (!adopting) return current === dsUid ? { [DAEMONSET_UID_LABEL]: null } : undefined;
  const change: Record<string, string> = {};
  if (current !== dsUid) change[DAEMONSET_UID_LABEL] = dsUid;
  const nodeName = targetNodeName(pod);
  const nodeLabel = nodeName === undefined ? undefined : nodeLabelValue(nodeName);
  if (nodeLabel !== undefined && labels[NODE_LABEL] !== nodeLabel) change[NODE_LABEL] = nodeLabel;
  return Object.keys(change).length > 0 ? change : undefined;
}

async function patchOnce(
  deps: ReconcileDeps,
  pod: Readonly<V1Pod>,
  ownerReferences: V1OwnerReference[],
  labels: Record<string, string | null> | undefined,
): Promise<V1Pod> {
  const meta = pod.metadata ?? {};
  return deps.ports.kube.patchPodOwnerReferences({
    namespace: meta.namespace ?? 'default',
    name: meta.name ?? '',
    uid: meta.uid ?? '',
    resourceVersion: meta.resourceVersion ?? '',
    ownerReferences,
    ...(labels ? { labels } : {}),
  });
}

/** The pod named `name` with uid `uid` in `namespace` as stored now; undefined when it is gone. */
export async function readPodNow(
  deps: ReconcileDeps,
  namespace: string,
  name: string,
  uid: string,
): Promise<V1Pod | undefined> {
  const list = await deps.ports.kube.listPods({ namespace, fieldSelector: `metadata.name=${name}` });
  return list.items.find((item) => item.metadata?.uid === uid);
}

/** The pod as stored now, if it is still the same pod. */
function reread(deps: ReconcileDeps, pod: Readonly<V1Pod>): Promise<V1Pod | undefined> {
  const meta = pod.metadata ?? {};
  return readPodNow(deps, meta.namespace ?? 'default', meta.name ?? '', meta.uid ?? '');
}

/**
 * Patches the pod's owner references to `ownersOf(pod)`, guarded by its resourceVersion (a merge
 * patch replaces the whole list, so it must not overwrite a change made since the read). The
 * kubelet's status writes move the resourceVersion all the time, so a Conflict re-reads the pod and
 * tries once more if it still needs the change (upstream patches with a uid precondition only, but
 * its strategic merge patch adds to the list instead of replacing it). Undefined when the pod is
 * gone, no longer needs the change, or changed twice.
 */
async function patchOwners(
  deps: ReconcileDeps,
  pod: Readonly<V1Pod>,
  ownersOf: OwnersOf,
): Promise<V1Pod | undefined> {
  let current: Readonly<V1Pod> | undefined = pod;
  for (let attempt = 0; attempt < 2 && current !== undefined; attempt++) {
    const change = ownersOf(current);
    if (change === undefined) return undefined;
    try {
      return await patchOnce(deps, current, change.owners, change.labels);
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      if (!(error instanceof ConflictError)) throw error;
      current = await reread(deps, current);
    }
  }
  return undefined;
}

/**
 * Claims `pods` (the DaemonSet's namespace's pods matching its selector, plus those it controls):
 * adopts matching orphans, releases controlled pods that no longer match, and returns the pods it
 * then controls, adopted ones as patched. Pods another controller owns are never touched.
 */
export async function claimPods(
  deps: ReconcileDeps,
  ds: Readonly<DaemonSet>,
  pods: readonly V1Pod[],
): Promise<ClaimResult> {
  const plan = planAdoption(ds, pods);
  const report = emptyReport();
  const ref = controllerRefFor(ds);
  const adoptable: OwnersOf = (pod) =>
    planAdoption(ds, [pod as V1Pod]).adopt.length > 0
      ? { owners: withController(pod, ref), labels: labelsFor(pod, ref.uid, true) }
      : undefined;
  const releasable: OwnersOf = (pod) =>
    planAdoption(ds, [pod as V1Pod]).release.length > 0
      ? { owners: withoutOwner(pod, ref.uid), labels: labelsFor(pod, ref.uid, false) }
      : undefined;
  const adopted = await mapConcurrent(plan.adopt, (pod) => patchOwners(deps, pod, adoptable));
  const released = await mapConcurrent(plan.release, (pod) => patchOwners(deps, pod, releasable));
  report.adopted = adopted.filter((pod) => pod !== undefined).length;
  report.released = released.filter((pod) => pod !== undefined).length;
  const adoptedByUid = new Map(
    adopted.flatMap((pod) => (pod ? [[pod.metadata?.uid ?? '', pod] as const] : [])),
  );
  const orphans = new Set(plan.adopt.map((pod) => pod.metadata?.uid));
  const blocked = new Set<string>();
  const claimed = plan.claimed.flatMap((pod) => {
    const uid = pod.metadata?.uid ?? '';
    if (!orphans.has(uid)) return [pod];
    const patched = adoptedByUid.get(uid);
    if (patched === undefined) blocked.add(targetNodeName(pod) ?? '');
    return patched ? [patched] : [];
  });
  return { claimed, blocked, report };
}
