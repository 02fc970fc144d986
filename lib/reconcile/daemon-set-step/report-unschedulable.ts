/**
 * The `FailedPlacement` Warnings of a DaemonSet whose pods the scheduler finds no room for on their
 * nodes (core/placement-events.ts: one per node and reason per hour, held across processes by the
 * events' fixed names), counted for the `DaemonPodsUnschedulable` metric.
 */
import type { DaemonSet } from '../../core/daemon-set.ts';
import type { NodeView } from '../../core/node-view.ts';
import { PLACEMENT_EVENT_PERIOD_MS, placementEvents } from '../../core/placement-events.ts';
import { unschedulablePodsOf } from '../../core/unschedulable-pods.ts';
import type { DepsPart } from '../deps/reconcile-deps.ts';
import { emptyReport, type StepReport } from '../effects/step-report.ts';
import { EventReason } from '../memory/event-recorder.ts';

/** Records the events the stuck pods of `views` call for; the report counts those recorded. */
export function reportUnschedulable(
  deps: DepsPart<never, 'events'>,
  ds: Readonly<DaemonSet>,
  views: readonly NodeView[],
  now: Date,
): StepReport {
  const report = emptyReport();
  const stuck = unschedulablePodsOf(views);
  if (stuck.length === 0) return report;
  for (const event of placementEvents(ds.metadata?.uid ?? '', stuck, now)) {
    const named = { scope: event.scope, nanos: event.nanos, quietMs: PLACEMENT_EVENT_PERIOD_MS };
    if (deps.memory.events.warningNamed(ds, EventReason.FailedPlacement, event.message, named))
      report.unschedulablePods++;
  }
  return report;
}
