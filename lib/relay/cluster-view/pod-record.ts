/**
 * The compact form in which the relay keeps each of everynode's pods: its pod hint (`podHintOf`,
 * the fields the pair and node steps plan from) with the values its DaemonSet's other pods repeat
 * shared, and its times as numbers. At 200,000 pods a hint kept as such — its own labels and
 * controller objects, five condition objects, six RFC 3339 strings — is most of the relay's
 * memory; a record is about a third of it (a daemon pod with five conditions: 413 bytes against
 * 1,212), and gives back the very same hint.
 */
import type { PodHint } from '../../messages/pair-hints.ts';
import type { Interner } from './shared-values.ts';

/**
 * A time as kept: milliseconds since the epoch when `toISOString` writes them back as the same text
 * (the hints' own times are so written), else the text itself.
 */
type Time = number | string | undefined;

/** A condition's type and status, as its pod's condition kinds list them. */
type ConditionKind = readonly [type: string, status: string];

/** One pod as the relay keeps it; {@link podHintFrom} gives its hint back. */
export interface PodRecord {
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
  readonly created: Time;
  readonly deleted: Time;
  /** Their values shared with the other pods' (a DaemonSet's uid, its revision hash, a node's name). */
  readonly labels: PodHint['labels'];
  readonly annotations: PodHint['annotations'];
  /** Shared with the DaemonSet's other pods. */
  readonly controller: PodHint['controller'];
  /** The node the pod targets, bound or pinned: the one it is filed under (shared with its pods there). */
  readonly node: string;
  /** `spec.nodeName`: `node` itself once bound. */
  readonly nodeName: string | undefined;
  readonly phase: string | undefined;
  readonly ready: boolean;
  /** The conditions' types and statuses, in order, shared with the pods that have the same. */
  readonly conditionKinds: readonly ConditionKind[] | undefined;
  /** Each condition's lastTransitionTime, in the same order: numbers (NaN: none) or, rarely, texts. */
  readonly conditionTimes: readonly number[] | readonly (string | undefined)[] | undefined;
  /** The hint's labels or annotations were capped (`hint-caps.ts`). */
  readonly capped: true | undefined;
}

function timeOf(text: string | undefined): Time {
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  return !Number.isNaN(ms) && new Date(ms).toISOString() === text ? ms : text;
}

function textOf(time: Time): string | undefined {
  return typeof time === 'number' ? new Date(time).toISOString() : time;
}

/** The conditions' times as numbers (NaN for none) when each is one, else as they are. */
function timesOf(conditions: NonNullable<PodHint['conditions']>): PodRecord['conditionTimes'] {
  const times = conditions.map((c) => timeOf(c.lastTransitionTime));
  if (times.every((t) => typeof t !== 'string')) return times.map((t) => (t === undefined ? Number.NaN : t));
  return conditions.map((c) => c.lastTransitionTime);
}

function timeTextAt(times: NonNullable<PodRecord['conditionTimes']>, index: number): string | undefined {
  const time = times[index];
  return typeof time === 'number' ? (Number.isNaN(time) ? undefined : textOf(time)) : time;
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/**
 * The record of the pod whose hint is `hint`, filed under the node named `node` (its target, the
 * caller's copy of the name, shared with its other pods there); repeated values from `interner`.
 */
export function podRecordOf(hint: Readonly<PodHint>, node: string, interner: Interner): PodRecord {
  const conditions = hint.conditions;
  return {
    name: hint.name,
    uid: hint.uid,
    resourceVersion: hint.resourceVersion,
    created: timeOf(hint.creationTimestamp),
    deleted: timeOf(hint.deletionTimestamp),
    labels: interner.stringMap(hint.labels),
    annotations: interner.stringMap(hint.annotations),
    controller: interner.value(hint.controller),
    node,
    nodeName: hint.nodeName === node ? node : hint.nodeName,
    phase: interner.string(hint.phase),
    ready: hint.ready,
    conditionKinds:
      conditions === undefined
        ? undefined
        : interner.value(conditions.map((c): ConditionKind => [c.type, c.status])),
    conditionTimes: conditions === undefined ? undefined : timesOf(conditions),
    capped: hint.capped,
  };
}

/** The hint `record` was made of: equal to it, keys in the same order. */
export function podHintFrom(record: Readonly<PodRecord>): PodHint {
  const times = record.conditionTimes ?? [];
  return withoutUndefined({
    name: record.name,
    uid: record.uid,
    resourceVersion: record.resourceVersion,
    creationTimestamp: textOf(record.created),
    deletionTimestamp: textOf(record.deleted),
    labels: record.labels,
    annotations: record.annotations,
    controller: record.controller,
    nodeName: record.nodeName,
    phase: record.phase,
    ready: record.ready,
    conditions: record.conditionKinds?.map(([type, status], index) =>
      withoutUndefined({ type, status, lastTransitionTime: timeTextAt(times, index) }),
    ),
    capped: record.capped,
  });
}
