/**
 * The metric of daemon pods the scheduler finds no room for on their node, by the step report's
 * count it publishes: the reconcile handler emits it (CloudWatch EMF on AWS, the local counters
 * under `everynode run`). An alarm on its sum over an hour sees every node and reason with a stuck
 * pod, as the FailedPlacement events do (once per node and reason per hour).
 */
import type { ReportKey } from './step-report.ts';

/** The metric name of each placement count of the step report. */
export const placementMetrics = {
  /** FailedPlacement events recorded: a daemon pod stuck Pending, unschedulable on its node. */
  unschedulablePods: 'DaemonPodsUnschedulable',
} as const satisfies Partial<Record<ReportKey, string>>;
