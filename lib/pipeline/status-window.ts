/**
 * The status-refresh windows of a DaemonSet (pipeline design 9), shared by the relay, which
 * forwards one status-only change per window, and the router, which runs one refresh at each
 * window's end. Each DaemonSet's windows are shifted by a phase of its own (from a hash of its uid),
 * so the refreshes of many DaemonSets do not all fall on the same instant: ten DaemonSet steps at
 * once would hold up a node's step behind them.
 */
import { createHash } from 'node:crypto';

/** One window: its number (for de-duplication) and when it ends (ms since the epoch). */
export interface StatusWindow {
  readonly index: number;
  readonly endsAt: number;
}

function phaseMs(key: string, windowMs: number): number {
  return createHash('sha256').update(key).digest().readUInt32BE(0) % windowMs;
}

/** The window of the DaemonSet `key` (its uid) that contains `nowMs`. */
export function statusWindowOf(key: string, nowMs: number, windowSeconds: number): StatusWindow {
  const windowMs = Math.max(1, Math.round(windowSeconds * 1000));
  const phase = phaseMs(key, windowMs);
  const index = Math.floor((nowMs - phase) / windowMs);
  return { index, endsAt: (index + 1) * windowMs + phase };
}
