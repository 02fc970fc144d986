/**
 * The windows that coalesce a DaemonSet's delayed steps (status refreshes, rolling-update slot
 * steps, node recounts; docs/design.md, 12. The status-refresh window). Each DaemonSet's windows are
 * shifted by an offset taken from its key (its uid), so the steps of many DaemonSets spread over a
 * window instead of all falling due at its boundary: ten DaemonSets' status steps at one instant
 * hold a process's thread for a long burst, and a node's step that arrives then waits it out.
 */
import { fifoSafeId } from './message-group-id.ts';

/**
 * The status-refresh window, in seconds: one for the relay's coalescing, the router's refreshes and
 * the reconciler's requeues, and not configurable. The relay drops a DaemonSet's status-only changes
 * after the first of a window because the router's refresh runs at that window's end, and a requeue
 * collapses into the refresh because both name the same window: windows of different lengths
 * would end at different moments, and a change dropped after one window's end would wait for the
 * DaemonSet's next event.
 */
export const STATUS_WINDOW_SECONDS = 2;

/**
 * The window of the DaemonSet steps that freed rolling-update slots bring (the router's
 * `rolloutSlotWork`, coalesced ahead of it by the relay's `StatusCoalescer`): a quarter of the
 * status window. Shorter windows free slots sooner but cost more steps, each a LIST of every node
 * and of the DaemonSet's pods.
 */
export const ROLLOUT_SLOT_WINDOW_MS = 500;

/** The window of `windowMs` holding `atMs` for DaemonSet `key`: its number and when it ends (ms since the epoch). */
export function daemonSetWindow(
  key: string,
  atMs: number,
  windowMs: number,
): { window: number; endsAt: number } {
  const offset = spreadOf(key) % windowMs;
  const window = Math.floor((atMs - offset) / windowMs);
  return { window, endsAt: (window + 1) * windowMs + offset };
}

/**
 * The step of `kind` (`status`, `slot`, `recount`) for DaemonSet `key` wanted at `atMs`: due when its
 * window ends, with the FIFO de-duplication id `<kind>:<key>:<window>` — one id for the router's
 * refreshes and the reconciler's requeues of one window, so they collapse into one step.
 */
export function daemonSetWindowStep(
  kind: string,
  key: string,
  atMs: number,
  windowMs: number,
): { endsAt: number; deduplicationId: string } {
  const { window, endsAt } = daemonSetWindow(key, atMs, windowMs);
  return { endsAt, deduplicationId: fifoSafeId(`${kind}:${key}:${window}`) };
}

/** A number spread evenly from `text` (FNV-1a, 32 bits). */
function spreadOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}
