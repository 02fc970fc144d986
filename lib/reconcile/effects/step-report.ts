/**
 * What a reconcile step did, counted by kind: the handler turns it into metrics (actions by kind,
 * conflicts, requeues) and tests read it to see which path a message took.
 */

/** The things a step counts. */
export const reportKeys = [
  /** Pods created. */
  'created',
  /** Creates answered 409 AlreadyExists: another run had already made the pod. */
  'alreadyExisted',
  /** Creates refused because the namespace is terminating or gone: the pair is done. */
  'namespaceGone',
  /** Pods deleted. */
  'deleted',
  /** Deletes answered 404: the pod was already gone. */
  'alreadyGone',
  /** Orphan pods adopted and pods released (ControllerRef patches). */
  'adopted',
  'released',
  /** ControllerRevisions created, updated, adopted or deleted. */
  'revisionWrites',
  /** DaemonSet status writes. */
  'statusWrites',
  /** Pair messages sent by a DaemonSet step. */
  'fannedOut',
  /** Delayed messages sent (backoff, terminating pods, minReadySeconds, burst continuation). */
  'requeues',
  /** 409 Conflicts on a precondition, each followed by a re-read. */
  'conflicts',
  /** Pairs planned from hints, without reading the node and pods. */
  'hinted',
  /** Node readiness gate taints lifted from a node (not counting dry runs). */
  'gatesLifted',
  /** Continuous node readiness gate taints put back on a node (not counting dry runs). */
  'gatesRestored',
  /** Nodes found gated past a gating DaemonSet's timeoutSeconds (once per node, key and gating episode). */
  'gateTimeouts',
  /** Safe rollouts: steps completed, domains completed, halts, reverts completed, retries taken. */
  'rolloutSteps',
  'rolloutDomains',
  'rolloutHalts',
  'rolloutReverts',
  'rolloutRetries',
  /** In-place updates: pods patched to new images (or labels), pods resized, pods recreated instead. */
  'updatedInPlace',
  'resizedInPlace',
  'inPlaceRecreates',
  /** Resizes given up for a recreate: the node reported them Infeasible, or Deferred past the deadline. */
  'resizeFallbacksInfeasible',
  'resizeFallbacksDeferred',
  /** Daemon pods reported stuck unschedulable on their node (FailedPlacement: once per node and reason per hour). */
  'unschedulablePods',
] as const;

/** One of the counted things. */
export type ReportKey = (typeof reportKeys)[number];

/** Counts by kind; every key present. */
export type StepReport = Record<ReportKey, number>;

/** A report with every count 0. */
export function emptyReport(): StepReport {
  return Object.fromEntries(reportKeys.map((key) => [key, 0])) as StepReport;
}

/** The sum of `reports`, as a new report. */
export function sumReports(...reports: readonly Readonly<StepReport>[]): StepReport {
  const sum = emptyReport();
  for (const report of reports) for (const key of reportKeys) sum[key] += report[key];
  return sum;
}

/** The keys of `report` whose count is not 0, for logs. */
export function nonZero(report: Readonly<StepReport>): Partial<StepReport> {
  return Object.fromEntries(reportKeys.filter((key) => report[key] !== 0).map((key) => [key, report[key]]));
}
