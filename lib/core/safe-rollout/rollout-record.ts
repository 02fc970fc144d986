/**
 * Where a safe rollout stands, as the API server keeps it: `status.rollout` on everynode.dev/v1,
 * the `everynode.dev/rollout-status` annotation (the same JSON) on apps/v1, whose status the API
 * server prunes to its schema. Steps, pauses and halts are timed from it, never from a process's
 * memory, so a restart, a replay or a second process decides as the first would have.
 */
import type { DaemonSet } from '../daemon-set.ts';

/** Annotation holding the rollout record on an apps/v1 DaemonSet. */
export const ROLLOUT_STATUS_ANNOTATION = 'everynode.dev/rollout-status';
/** Annotation `<revision>/<step>` a user writes (`kubectl everynode rollout resume`) to end a pause step. */
export const ROLLOUT_RESUME_ANNOTATION = 'everynode.dev/rollout-resume';
/** Annotation `<revision>/<haltedAt>` a user writes (`kubectl everynode rollout retry`) to lift a halt. */
export const ROLLOUT_RETRY_ANNOTATION = 'everynode.dev/rollout-retry';

/** Why a node counts as failed for the rollout's revision. */
export type FailureReason = 'PodNotAvailable' | 'TooManyRestarts' | 'NodeNotReady';

/** A node the health rules found failed. */
export interface FailedNode {
  readonly node: string;
  readonly reason: FailureReason;
  readonly message: string;
  /** RFC 3339. */
  readonly at: string;
}

/** The phases a rollout goes through. */
export type RolloutPhase = 'Progressing' | 'Paused' | 'Halted' | 'Reverting' | 'Complete';

/** The rollout record. */
export interface RolloutRecord {
  /** The controller-revision-hash of the revision being rolled. */
  readonly revision: string;
  readonly phase: RolloutPhase;
  /** The index of the step that holds (steps.length once past them all); absent without steps. */
  readonly step?: number;
  /** When that step began, RFC 3339: a timed pause runs from it. */
  readonly stepStartedAt?: string;
  /** The topology domain being rolled (its label value; '' for nodes without the label). */
  readonly domain?: string;
  /** Nodes on the new revision (running, starting or replacing their pod). */
  readonly updatedNodes: number;
  /** The hash of the last revision whose rollout completed: what a revert puts back. */
  readonly stableRevision?: string;
  readonly failedNodes?: readonly FailedNode[];
  /** Set once the rollout halted, RFC 3339. */
  readonly haltedAt?: string;
  readonly haltReason?: string;
  readonly haltMessage?: string;
  /** The retry (its `haltedAt`) already acted on, so the same request is not taken twice. */
  readonly retried?: string;
  /** When every node ran the stable revision again after a halt with `onFailure: Revert`, RFC 3339. */
  readonly revertedAt?: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The record `value` holds, or undefined when it holds none (malformed records are dropped). */
export function parseRolloutRecord(value: unknown): RolloutRecord | undefined {
  if (!isRecord(value) || typeof value.revision !== 'string' || typeof value.phase !== 'string')
    return undefined;
  if (typeof value.updatedNodes !== 'number') return undefined;
  const failed = Array.isArray(value.failedNodes)
    ? value.failedNodes.filter(
        (f): f is FailedNode => isRecord(f) && typeof f.node === 'string' && typeof f.reason === 'string',
      )
    : undefined;
  return { ...(value as unknown as RolloutRecord), ...(failed ? { failedNodes: failed } : {}) };
}

/** The record the DaemonSet carries, from its status (everynode.dev/v1) or its annotation (apps/v1). */
export function rolloutRecordOf(ds: Readonly<DaemonSet>): RolloutRecord | undefined {
  const fromStatus = (ds.status as { rollout?: unknown } | undefined)?.rollout;
  if (fromStatus !== undefined) return parseRolloutRecord(fromStatus);
  const text = ds.metadata?.annotations?.[ROLLOUT_STATUS_ANNOTATION];
  if (text === undefined) return undefined;
  try {
    return parseRolloutRecord(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/** `<revision>/<value>` annotations: the part after the revision when it names `revision`. */
export function requestFor(
  ds: Readonly<DaemonSet>,
  annotation: string,
  revision: string,
): string | undefined {
  const text = ds.metadata?.annotations?.[annotation];
  if (text === undefined || !text.startsWith(`${revision}/`)) return undefined;
  return text.slice(revision.length + 1);
}
