/**
 * The windows that coalesce a DaemonSet's delayed steps (status refreshes, rolling-update slot
 * steps, node recounts; docs/design.md, 12. The status-refresh window). Each DaemonSet's windows are
 * shifted by an offset taken from its key (its uid), so the steps of many DaemonSets spread over a
 * window instead of all falling due at its boundary: ten DaemonSets' status steps at one instant
 * hold a process's thread for a long burst, and a node's step that arrives then waits it out.
 */

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

/** A number spread evenly from `text` (FNV-1a, 32 bits). */
function spreadOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}
