/**
 * The checkpoint store of one relay run on AWS, writing only while the run holds the lease
 * (docs/design.md, 25. The relay's hand-over on AWS). Every write reads the record first: a run
 * not yet holding the lease takes it when `mayTakeLease` allows, a holder keeps writing until
 * another run holds a fresh lease (`shouldHandOver`); from then on it never writes again and
 * `handedOver` is set. Each write stores, per resource, the later of the stored and the run's own
 * version, so a takeover never moves the checkpoint back, and refreshes the lease's heartbeat.
 */

import type { RelayCheckpoint, RelayCheckpointStore } from './checkpoint.ts';
import {
  laterResourceVersions,
  mayTakeLease,
  type RelayLease,
  relayLease,
  shouldHandOver,
} from './handover.ts';

/** Options of a {@link LeasedCheckpointStore}. */
export interface LeasedCheckpointOptions {
  /** Where the record lives (the SSM parameter on AWS). */
  readonly store: RelayCheckpointStore;
  /** This run's id: its Lambda request id. */
  readonly runId: string;
  /** The run that invoked this one, whose lease it may take while fresh; absent for the watchdog's. */
  readonly predecessor?: string | undefined;
  /** Epoch milliseconds (default `Date.now`). */
  readonly now?: () => number;
  /** Called after each write as holder: the heartbeat metric. */
  readonly onHeartbeat?: () => void;
}

/** Why a run stopped writing: another run holds the lease. */
export interface HandOver {
  /** The holder it found. */
  readonly holder: RelayLease;
  /** Whether it had held the lease before (a hand-over) or never took it (a late duplicate). */
  readonly held: boolean;
}

/** A run's view of the checkpoint record, writing as lease holder only. */
export class LeasedCheckpointStore implements RelayCheckpointStore {
  readonly heartbeat = true;
  private holding = false;
  private releasing = false;
  private found: HandOver | undefined;
  private readonly now: () => number;

  constructor(private readonly options: Readonly<LeasedCheckpointOptions>) {
    this.now = options.now ?? Date.now;
  }

  /** Whether this run has taken the lease (and not handed it over since). */
  get holdsLease(): boolean {
    return this.holding && this.found === undefined;
  }

  /** Set once another run holds the lease: this run must stop and never writes again. */
  get handedOver(): HandOver | undefined {
    return this.found;
  }

  /** The stored checkpoint, lease included. */
  load(): Promise<RelayCheckpoint | undefined> {
    return this.options.store.load();
  }

  /**
   * Writes `checkpoint` as lease holder, taking the lease if this run may; does nothing once
   * another run holds it. The final write after {@link release} gives the lease up.
   */
  async save(checkpoint: Readonly<RelayCheckpoint>): Promise<void> {
    if (this.found) return;
    const stored = await this.options.store.load();
    const now = this.now();
    if (this.yields(stored?.lease, now)) return;
    const lease = this.releasing ? {} : { lease: relayLease(this.options.runId, now) };
    const { lease: _stored, ...own } = checkpoint;
    await this.options.store.save({
      ...own,
      resourceVersions: sameWatch(stored, checkpoint)
        ? laterResourceVersions(stored.resourceVersions, checkpoint.resourceVersions)
        : checkpoint.resourceVersions,
      ...lease,
    });
    this.holding = !this.releasing;
    if (!this.releasing) this.options.onHeartbeat?.();
  }

  /**
   * Reads the record to see whether another run took over ({@link handedOver} is then set) and
   * answers the stored lease. A run that never held the lease learns so when it first writes.
   */
  async poll(): Promise<RelayLease | undefined> {
    if (this.found) return this.found.holder;
    const lease = (await this.options.store.load())?.lease;
    if (this.holding) this.yields(lease, this.now());
    return lease;
  }

  /** Makes the next write give the lease up: the run stops at its deadline with no successor. */
  release(): void {
    this.releasing = true;
  }

  /** Whether another run holds the lease at `now`; records the hand-over when it does. */
  private yields(lease: RelayLease | undefined, now: number): boolean {
    const { runId, predecessor } = this.options;
    const yields = this.holding
      ? shouldHandOver({ ownRunId: runId, lease, now })
      : !mayTakeLease({ ownRunId: runId, predecessor, lease, now });
    if (yields && lease) this.found = { holder: lease, held: this.holding };
    return yields;
  }
}

/** Whether `stored` was written watching what `own` watches: the same cluster and managed kind. */
function sameWatch(
  stored: Readonly<RelayCheckpoint> | undefined,
  own: Readonly<RelayCheckpoint>,
): stored is RelayCheckpoint {
  return (
    stored !== undefined &&
    stored.managedKind === own.managedKind &&
    stored.cluster !== undefined &&
    own.cluster !== undefined &&
    stored.cluster.kubeSystemUid === own.cluster.kubeSystemUid &&
    stored.cluster.server === own.cluster.server
  );
}
