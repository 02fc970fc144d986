/**
 * everynode's beyond-upstream rollout knobs. On an `everynode.dev/v1` DaemonSet they are real spec
 * fields; on an `apps/v1` DaemonSet (whose schema the API server enforces) they are annotations.
 * When both are present the field wins.
 *
 * | knob | everynode.dev/v1 field | apps/v1 annotation | default |
 * | --- | --- | --- | --- |
 * | partition | `spec.updateStrategy.rollingUpdate.partition` | `everynode.dev/partition` | 0 |
 * | paused | `spec.updateStrategy.rollingUpdate.paused` | `everynode.dev/paused` (`"true"`) | false |
 * | rollout node selector | `spec.updateStrategy.rollingUpdate.selector` (LabelSelector) | `everynode.dev/rollout-selector` (`kubectl -l` syntax or LabelSelector JSON) | every node |
 * | strict budget | `spec.updateStrategy.rollingUpdate.strict` | `everynode.dev/strict` (`"true"`) | false |
 * | progress deadline | `spec.progressDeadlineSeconds` | `everynode.dev/progress-deadline-seconds` | none (no deadline) |
 * | create/delete burst | `spec.burstReplicas` | `everynode.dev/burst-replicas` | 250 (upstream BurstReplicas) |
 *
 * Semantics (OpenKruise Advanced DaemonSet for partition/paused/selector, Deployment for the
 * progress deadline): see RolloutExtensions. The node readiness gate is declared the same way
 * (`spec.nodeReadiness`, or the `everynode.dev/node-readiness*` annotations) and has its own table
 * in core/node-gates/gate-declaration.ts.
 */
import type { V1LabelSelector } from '@kubernetes/client-node';
import type { DaemonSet } from './daemon-set.ts';
import { type FieldViolation, invalid } from './field-violation.ts';
import { labelSelectorViolations } from './label-selector.ts';
import { isLabelSelectorShape, parseLabelSelector } from './label-selector-text.ts';

/** Annotation carrying `partition` on an apps/v1 DaemonSet. */
export const PARTITION_ANNOTATION = 'everynode.dev/partition';
/** Annotation carrying `paused` on an apps/v1 DaemonSet. */
export const PAUSED_ANNOTATION = 'everynode.dev/paused';
/** Annotation carrying the rollout node `selector` on an apps/v1 DaemonSet. */
export const ROLLOUT_SELECTOR_ANNOTATION = 'everynode.dev/rollout-selector';
/** Annotation carrying `strict` on an apps/v1 DaemonSet. */
export const STRICT_ANNOTATION = 'everynode.dev/strict';
/** Annotation carrying `progressDeadlineSeconds` on an apps/v1 DaemonSet. */
export const PROGRESS_DEADLINE_ANNOTATION = 'everynode.dev/progress-deadline-seconds';
/** Annotation carrying `burstReplicas` on an apps/v1 DaemonSet. */
export const BURST_REPLICAS_ANNOTATION = 'everynode.dev/burst-replicas';
/** Creates or deletes per DaemonSet and pass when unset (upstream daemon_controller.go BurstReplicas). */
export const DEFAULT_BURST_REPLICAS = 250;

/** The effective beyond-upstream rollout settings of a DaemonSet. */
export interface RolloutExtensions {
  /** Number of pods kept on old revisions during a RollingUpdate (OpenKruise partition). */
  partition: number;
  /** No old pod is replaced while true; missing pods are still created at the current revision. */
  paused: boolean;
  /** Only nodes whose labels match are rolled; undefined rolls every node. */
  selector: V1LabelSelector | undefined;
  /** Unavailable old pods are replaced only within maxUnavailable/maxSurge, never beyond. */
  strict: boolean;
  /** Seconds without progress before `Progressing` turns False; undefined = no deadline. */
  progressDeadlineSeconds: number | undefined;
  /** Most creates and most deletes one plan may carry. */
  burstReplicas: number;
}

interface Knob<T> {
  path: readonly string[];
  annotation: string;
  parse: (raw: unknown) => T | undefined;
}

const KNOBS = {
  partition: knob(['updateStrategy', 'rollingUpdate', 'partition'], PARTITION_ANNOTATION, intAtLeast(0)),
  paused: knob(['updateStrategy', 'rollingUpdate', 'paused'], PAUSED_ANNOTATION, parseBoolean),
  selector: knob(['updateStrategy', 'rollingUpdate', 'selector'], ROLLOUT_SELECTOR_ANNOTATION, parseSelector),
  strict: knob(['updateStrategy', 'rollingUpdate', 'strict'], STRICT_ANNOTATION, parseBoolean),
  progressDeadlineSeconds: knob(['progressDeadlineSeconds'], PROGRESS_DEADLINE_ANNOTATION, intAtLeast(1)),
  burstReplicas: knob(['burstReplicas'], BURST_REPLICAS_ANNOTATION, intAtLeast(1)),
};

const MESSAGES: Record<keyof typeof KNOBS, string> = {
  partition: 'must be an integer greater than or equal to 0',
  paused: 'must be true or false',
  selector: 'must be a label selector',
  strict: 'must be true or false',
  progressDeadlineSeconds: 'must be an integer greater than 0',
  burstReplicas: 'must be an integer greater than 0',
};

function knob<T>(
  path: readonly string[],
  annotation: string,
  parse: (raw: unknown) => T | undefined,
): Knob<T> {
  return { path, annotation, parse };
}

/**
 * The DaemonSet's effective extension settings: each from its field, else its annotation, else the
 * default. A value that does not parse counts as unset (validateDaemonSet reports it).
 */
export function rolloutExtensionsOf(ds: Readonly<DaemonSet>): RolloutExtensions {
  const read = <T>(name: keyof typeof KNOBS, fallback: T): T => {
    const found = rawKnob(ds, KNOBS[name]);
    const parsed = found === undefined ? undefined : (KNOBS[name].parse(found.raw) as T | undefined);
    return parsed ?? fallback;
  };
  return {
    partition: read('partition', 0),
    paused: read('paused', false),
    selector: read<V1LabelSelector | undefined>('selector', undefined),
    strict: read('strict', false),
    progressDeadlineSeconds: read<number | undefined>('progressDeadlineSeconds', undefined),
    burstReplicas: read('burstReplicas', DEFAULT_BURST_REPLICAS),
  };
}

/**
 * The violations of the DaemonSet's extension fields and annotations: unparsable or out-of-range
 * values, invalid rollout selectors, and (as Deployment validation does) a progress deadline not
 * greater than minReadySeconds. Empty when all are valid.
 */
export function extensionViolations(ds: Readonly<DaemonSet>): FieldViolation[] {
  const violations: FieldViolation[] = [];
  for (const name of Object.keys(KNOBS) as (keyof typeof KNOBS)[]) {
    const found = rawKnob(ds, KNOBS[name]);
    if (found === undefined) continue;
    const parsed = KNOBS[name].parse(found.raw);
    if (parsed === undefined) violations.push(invalid(found.field, found.raw, MESSAGES[name]));
    else if (name === 'selector')
      violations.push(...labelSelectorViolations(parsed as V1LabelSelector, found.field));
  }
  const { progressDeadlineSeconds } = rolloutExtensionsOf(ds);
  const minReadySeconds = ds.spec?.minReadySeconds ?? 0;
  if (progressDeadlineSeconds !== undefined && progressDeadlineSeconds <= minReadySeconds) {
    const field = rawKnob(ds, KNOBS.progressDeadlineSeconds)?.field ?? 'spec.progressDeadlineSeconds';
    violations.push(invalid(field, progressDeadlineSeconds, 'must be greater than minReadySeconds'));
  }
  return violations;
}

function rawKnob(
  ds: Readonly<DaemonSet>,
  spec: Readonly<{ path: readonly string[]; annotation: string }>,
): { raw: unknown; field: string } | undefined {
  let value: unknown = ds.spec;
  for (const key of spec.path) value = isRecord(value) ? value[key] : undefined;
  if (value !== undefined && value !== null) return { raw: value, field: `spec.${spec.path.join('.')}` };
  const annotation = ds.metadata?.annotations?.[spec.annotation];
  if (annotation === undefined) return undefined;
  return { raw: annotation, field: `metadata.annotations[${spec.annotation}]` };
}

function intAtLeast(min: number): (raw: unknown) => number | undefined {
  return (raw) => {
    const n =
      typeof raw === 'number'
        ? raw
        : typeof raw === 'string' && /^-?\d+$/.test(raw.trim())
          ? Number(raw)
          : NaN;
    return Number.isSafeInteger(n) && n >= min ? n : undefined;
  };
}

function parseBoolean(raw: unknown): boolean | undefined {
  if (typeof raw === 'boolean') return raw;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  return undefined;
}

function parseSelector(raw: unknown): V1LabelSelector | undefined {
  if (typeof raw === 'string') return parseLabelSelector(raw);
  return isLabelSelectorShape(raw) ? raw : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
