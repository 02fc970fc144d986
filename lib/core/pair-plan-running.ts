/**
 * The shouldContinueRunning branch of upstream daemon_controller.go podsShouldBeOnNode: failed and
 * succeeded pods, excess pods, and the surge pair of an old and a new pod on one node.
 */
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { type Action, deletePodAction } from './action.ts';
import type { DaemonSet } from './daemon-set.ts';
import {
  carriedFailureRecord,
  type FailureRecord,
  failedPodDecision,
  failureAnnotations,
} from './failure-backoff.ts';
import {
  isPodAvailable,
  isPodReady,
  isPodTerminal,
  isPodTerminating,
  oldestFirst,
  secondsUntilAvailable,
} from './pod-availability.ts';
import { isPodCurrent } from './pod-revision.ts';
import { allowsSurge } from './rolling-update/budget.ts';

/** Input of {@link planRunningPods}: the pair with terminal-and-deleted pods already dropped. */
export interface RunningPodsState {
  ds: Readonly<DaemonSet>;
  pods: readonly V1Pod[];
  nodeName: string;
  shouldRun: boolean;
  currentHash: string;
  now: Date;
  /** The node: a pod of the current revision is new only with the size it calls for (isPodCurrent). */
  node?: Readonly<V1Node> | undefined;
}

/** Deletes and requeues for the node, and whether a new pod must be created (with what). */
export interface RunningPodsPlan {
  actions: Action[];
  replace?: { annotations: Record<string, string>; reason: string };
}

interface Sorted {
  actions: Action[];
  running: V1Pod[];
  record: FailureRecord | undefined;
  replacing: boolean;
  waiting: boolean;
  liveTerminating: boolean;
}

/**
 * The plan for a node whose pods may keep running. Without surge: at most one running pod (the
 * oldest); a replacement is created in the same plan when a failed/succeeded pod was deleted and
 * nothing else is on the node (no running pod, no failed pod in backoff, no live pod still
 * terminating). With surge (upstream AllowsSurge): a pod is created whenever none runs and the
 * node should run one; otherwise the oldest old and oldest new pods are kept until the new one is
 * available (or the old one is not ready).
 * Deliberate deviation: upstream (surge) creates a new pod while a failed pod waits out its backoff;
 * here a failed pod in backoff holds the node in both modes, or the backoff would not hold back the
 * pod churn it exists to limit.
 */
export function planRunningPods(state: Readonly<RunningPodsState>): RunningPodsPlan {
  const sorted = sortPods(state);
  const { actions, running } = sorted;
  const annotations = sorted.record ? failureAnnotations(sorted.record) : {};
  if (!allowsSurge(state.ds)) {
    if (running.length > 1) {
      for (const pod of oldestFirst(running).slice(1))
        actions.push(deleteOn(state, pod, 'excess daemon pod on node'));
    }
    const free = running.length === 0 && !sorted.waiting && !sorted.liveTerminating;
    if (state.shouldRun && sorted.replacing && free) {
      return { actions, replace: { annotations, reason: 'replacing failed or succeeded daemon pod' } };
    }
    return { actions };
  }
  if (running.length === 0 && state.shouldRun && !sorted.waiting) {
    return { actions, replace: { annotations, reason: 'surge: no running daemon pod on node' } };
  }
  if (running.length > 1) actions.push(...surgeActions(state, running));
  return { actions };
}

function sortPods(state: Readonly<RunningPodsState>): Sorted {
  const generation = state.ds.metadata?.generation ?? 0;
  const out: Sorted = {
    actions: [],
    running: [],
    record: undefined,
    replacing: false,
    waiting: false,
    liveTerminating: false,
  };
  for (const pod of state.pods) {
    if (isPodTerminating(pod)) {
      out.liveTerminating ||= !isPodTerminal(pod);
    } else if (pod.status?.phase === 'Failed') {
      const decision = failedPodDecision(pod, generation, state.now);
      if (decision.kind === 'wait') {
        out.waiting = true;
        out.actions.push({
          type: 'requeue',
          afterSeconds: decision.afterSeconds,
          reason: `failed daemon pod ${podName(pod)} in backoff`,
        });
        continue;
      }
      out.actions.push(deleteOn(state, pod, 'failed daemon pod'));
      out.record = higher(out.record, decision.record);
      out.replacing = true;
    } else if (pod.status?.phase === 'Succeeded') {
      out.actions.push(deleteOn(state, pod, 'succeeded daemon pod'));
      out.record = higher(out.record, carriedFailureRecord(pod, generation));
      out.replacing = true;
    } else {
      out.running.push(pod);
    }
  }
  return out;
}

/**
 * Upstream's surge rule: keep the oldest current pod (isPodCurrent: of the current revision and,
 * under node sizing, of its node's size) and the oldest other one, delete the rest; delete the old one when it is not ready or the new one is available.
 * While the new one is ready but not yet available, requeue for when it will be.
 */
function surgeActions(state: Readonly<RunningPodsState>, running: readonly V1Pod[]): Action[] {
  const actions: Action[] = [];
  let oldestNew: V1Pod | undefined;
  let oldestOld: V1Pod | undefined;
  for (const pod of oldestFirst(running)) {
    const isNew = isPodCurrent(pod, state.currentHash, state.ds, state.node);
    if (isNew && oldestNew === undefined) oldestNew = pod;
    else if (!isNew && oldestOld === undefined) oldestOld = pod;
    else actions.push(deleteOn(state, pod, 'excess daemon pod on node (surge)'));
  }
  if (oldestNew === undefined || oldestOld === undefined) return actions;
  const minReadySeconds = state.ds.spec?.minReadySeconds ?? 0;
  if (!isPodReady(oldestOld)) {
    actions.push(deleteOn(state, oldestOld, 'old daemon pod not ready; new pod replaces it'));
  } else if (isPodAvailable(oldestNew, minReadySeconds, state.now)) {
    actions.push(deleteOn(state, oldestOld, 'new daemon pod available; replaces old pod'));
  } else {
    const wait = secondsUntilAvailable(oldestNew, minReadySeconds, state.now);
    if (wait !== undefined)
      actions.push({
        type: 'requeue',
        afterSeconds: wait,
        reason: 'new daemon pod waiting for minReadySeconds',
      });
  }
  return actions;
}

function higher(a: FailureRecord | undefined, b: FailureRecord | undefined): FailureRecord | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return b.failures > a.failures ? b : a;
}

function deleteOn(state: Readonly<RunningPodsState>, pod: Readonly<V1Pod>, reason: string): Action {
  return deletePodAction(pod, state.nodeName, `${reason} ${podName(pod)} on node ${state.nodeName}`);
}

function podName(pod: Readonly<V1Pod>): string {
  return pod.metadata?.name ?? '';
}
