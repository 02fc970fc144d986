/**
 * The `FailedScheduling` Warning events the simulated scheduler records on a pod it cannot place,
 * as kube-scheduler's handleSchedulingFailure does (pkg/scheduler/schedule_one.go: reason
 * FailedScheduling, action Scheduling, note = the FitError message) through the events.k8s.io/v1
 * recorder — stored as the core/v1 Event that API serves for it: `eventTime`, reportingComponent
 * `default-scheduler`, reportingInstance `default-scheduler-<host>`, no `source`, no first or last
 * timestamps, named `<pod>.<hex UnixNano>`. A repeat of the pod's last message becomes a series on
 * that event (`series.count`, `series.lastObservedTime`), as the recorder folds isomorphic events.
 */

import { formatMicroTime } from '../schema/store-json.ts';
import type { SimContext } from '../sim-context.ts';
import type { KubeObject } from '../storage/store.ts';

/** kube-scheduler's component name, and its instance (`<component>-<hostname>`) in the simulated control plane. */
const REPORTING_COMPONENT = 'default-scheduler';
const REPORTING_INSTANCE = 'default-scheduler-everynode-sim';

interface LastEvent {
  readonly name: string;
  readonly message: string;
  readonly count: number;
}

/** Records FailedScheduling events, one series per pod and message. */
export class FailedSchedulingEvents {
  private readonly last = new Map<string, LastEvent>();

  constructor(private readonly ctx: SimContext) {}

  /** Records that `pod` fits nowhere, for `message`. */
  record(pod: Readonly<KubeObject>, message: string): void {
    const { uid = '', namespace = 'default', name = '' } = pod.metadata;
    const now = new Date(this.ctx.now());
    const last = this.last.get(uid);
    if (last?.message === message && this.bumpSeries(uid, namespace, last, now)) return;
    const eventName = `${name}.${(BigInt(now.getTime()) * 1_000_000n).toString(16)}`;
    const event: KubeObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: eventName, namespace },
      involvedObject: {
        kind: 'Pod',
        namespace,
        name,
        uid,
        apiVersion: 'v1',
        resourceVersion: pod.metadata.resourceVersion,
      },
      reason: 'FailedScheduling',
      message,
      type: 'Warning',
      source: {},
      firstTimestamp: null,
      lastTimestamp: null,
      eventTime: formatMicroTime(now),
      action: 'Scheduling',
      reportingComponent: REPORTING_COMPONENT,
      reportingInstance: REPORTING_INSTANCE,
    };
    try {
      this.ctx.store.create('events', event);
      this.last.set(uid, { name: eventName, message, count: 1 });
    } catch {
      // An event is best effort, as the recorder's are (a name taken in the same nanosecond, a
      // namespace being deleted): scheduling goes on.
    }
  }

  /** Forgets a pod that is gone. */
  forget(uid: string): void {
    this.last.delete(uid);
  }

  /** Counts one more occurrence on the pod's last event; false when that event is gone. */
  private bumpSeries(uid: string, namespace: string, last: LastEvent, now: Date): boolean {
    const count = last.count + 1;
    const updated = this.ctx.store.mutateShared('events', namespace, last.name, (event) => {
      event.series = { count, lastObservedTime: formatMicroTime(now) };
    });
    if (!updated) return false;
    this.last.set(uid, { ...last, count });
    return true;
  }
}
