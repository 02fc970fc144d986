/**
 * The nodes of a rollout as the safe-rollout rules see them: which revision each runs or is moving
 * to, and the topology domain each belongs to, in the order domains are rolled.
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { DaemonSet } from '../daemon-set.ts';
import type { NodeView } from '../node-view.ts';
import { isPodAvailable, isPodTerminating } from '../pod-availability.ts';
import { isPodUpdated } from '../pod-revision.ts';

/** One node that should run the daemon (or keeps running its pod), for the rollout of one revision. */
export interface RolloutNode {
  readonly view: NodeView;
  /** Its topology domain: the label value, '' without the label (or without a topology key). */
  readonly domain: string;
  /** Its live pod of the revision, if any. */
  readonly newPod: V1Pod | undefined;
  /** It runs (or starts) the revision, or has no live pod and gets one of it: it counts as updated. */
  readonly updated: boolean;
  /** Its pod of the revision is available. */
  readonly available: boolean;
}

/**
 * The domain order (docs/design.md, 30): label values in string order, nodes without the label
 * last. A negative number when `a` is rolled before `b`.
 */
export function compareDomains(a: string, b: string): number {
  if (a === b) return 0;
  if (a === '') return 1;
  if (b === '') return -1;
  return a < b ? -1 : 1;
}

/** The domain of a node view under `topologyKey`. */
export function domainOf(view: Readonly<NodeView>, topologyKey: string | undefined): string {
  if (topologyKey === undefined) return '';
  return view.node?.metadata?.labels?.[topologyKey] ?? '';
}

/**
 * The nodes that should run the daemon, in rollout order (domain, then name), classified for the
 * revision `hash`. A node without a live pod (its old one being deleted or gone, or a node just
 * joined) counts as updated: the pair step creates its pod of the revision as soon as it can.
 */
export function rolloutNodes(
  ds: Readonly<DaemonSet>,
  views: readonly NodeView[],
  hash: string,
  topologyKey: string | undefined,
  now: Date,
): RolloutNode[] {
  const minReadySeconds = ds.spec?.minReadySeconds ?? 0;
  return (
    views
      // A node that turned NotReady no longer takes a new daemon pod (its not-ready NoSchedule taint),
      // but its pod keeps running there: it still counts, and the health rules must see it.
      .filter((view) => view.shouldRun || (view.shouldContinueRunning && view.pods.length > 0))
      .map((view) => {
        const live = view.pods.filter((pod) => !isPodTerminating(pod));
        const newPod = live.find((pod) => isPodUpdated(pod, hash, ds));
        // No live pod: its old one is going or gone, or the node is new. The pair step gives it a pod
        // of the revision either way, so it counts against the step already.
        const replacing = live.length === 0;
        return {
          view,
          domain: domainOf(view, topologyKey),
          newPod,
          updated: newPod !== undefined || replacing,
          available: newPod !== undefined && isPodAvailable(newPod, minReadySeconds, now),
        };
      })
      .sort(
        (a, b) =>
          compareDomains(a.domain, b.domain) ||
          (a.view.name < b.view.name ? -1 : a.view.name > b.view.name ? 1 : 0),
      )
  );
}
