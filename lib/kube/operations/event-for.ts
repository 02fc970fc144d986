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

/** The longest name an Event may have: a DNS-1123 subdomain (upstream ValidateEvent). */
const MAX_EVENT_NAME = 253;

/**
 * The name of an Event about the object `objectName` at `nanos` (nanoseconds since the epoch, or
 * any other number making it unique): `<object name>.<nanos in hex>` as client-go's recorder names
 * them (tools/record/event.go makeEvent), the object name cut to fit 253 characters — upstream's
 * name for an object of more than 236 characters is rejected by the API server and the event
 * lost. A cut ending in '-' or '.' loses those too, so the name stays a DNS subdomain.
 */
export function eventName(objectName: string, nanos: bigint): string {
  const suffix = `.${nanos.toString(16)}`;
  const room = MAX_EVENT_NAME - suffix.length;
  const prefix = objectName.length > room ? objectName.slice(0, room).replace(/[-.]+$/, '') : objectName;
  return `${prefix}${suffix}`;
}

/**
 * The core/v1 Event for `record`: named by {@link eventName} at `now`, in the object's namespace,
 * count 1, first and last timestamp `now`.
 */
export function eventFor(record: Readonly<EventRecord>): CoreV1Event {
  const { involvedObject, now } = record;
  const nanos = BigInt(now.getTime()) * 1_000_000n;
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: eventName(involvedObject.name, nanos), namespace: involvedObject.namespace },
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
