/**
 * Kubernetes Events as the upstream controllers record them (client-go tools/record).
 */
import type { CoreV1Event } from '@kubernetes/client-node';

/** The object an Event is about. */
export interface InvolvedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion?: string;
}

/** What happened. `reason` is one of the upstream reasons (SuccessfulCreate, FailedDaemonPod, …). */
export interface EventRecord {
  readonly involvedObject: InvolvedObject;
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
  readonly now: Date;
  /** `source.component`, shown by `kubectl describe` under From (default `everynode`). */
  readonly component?: string;
}

/**
 * The core/v1 Event for `record`: named `<object name>.<nanoseconds since the epoch in hex>` as
 * client-go's recorder names them (tools/record/event.go makeEvent), in the object's namespace,
 * count 1, first and last timestamp `now`.
 */
export function eventFor(record: Readonly<EventRecord>): CoreV1Event {
  const { involvedObject, now } = record;
  const nanos = BigInt(now.getTime()) * 1_000_000n;
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${involvedObject.name}.${nanos.toString(16)}`, namespace: involvedObject.namespace },
    involvedObject: { ...involvedObject },
    type: record.type,
    reason: record.reason,
    message: record.message,
    source: { component: record.component ?? 'everynode' },
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
  };
}
