/**
 * The `FailedPlacement` Warning a DaemonSet gets for a daemon pod stuck unschedulable: upstream's
 * reason and wording (the DaemonSet controller recorded `failed to place pod on "NODE": REASON`
 * while it placed pods itself), at most one per node and scheduler reason per hour.
 *
 * The hour holds across processes without a read: each event's name is fixed by the DaemonSet,
 * the node, the reason and the clock hour (`<daemonset>.<hex>`, the hex an instant within that
 * hour, as client-go's names are), so a second process, or a Lambda container that forgot, asking
 * for the same event in the same hour gets 409 AlreadyExists from the API server and records
 * nothing. Within a process the recorder also remembers when it last recorded each, so two steps
 * an hour boundary apart in one process record it once per sixty minutes.
 */
import { fnv1a32 } from './template-hash.ts';
import type { UnschedulablePod } from './unschedulable-pods.ts';

/** The event reason (upstream daemon_controller.go FailedPlacementReason). */
export const FAILED_PLACEMENT_REASON = 'FailedPlacement';

/** How long an event of one node and reason silences the next. */
export const PLACEMENT_EVENT_PERIOD_MS = 3_600_000;

const NANOS_PER_MS = 1_000_000n;
const PERIOD_NANOS = BigInt(PLACEMENT_EVENT_PERIOD_MS) * NANOS_PER_MS;

/** One event to record. */
export interface PlacementEvent {
  readonly node: string;
  readonly reason: string;
  /** Upstream's message: `failed to place pod on "node-a": Insufficient memory`. */
  readonly message: string;
  /** What the recorder remembers it by: the DaemonSet's uid, the node and the reason. */
  readonly scope: string;
  /** The instant its name is made of: in the clock hour of `now`, fixed by the scope. */
  readonly nanos: bigint;
}

/** Upstream's message, the node quoted as Go's %q quotes it. */
export function failedPlacementMessage(node: string, reason: string): string {
  return `failed to place pod on ${JSON.stringify(node)}: ${reason}`;
}

/** A number in [0, PERIOD_NANOS) fixed by `scope`: two FNV-1a hashes (64 bits) taken modulo the hour. */
function offsetIn(scope: string): bigint {
  const bytes = new TextEncoder().encode(scope);
  const high = BigInt(fnv1a32(bytes));
  const low = BigInt(fnv1a32(bytes, 0x050c5d1f));
  return ((high << 32n) | low) % PERIOD_NANOS;
}

/**
 * The events the stuck pods of the DaemonSet `uid` call for at `now`: one per node and reason
 * (however many pods wait there), named within the clock hour of `now`.
 */
export function placementEvents(
  uid: string,
  stuck: readonly UnschedulablePod[],
  now: Date,
): PlacementEvent[] {
  const hourStart = (BigInt(now.getTime()) * NANOS_PER_MS) / PERIOD_NANOS;
  const seen = new Set<string>();
  const events: PlacementEvent[] = [];
  for (const { node, reason } of stuck) {
    const scope = [uid, node, reason].join('\u0000');
    if (seen.has(scope)) continue;
    seen.add(scope);
    const nanos = hourStart * PERIOD_NANOS + offsetIn(scope);
    events.push({ node, reason, message: failedPlacementMessage(node, reason), scope, nanos });
  }
  return events;
}
