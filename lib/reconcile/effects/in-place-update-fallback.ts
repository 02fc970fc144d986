/**
 * The recreates that stand in for in-place resizes the node cannot take (core/in-place/resize-fallback.ts):
 * an Infeasible resize at once, a Deferred one past its deadline. Each is a delete of the pod; the
 * normal path creates its replacement of the current revision (the pair step the delete's event
 * brings), and the rolling update's budget holds, since a pod whose resize is pending already
 * counts as not ready (core/in-place/in-place-state.ts): recreating it takes no slot it did not
 * hold. The delete carries the pod's uid and resourceVersion as preconditions, so a pod that
 * changed since it was listed — its resize applied at last — is read again rather than deleted.
 * A Deferred resize still within its deadline asks for the DaemonSet step again when it ends.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { type DeleteAction, deletePodAction } from '../../core/action.ts';
import { targetNodeName } from '../../core/daemon-pod.ts';
import { CONTROLLER_REVISION_HASH_LABEL, type DaemonSet } from '../../core/daemon-set.ts';
import {
  RESIZE_DEFERRED_DEADLINE_SECONDS,
  type ResizeFallbackRecreate,
  resizeFallback,
} from '../../core/in-place/resize-fallback.ts';
import type { DepsPart } from '../deps/reconcile-deps.ts';
import { EventReason } from '../memory/event-recorder.ts';
import { emptyReport, type StepReport } from './step-report.ts';

/** The event reason of each fallback. */
const reasons = {
  Infeasible: EventReason.ResizeInfeasible,
  Deferred: EventReason.ResizeDeferred,
} as const;

/** The fallbacks of one DaemonSet step. */
export interface ResizeFallbacks {
  /** The deletes of the pods to recreate. */
  readonly deletes: readonly DeleteAction[];
  /** When the earliest Deferred resize within its deadline reaches it, in seconds. */
  readonly requeueAfterSeconds?: number;
  /** Records the fallback of a delete of `deletes` the API server took: its event, log and count. */
  afterDelete(action: Readonly<DeleteAction>): void;
  /** The fallbacks recorded so far, counted by reason. */
  report(): StepReport;
}

/** What the fallbacks need: the logs and the event recorder, the clock, and the Deferred deadline. */
export type FallbackDeps = DepsPart<'logger', 'events'> & {
  readonly settings?: { readonly resizeDeferredSeconds?: number };
};

/**
 * The fallbacks among `pods` of `ds` at revision `targetHash` (the revision the rollout aims at;
 * a pod of another one is the rolling update's to replace): a delete of each pod whose resize is
 * Infeasible or Deferred past the deadline (`deps.settings.resizeDeferredSeconds`, default
 * {@link RESIZE_DEFERRED_DEADLINE_SECONDS}), and when to look again for the others still Deferred.
 */
export function resizeFallbacks(
  deps: FallbackDeps,
  ds: Readonly<DaemonSet>,
  pods: readonly V1Pod[],
  targetHash: string,
): ResizeFallbacks {
  const now = deps.clock();
  const deadline = deps.settings?.resizeDeferredSeconds ?? RESIZE_DEFERRED_DEADLINE_SECONDS;
  const chosen = new Map<string, { pod: V1Pod; fallback: ResizeFallbackRecreate }>();
  let requeueAfterSeconds: number | undefined;
  for (const pod of pods) {
    if (pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] !== targetHash) continue;
    const fallback = resizeFallback(pod, now, deadline);
    if (fallback?.type === 'wait')
      requeueAfterSeconds = Math.min(requeueAfterSeconds ?? fallback.afterSeconds, fallback.afterSeconds);
    else if (fallback?.type === 'recreate') chosen.set(pod.metadata?.uid ?? '', { pod, fallback });
  }
  const deletes = [...chosen.values()].map(({ pod, fallback }) =>
    deletePodAction(pod, targetNodeName(pod) ?? '', `resize ${fallback.reason}: recreated`),
  );
  const report = emptyReport();
  return {
    deletes,
    ...(requeueAfterSeconds === undefined ? {} : { requeueAfterSeconds }),
    afterDelete(action) {
      const found = chosen.get(action.uid);
      if (found === undefined) return;
      chosen.delete(action.uid);
      record(deps, ds, found.pod, found.fallback, targetHash);
      if (found.fallback.reason === 'Infeasible') report.resizeFallbacksInfeasible++;
      else report.resizeFallbacksDeferred++;
    },
    report: () => ({ ...report }),
  };
}

/** The Warning event on the DaemonSet, and the log line, of one fallback. */
function record(
  deps: FallbackDeps,
  ds: Readonly<DaemonSet>,
  pod: Readonly<V1Pod>,
  fallback: Readonly<ResizeFallbackRecreate>,
  revision: string,
): void {
  const meta = pod.metadata ?? {};
  const node = targetNodeName(pod) ?? '(unknown)';
  const what = fallback.reason === 'Infeasible' ? 'is infeasible' : 'stayed deferred';
  deps.memory.events.warning(
    ds,
    reasons[fallback.reason],
    `Resize of pod ${meta.namespace}/${meta.name} on node ${node} to revision ${revision} ${what}: ` +
      `${fallback.message}; recreated the pod`,
  );
  deps.ports.logger.info('recreating a daemon pod whose in-place resize the node cannot take', {
    pod: `${meta.namespace}/${meta.name}`,
    node,
    revision,
    reason: fallback.reason,
    message: fallback.message,
  });
}
