/**
 * The metrics of in-place updates (docs/design.md, 31. In-place updates), by the step report's
 * count they publish: the reconcile handler emits them (CloudWatch EMF through Powertools on AWS,
 * the local counters under `everynode run`, whose summary line shows them).
 */
import type { ReportKey } from './step-report.ts';

/** The metric name of each in-place count of the step report. */
export const inPlaceMetrics = {
  /** Pods patched in place to a new revision's images (or labels only). */
  updatedInPlace: 'PodsUpdatedInPlace',
  /** Pods resized in place to a new revision's resources. */
  resizedInPlace: 'PodsResizedInPlace',
  /** Pods recreated because their change cannot be made in place, or the API server refused it. */
  inPlaceRecreates: 'InPlaceRecreates',
  /** Resizes given up for a recreate, by reason: the node reported them Infeasible … */
  resizeFallbacksInfeasible: 'ResizeFallbacks_Infeasible',
  /** … or Deferred past the deadline. */
  resizeFallbacksDeferred: 'ResizeFallbacks_Deferred',
} as const satisfies Partial<Record<ReportKey, string>>;
