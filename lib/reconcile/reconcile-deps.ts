/**
 * The ports every reconcile step runs over (pipeline design decision 1): the same orchestration
 * code runs in a Lambda function, in `everynode run` and in tests; only the deps differ. A handler
 * builds them once per process (see `buildReconcileDeps`).
 */
import type { KubePort } from '../kube/kube-port.ts';
import type { StructuredLogger } from '../log/structured-logger.ts';
import type { DeadLetterSender, RequeueSender, WorkSender } from '../queue/work-senders.ts';
import type { DaemonSetCache } from './daemon-set-cache.ts';
import type { EventRecorder } from './event-recorder.ts';

/** Everything a reconcile step needs from the outside world. */
export interface ReconcileDeps {
  readonly kube: KubePort;
  readonly workQueue: WorkSender;
  readonly requeue: RequeueSender;
  readonly deadLetter: DeadLetterSender;
  readonly events: EventRecorder;
  /** The time plans are made at (pod availability, backoff, hint freshness). */
  readonly clock: () => Date;
  readonly logger: StructuredLogger;
  /** Per-process caches (speed only: every write is guarded, so a stale entry costs a retry). */
  readonly cache: DaemonSetCache;
}
