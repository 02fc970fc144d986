/**
 * What `everynode run` shows: the managed DaemonSets as `kubectl get ds` prints them (DESIRED
 * CURRENT READY UP-TO-DATE AVAILABLE), the queue depths, the trigger rate and the DLQ — redrawn in
 * place while stdout is a terminal, printed as log lines when something changed otherwise.
 */
import type { DaemonSet } from '../core/daemon-set.ts';
import type { QueueDepths } from '../local/local-pipeline-queues.ts';

/** One DaemonSet row. */
export interface DaemonSetRow {
  readonly namespace: string;
  readonly name: string;
  readonly desired: number;
  readonly current: number;
  readonly ready: number;
  readonly upToDate: number;
  readonly available: number;
  readonly misscheduled: number;
  /** The status describes the current spec (observedGeneration ≥ generation). */
  readonly observed: boolean;
}

/** The in-place counts of the summary line. */
export interface InPlaceCounts {
  readonly updated: number;
  readonly resized: number;
  readonly infeasible: number;
  readonly deferred: number;
}

/** Everything the view shows at one moment. */
export interface ViewSnapshot {
  readonly daemonSets: readonly DaemonSetRow[];
  readonly depths: QueueDepths;
  readonly triggersPerSecond: number;
  readonly triggers: number;
  readonly podsCreated: number;
  readonly podsDeleted: number;
  /** In-place updates, resizes and the resizes given up for a recreate, when any was counted. */
  readonly inPlace?: InPlaceCounts;
  /** The last warnings and errors logged. */
  readonly recent: readonly string[];
}

/** The row of `ds` from its status (zeros before the first status write). */
export function daemonSetRow(ds: Readonly<DaemonSet>): DaemonSetRow {
  const s = ds.status;
  return {
    namespace: ds.metadata?.namespace ?? '',
    name: ds.metadata?.name ?? '',
    desired: s?.desiredNumberScheduled ?? 0,
    current: s?.currentNumberScheduled ?? 0,
    ready: s?.numberReady ?? 0,
    upToDate: s?.updatedNumberScheduled ?? 0,
    available: s?.numberAvailable ?? 0,
    misscheduled: s?.numberMisscheduled ?? 0,
    observed: s !== undefined && (s.observedGeneration ?? 0) >= (ds.metadata?.generation ?? 1),
  };
}

/** True when the DaemonSet's status says it is fully rolled out (what `kubectl rollout status` waits for, plus readiness). */
export function rowConverged(row: Readonly<DaemonSetRow>): boolean {
  return (
    row.observed &&
    row.misscheduled === 0 &&
    row.current === row.desired &&
    row.upToDate === row.desired &&
    row.ready === row.desired &&
    row.available === row.desired
  );
}

/**
 * True when every DaemonSet is converged and no work is queued or in flight (delayed requeues may
 * wait: a status that is right already stays right when they run).
 */
export function isConverged(rows: readonly DaemonSetRow[], depths: Readonly<QueueDepths>): boolean {
  return rows.every(rowConverged) && depths.ingress === 0 && depths.work === 0;
}

/** `rows` as left-aligned columns separated by three spaces, like kubectl. */
export function columns(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('   ')
      .trimEnd(),
  );
}

/** The DaemonSet table. */
export function daemonSetTable(rows: readonly DaemonSetRow[]): string[] {
  const header = ['NAMESPACE', 'NAME', 'DESIRED', 'CURRENT', 'READY', 'UP-TO-DATE', 'AVAILABLE'];
  const body = rows.map((r) =>
    [r.namespace, r.name, r.desired, r.current, r.ready, r.upToDate, r.available].map(String),
  );
  return rows.length === 0 ? ['(no managed DaemonSets yet)'] : columns([header, ...body]);
}

/** The one-line summary: queues, rates, DLQ. */
export function summaryLine(s: Readonly<ViewSnapshot>): string {
  const d = s.depths;
  return (
    `queues: ingress ${d.ingress} (+${d.ingressDelayed} delayed)  work ${d.work}  DLQ ${d.workDlq}` +
    ` | triggers ${s.triggers} (${s.triggersPerSecond.toFixed(1)}/s)` +
    ` | pods created ${s.podsCreated}, deleted ${s.podsDeleted}` +
    inPlaceText(s.inPlace)
  );
}

/** The in-place part of the summary line: empty until something was updated in place or fell back. */
function inPlaceText(c: Readonly<InPlaceCounts> | undefined): string {
  if (c === undefined || c.updated + c.resized + c.infeasible + c.deferred === 0) return '';
  return (
    ` | in place: updated ${c.updated}, resized ${c.resized},` +
    ` fell back ${c.infeasible} infeasible, ${c.deferred} deferred`
  );
}

/** The whole view as lines: table, a blank line, the summary, then recent warnings. */
export function renderView(s: Readonly<ViewSnapshot>): string[] {
  const recent = s.recent.length > 0 ? ['', 'recent warnings:', ...s.recent.map((line) => `  ${line}`)] : [];
  return [...daemonSetTable(s.daemonSets), '', summaryLine(s), ...recent];
}
