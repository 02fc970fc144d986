/**
 * Adoption and release of pods by ControllerRef: upstream pkg/controller controller_ref_manager.go
 * PodControllerRefManager.ClaimPods / BaseControllerRefManager.ClaimObject, as the DaemonSet
 * controller's getDaemonPods uses it.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { controllerOf } from './controller-ref.ts';
import type { DaemonSet } from './daemon-set.ts';
import { isEmptyLabelSelector, labelSelectorMatches } from './label-selector.ts';
import { isPodTerminating } from './pod-availability.ts';

/** What ClaimPods would do: pods to adopt, pods to release, and the pods the DaemonSet then owns. */
export interface AdoptionPlan {
  /** Orphans matching the selector: give them the DaemonSet's controller reference. */
  adopt: V1Pod[];
  /** Pods the DaemonSet controls that no longer match its selector: remove its reference. */
  release: V1Pod[];
  /** Pods the DaemonSet controls after the plan (owned and matching, plus the adopted ones). */
  claimed: V1Pod[];
}

/**
 * The ClaimPods decisions for `pods` (the namespace's pods):
 * - controlled by another owner → untouched;
 * - controlled by `ds` and matching its selector → claimed; not matching → released, unless `ds`
 *   is being deleted (then left as is);
 * - orphan → adopted when `ds` is not being deleted, the selector matches, the pod is not being
 *   deleted and is in the DaemonSet's namespace.
 * A DaemonSet with an empty selector claims nothing (upstream stops with a SelectingAll event).
 */
export function planAdoption(ds: Readonly<DaemonSet>, pods: readonly V1Pod[]): AdoptionPlan {
  const plan: AdoptionPlan = { adopt: [], release: [], claimed: [] };
  const selector = ds.spec?.selector;
  if (selector === undefined || isEmptyLabelSelector(selector)) return plan;
  const dsDeleting = Boolean(ds.metadata?.deletionTimestamp);
  const uid = ds.metadata?.uid ?? '';
  for (const pod of pods) {
    const matches = labelSelectorMatches(selector, pod.metadata?.labels);
    const ref = controllerOf(pod);
    if (ref !== undefined) {
      if (ref.uid !== uid) continue;
      if (matches) plan.claimed.push(pod);
      else if (!dsDeleting) plan.release.push(pod);
      continue;
    }
    const sameNamespace = (pod.metadata?.namespace ?? '') === (ds.metadata?.namespace ?? '');
    if (!dsDeleting && matches && !isPodTerminating(pod) && sameNamespace) {
      plan.adopt.push(pod);
      plan.claimed.push(pod);
    }
  }
  return plan;
}
