/**
 * How the reconcile function ended one record of the work queue: the outcome its metrics and logs
 * report (see work-record.ts).
 */
import type { WorkMessage } from '../../messages/work-message.ts';
import type { StepReport } from '../effects/step-report.ts';

/** How a record ended; every outcome but a thrown error reports the record as processed. */
export type RecordOutcome =
  | {
      readonly type: 'reconciled';
      readonly kind: WorkMessage['kind'];
      readonly report: StepReport;
      readonly millis: number;
    }
  | { readonly type: 'duplicate' }
  /** A write was refused because the namespace is terminating or gone: nothing is left to do. */
  | { readonly type: 'namespace-gone' }
  | { readonly type: 'dead-lettered'; readonly reason: string }
  | { readonly type: 'throttled'; readonly retryAfterSeconds: number; readonly failures: number }
  /**
   * Sent back with backoff after a failure: `transient` (the API server unreachable, a 5xx, a
   * timeout) for as long as it takes, else at most `MAX_FAILURE_REQUEUES` (after-failure.ts) times. `failures`
   * counts the failures in a row, this one included.
   */
  | {
      readonly type: 'retried';
      readonly afterSeconds: number;
      readonly error: string;
      readonly transient: boolean;
      readonly failures: number;
    };
