/**
 * Coalescing of status-only pod changes in the relay, ahead of the router's status refresh
 * (docs/design.md, 12. The status-refresh window). A pod created, bound, started or turned (not)
 * ready changes nothing but its DaemonSet's status counts, and the router turns every such change
 * into the same thing: one status refresh of the DaemonSet per window, run after the window closes.
 * So the relay forwards the first status-only change of a DaemonSet in each window and drops the
 * others of that window: the refresh the first one causes runs after all of them (the router places
 * it at the end of the window it routes in, never earlier than the relay's), and reads the pods as
 * they are then.
 *
 * This turns the four triggers of every pod start (ADDED, bound, Running, Ready) of a 5,000-node
 * rollout into a handful per DaemonSet and window, instead of 20,000 triggers through the bus,
 * the archive and the router. Changes that need the pair itself — DELETED, terminal phase,
 * deletionTimestamp, a controller reference gone — are never coalesced.
 *
 * A status-only change that frees a rolling-update slot (`rollout-slots.ts`) is coalesced the same
 * way within the shorter slot window: the router places the slot step at the end of the window it
 * routes the first one in, after every later one of that window, so only the first of a DaemonSet's
 * slot window is forwarded. A 20,000-node rollout frees about a hundred slots a second, each of
 * which was a trigger through the bus and the router for one step per half second.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { controllerOf } from '../../core/controller-ref.ts';
import {
  daemonSetWindow,
  ROLLOUT_SLOT_WINDOW_MS,
  STATUS_WINDOW_SECONDS,
} from '../../messages/daemon-set-window.ts';

/**
 * Pod changes that only move status counts (or, a pod turning unschedulable, the status's
 * PodsUnschedulable condition and the FailedPlacement events the same refresh records).
 */
const statusOnly = new Set(['phase', 'ready', 'node', 'unschedulable']);

/**
 * Remembers, per DaemonSet, the last status window in which a status-only change was forwarded,
 * and the last slot window in which a change freeing a slot was.
 */
export class StatusCoalescer {
  private readonly forwarded = new Map<string, number>();
  private readonly slotsForwarded = new Map<string, number>();

  /**
   * True when the pod event (`type`, with the relay's changed facets `changes`) of `pod` at `now`
   * may be dropped: it only moves status counts, and a change of the same DaemonSet was forwarded
   * in the same window. Otherwise false — and a status-only change is remembered as forwarded.
   */
  coalesces(
    type: 'ADDED' | 'MODIFIED' | 'DELETED',
    changes: readonly string[],
    pod: Readonly<V1Pod>,
    now: Date,
  ): boolean {
    if (type === 'DELETED') return false;
    if (type === 'MODIFIED' && !changes.every((c) => statusOnly.has(c))) return false;
    return followsInWindow(this.forwarded, pod, now, STATUS_WINDOW_SECONDS * 1000);
  }

  /**
   * True when a change of `pod` at `now` that frees a slot of its DaemonSet's rolling update
   * follows another of the same DaemonSet's slot window: the slot step the first one brings runs
   * after it. Otherwise false — and the change is remembered as forwarded. The caller forwards every
   * change this answers false for.
   */
  coalescesSlot(pod: Readonly<V1Pod>, now: Date): boolean {
    return followsInWindow(this.slotsForwarded, pod, now, ROLLOUT_SLOT_WINDOW_MS);
  }
}

/**
 * True when `forwarded` holds a change of `pod`'s DaemonSet in the `windowMs` window holding `now`
 * (the router's window for that DaemonSet, shifted per DaemonSet: the step it sends runs at its
 * end, after every change this drops). Otherwise false, and that window is remembered. A pod
 * without a controller is never dropped.
 */
function followsInWindow(
  forwarded: Map<string, number>,
  pod: Readonly<V1Pod>,
  now: Date,
  windowMs: number,
): boolean {
  const owner = controllerOf(pod)?.uid;
  if (!owner) return false;
  const { window } = daemonSetWindow(owner, now.getTime(), windowMs);
  if (forwarded.get(owner) === window) return true;
  if (forwarded.size > 10_000) forwarded.clear();
  forwarded.set(owner, window);
  return false;
}
