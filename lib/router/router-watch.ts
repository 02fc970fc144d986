/**
 * Router rules for relayed watch events (docs/design.md, 8. The router):
 * - Node ADDED / DELETED / decision-relevant MODIFIED → a `node` message, with the relay's hints;
 *   one whose Ready turned False or Unknown under safe rollouts, or whose allocatable or labels
 *   changed under DaemonSets sizing their pods there (`rollouts`), also each one's `daemonset` step
 *   at the end of the short rollout window (`rolloutHealthWork`).
 * - DaemonSet event → a `daemonset` message; one that changed the DaemonSet's node readiness gate
 *   (`gateChange`) also a `node` message for every node (`router-gate-fan-out.ts`).
 * - Pod of a managed DaemonSet: DELETED, turned Failed/Succeeded, or got a deletionTimestamp → a
 *   `pair` message with the relay's hints (the pod must be replaced or its node made right); every
 *   pod event also schedules a coalesced status refresh (creation, binding, phase and readiness
 *   change the DaemonSet's counts). A pod whose DaemonSet gates its node (`gatesNode`) and whose
 *   readiness, phase or deletion changed (or whose changes are unknown) also sends its node's `node`
 *   step, with the relay's node hints: the gate taint is lifted or restored there at once
 *   (docs/design.md, 26. Node readiness gates). A pod event that can free a slot of its
 *   DaemonSet's rolling update (`rolloutSlot`) also sends the `daemonset` step at the end of a short
 *   slot window, so the next old pods are deleted without waiting out the status window
 *   (docs/design.md, 12. The status-refresh window). One that left every pod of its DaemonSet ready
 *   (`settles`) also sends the `daemonset` step at once, so the status says so without waiting out
 *   the window; one that may break a safe rollout's health rule (`healthSignal`) at the end of the
 *   short rollout window (`rolloutHealthWork`).
 * - Pod without a controller that the relay found matching a managed DaemonSet's selector
 *   (`adoptableBy`) → that DaemonSet's `pair` message for the pod's node, naming the pod: its step
 *   adopts the pod, and deletes it if it is extra.
 * - Other pod without a controller (released, or orphaned by `--cascade=orphan`) → a `daemonset`
 *   message for each managed DaemonSet of its namespace: one of them may adopt it.
 * - Pod controlled by something else → ignored.
 */
import { ROLLOUT_SLOT_WINDOW_MS } from '../messages/daemon-set-window.ts';
import type { MessageCause } from '../messages/message-cause.ts';
import { ROLLOUT_WINDOW_SECONDS } from '../messages/requeue-envelope.ts';
import { NODE_GATE_CHANGES, type WatchEventDetail } from '../messages/trigger.ts';
import type { DaemonSetMessage, WorkMessage } from '../messages/work-message.ts';
import type { RouterDeps } from './router-deps.ts';
import { gateFanOut } from './router-gate-fan-out.ts';
import { type RoutedWork, statusRefresh, windowEndStep } from './router-work.ts';

/** Pod changes that need the pair made right, not only the status recounted. */
const pairChanges = new Set(['terminal', 'deleting']);

/** Why a watch trigger produced no work, or the work it produced. */
export type WatchRouting = { readonly work: RoutedWork[] } | { readonly ignored: string };

function common(deps: Pick<RouterDeps, 'managedKind'>, cause: MessageCause) {
  return { v: 1 as const, cause, managedKind: deps.managedKind };
}

/**
 * The work for the watch event `detail` with the relay's changed facets `changes` (undefined when
 * unknown: anything may have changed), caused by `cause`.
 */
export async function routeWatch(
  deps: Pick<RouterDeps, 'managedKind' | 'kube' | 'clock'>,
  detail: Readonly<WatchEventDetail>,
  changes: readonly string[] | undefined,
  cause: MessageCause,
): Promise<WatchRouting> {
  const base = common(deps, cause);
  switch (detail.kind) {
    case 'Node': {
      // Rollouts this node turning NotReady may break: their steps within the rollout window.
      const rollouts = (detail.rollouts ?? []).map((daemonSet) =>
        rolloutHealthWork({ ...base, kind: 'daemonset', daemonSet }, deps.clock()),
      );
      return {
        work: [
          {
            to: 'work',
            message: {
              ...base,
              kind: 'node',
              node: { name: detail.name },
              ...(detail.hints ? { hints: detail.hints } : {}),
            },
          },
          ...rollouts,
        ],
      };
    }
    case 'DaemonSet': {
      if (detail.apiVersion !== deps.managedKind)
        return { ignored: `DaemonSet of ${detail.apiVersion}, not managed` };
      if (!detail.namespace) return { ignored: 'DaemonSet event without a namespace' };
      const daemonSet = { namespace: detail.namespace, name: detail.name, uid: detail.uid };
      const gates = detail.gateChange ? await gateFanOut(deps, detail.gateChange, cause) : [];
      const step: DaemonSetMessage = { ...base, kind: 'daemonset', daemonSet, ...nodesVersionOf(detail) };
      return { work: [{ to: 'work', message: step }, ...gates] };
    }
    case 'Pod':
      return routePod(deps, detail, changes, cause);
  }
}

async function routePod(
  deps: Pick<RouterDeps, 'managedKind' | 'kube' | 'clock'>,
  detail: Readonly<WatchEventDetail>,
  changes: readonly string[] | undefined,
  cause: MessageCause,
): Promise<WatchRouting> {
  const namespace = detail.namespace;
  if (!namespace) return { ignored: 'pod event without a namespace' };
  const controller = detail.controller;
  if (controller === undefined && detail.adoptableBy !== undefined)
    return { work: [adoptionWork(deps, namespace, detail, detail.adoptableBy, cause)] };
  if (controller === undefined) return { work: await orphanWork(deps, namespace, cause) };
  if (controller.kind !== 'DaemonSet' || controller.apiVersion !== deps.managedKind) {
    return {
      ignored: `pod controlled by ${controller.apiVersion} ${controller.kind}, not a managed DaemonSet`,
    };
  }
  const daemonSet = { namespace, name: controller.name, uid: controller.uid };
  const base = common(deps, cause);
  const status: DaemonSetMessage = {
    ...base,
    kind: 'daemonset',
    daemonSet,
    ...nodesVersionOf(detail),
    podsVersion: detail.resourceVersion,
  };
  const refresh = statusRefresh(status, deps.clock());
  const work: RoutedWork[] = [refresh];
  // ADDED: a pod was created (by us, usually): only the counts change. MODIFIED without `changes`
  // (a trigger not from our relay): anything may have changed, so the pair is looked at too.
  const modifiedForPair = changes === undefined || changes.some((c) => pairChanges.has(c));
  const needsPair = detail.event === 'DELETED' || (detail.event === 'MODIFIED' && modifiedForPair);
  if (needsPair) {
    const pair: WorkMessage = detail.nodeName
      ? {
          ...base,
          kind: 'pair',
          daemonSet,
          node: { name: detail.nodeName },
          ...(detail.pairHints ? { hints: detail.pairHints } : {}),
        }
      : status;
    work.push({ to: 'work', message: pair });
  }
  const gate = nodeGateWork(detail, changes, base);
  if (gate !== undefined) work.push(gate);
  const slot = detail.rolloutSlot === true ? rolloutSlotWork(status, deps.clock()) : undefined;
  // A slot window ending with the status window is the status refresh's step: the same step, once.
  if (slot !== undefined && !dueTogether(slot, refresh)) work.push(slot);
  // The status refresh stays for the window's later changes, which the relay coalesced behind this.
  if (detail.settles === true) work.push({ to: 'work', message: status });
  if (detail.healthSignal === true) work.push(rolloutHealthWork(status, deps.clock()));
  return { work };
}

/**
 * The DaemonSet step `status` names, for a pod event at `now` that can free a slot of its rolling
 * update (`rolloutSlot`): delayed to the end of the {@link ROLLOUT_SLOT_WINDOW_MS} window holding
 * `now`, with the de-duplication id `slot:<uid>:<window>`, as the status refresh is to the end of
 * its window (`statusRefresh`), so the step sees every slot freed in the window. Sent at once
 * instead, nearly every freed slot would cost a step of its own: the covered-step skip
 * (docs/design.md, 15. The DaemonSet step) spares only messages sent a second before a step's
 * reads, and a rollout frees slots more often than that (5,000 nodes, maxUnavailable 250: about 20
 * a second). So a DaemonSet runs at most one such step per window, for half a window of added wait
 * on average. The status refresh stays: it counts the status window's later changes, which the
 * relay coalesced behind this one.
 */
function rolloutSlotWork(status: Readonly<DaemonSetMessage>, now: Date): RoutedWork {
  return windowEndStep(status, now, ROLLOUT_SLOT_WINDOW_MS, 'slot');
}

/**
 * The DaemonSet step a signal that may break a safe rollout's health rule brings: at the end of the
 * DaemonSet's {@link ROLLOUT_WINDOW_SECONDS} window holding `now`, with the id
 * `rollout:<uid>:<window>` its rollout timers share, so the signals of the canaries that break
 * together become one step, which runs after all of them. Without the node and pod versions: the
 * step lists afresh, and sees every node that turned NotReady in the window.
 */
function rolloutHealthWork(step: Readonly<DaemonSetMessage>, now: Date): RoutedWork {
  const { nodesVersion: _nodes, podsVersion: _pods, ...fresh } = step;
  return windowEndStep(fresh, now, ROLLOUT_WINDOW_SECONDS * 1000, 'rollout');
}

/** True when `a` and `b` are delayed steps due at the same moment. */
function dueTogether(a: Readonly<RoutedWork>, b: Readonly<RoutedWork>): boolean {
  return a.to === 'delayed' && b.to === 'delayed' && a.notBefore.getTime() === b.notBefore.getTime();
}

/**
 * The `node` message of a pod event that can change its node's readiness gate: the pod gates its
 * node, names it (a pod not yet bound or pinned runs nowhere), and its readiness, phase or
 * deletion changed — or its changes are unknown, or it was added or deleted. Undefined otherwise.
 */
function nodeGateWork(
  detail: Readonly<WatchEventDetail>,
  changes: readonly string[] | undefined,
  base: ReturnType<typeof common>,
): RoutedWork | undefined {
  if (detail.gatesNode !== true || !detail.nodeName) return undefined;
  const relevant =
    detail.event !== 'MODIFIED' || changes === undefined || changes.some((c) => NODE_GATE_CHANGES.has(c));
  if (!relevant) return undefined;
  const hints = detail.hints?.node.name === detail.nodeName ? { hints: detail.hints } : {};
  return { to: 'work', message: { ...base, kind: 'node', node: { name: detail.nodeName }, ...hints } };
}

/**
 * The work of an orphan pod the relay found matching the selector of the DaemonSet `adopter`
 * (`adoptableBy`): the pair of that DaemonSet and the pod's node, naming the pod, whose step adopts
 * it and deletes it if it is extra; the DaemonSet's step when the pod targets no node yet (it is
 * adopted there, and left alone as upstream leaves a daemon pod it cannot place).
 */
function adoptionWork(
  deps: Pick<RouterDeps, 'managedKind'>,
  namespace: string,
  detail: Readonly<WatchEventDetail>,
  adopter: Readonly<{ name: string; uid: string }>,
  cause: MessageCause,
): RoutedWork {
  const daemonSet = { namespace, name: adopter.name, uid: adopter.uid };
  const base = { ...common(deps, cause), daemonSet };
  if (!detail.nodeName) return { to: 'work', message: { ...base, kind: 'daemonset' } };
  const orphan = { name: detail.name, uid: detail.uid };
  return { to: 'work', message: { ...base, kind: 'pair', node: { name: detail.nodeName }, orphan } };
}

/** A `daemonset` message for every managed DaemonSet in `namespace` (served from the watch cache). */
async function orphanWork(
  deps: Pick<RouterDeps, 'managedKind' | 'kube'>,
  namespace: string,
  cause: MessageCause,
): Promise<RoutedWork[]> {
  // A stale list is safe: a DaemonSet created since then gets its own event, whose step adopts.
  const list = await deps.kube.listDaemonSets({ namespace, allowStale: true });
  return list.items.flatMap((ds): RoutedWork[] => {
    const name = ds.metadata?.name;
    if (!name || ds.metadata?.deletionTimestamp) return [];
    const uid = ds.metadata?.uid;
    const daemonSet = { namespace, name, ...(uid ? { uid } : {}) };
    return [{ to: 'work', message: { ...common(deps, cause), kind: 'daemonset', daemonSet } }];
  });
}

/** The trigger's node version, for the `daemonset` messages made of it (docs/design.md, 15). */
function nodesVersionOf(detail: Readonly<WatchEventDetail>): { nodesVersion?: string } {
  return detail.nodesVersion === undefined ? {} : { nodesVersion: detail.nodesVersion };
}
