/** Counts of what the relay saw, for logs and the live view. */
export interface RelayStats {
  forwarded: number;
  /** No-op updates (heartbeats…). */
  dropped: number;
  /** Status-only pod changes covered by an earlier trigger of the same window (`StatusCoalescer`). */
  coalesced: number;
  /** Forwarded pod changes that can change their node's readiness gate (`changesNodeGate`). */
  gating?: number;
  /** Orphan pods forwarded for a managed DaemonSet to adopt (`orphan-watches.ts`). */
  orphans?: number;
  relists: number;
}
