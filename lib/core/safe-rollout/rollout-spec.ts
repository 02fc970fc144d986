/**
 * The safe-rollout settings of a DaemonSet: canary steps, a topology key rolled one domain at a
 * time, and the health rules that halt a rollout on their own (docs/design.md, 30. Rollouts that
 * stop themselves). Fields of `spec.updateStrategy.rollingUpdate` on everynode.dev/v1; on apps/v1
 * the annotations below hold the same JSON (the field wins), like the other extensions.
 *
 * Each setting is parsed to a typed value or to the violations that make it unusable: an invalid
 * setting counts as unset for the rollout and makes the DaemonSet invalid (its `ReplicaFailure`
 * condition and Warning event), so a typo never rolls a fleet without the brakes it asked for.
 */
import type { IntOrString } from '@kubernetes/client-node';
import type { DaemonSet } from '../daemon-set.ts';
import { type FieldViolation, invalid, notSupported, required } from '../field-violation.ts';
import { qualifiedNameErrors } from '../object-names.ts';

/** Annotation holding `steps` as JSON on an apps/v1 DaemonSet. */
export const ROLLOUT_STEPS_ANNOTATION = 'everynode.dev/rollout-steps';
/** Annotation holding `topologyKey` on an apps/v1 DaemonSet (the key, or the key as a JSON string). */
export const ROLLOUT_TOPOLOGY_KEY_ANNOTATION = 'everynode.dev/rollout-topology-key';
/** Annotation holding `health` as JSON on an apps/v1 DaemonSet. */
export const ROLLOUT_HEALTH_ANNOTATION = 'everynode.dev/rollout-health';

/** One canary step: a number of nodes on the new revision, or a pause (until resumed without `seconds`). */
export type RolloutStep = { readonly nodes: IntOrString } | { readonly pause: { readonly seconds?: number } };

/** What to do when the health rules are broken. */
export const onFailureActions = ['Pause', 'Revert'] as const;
/** One of {@link onFailureActions}. */
export type OnFailure = (typeof onFailureActions)[number];

/** When a node counts as failed for the rollout's revision, and how many failed nodes halt it. */
export interface RolloutHealth {
  /** A new pod not available this long after its creation: failed node. */
  readonly podReadySeconds: number;
  /** More container restarts than this within podReadySeconds of its creation: failed node (undefined: no rule). */
  readonly maxRestarts?: number;
  /** Its node not Ready this soon after the new pod started: failed node (undefined: no rule). */
  readonly nodeReadySeconds?: number;
  /** Failed nodes tolerated: an integer, or a percent of the nodes updated so far (rounded down). */
  readonly maxFailedNodes: IntOrString;
  readonly onFailure: OnFailure;
}

/** The safe-rollout settings in effect; each undefined when unset or invalid. */
export interface SafeRollout {
  readonly topologyKey?: string;
  readonly steps?: readonly RolloutStep[];
  readonly health?: RolloutHealth;
}

/** podReadySeconds when `health` does not say. */
export const DEFAULT_POD_READY_SECONDS = 300;

/** One setting as written: where (for violations), and the raw value. */
interface Raw {
  readonly field: string;
  readonly value: unknown;
}

type Parsed<T> = { value: T; violations: FieldViolation[] };

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The setting `name` of rollingUpdate, else its annotation parsed as JSON (a bad JSON is a violation). */
function rawSetting(
  ds: Readonly<DaemonSet>,
  name: string,
  annotation: string,
  plainText = false,
): Raw | FieldViolation | undefined {
  const rollingUpdate = ds.spec?.updateStrategy?.rollingUpdate as Record<string, unknown> | undefined;
  const value = rollingUpdate?.[name];
  if (value !== undefined && value !== null)
    return { field: `spec.updateStrategy.rollingUpdate.${name}`, value };
  const text = ds.metadata?.annotations?.[annotation];
  if (text === undefined) return undefined;
  const field = `metadata.annotations[${annotation}]`;
  if (plainText && !text.trim().startsWith('"')) return { field, value: text.trim() };
  try {
    return { field, value: JSON.parse(text) as unknown };
  } catch {
    return invalid(field, text, 'must be JSON');
  }
}

const isViolation = (raw: Raw | FieldViolation | undefined): raw is FieldViolation =>
  raw !== undefined && 'type' in raw;

/** An integer ≥ `min`, or a percent string `P%` with P from `minPercent` to 100. */
function intOrPercent(field: string, value: unknown, min: number, minPercent: number): FieldViolation[] {
  if (typeof value === 'number')
    return Number.isSafeInteger(value) && value >= min
      ? []
      : [invalid(field, value, `must be an integer greater than or equal to ${min}`)];
  if (typeof value === 'string' && /^\d+%$/.test(value)) {
    const percent = Number.parseInt(value, 10);
    return percent >= minPercent && percent <= 100
      ? []
      : [invalid(field, value, `must be a percentage from ${minPercent}% to 100%`)];
  }
  return [invalid(field, value, 'must be an integer or a percentage')];
}

function integerAtLeast(field: string, value: unknown, min: number): FieldViolation[] {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min
    ? []
    : [invalid(field, value, `must be an integer greater than or equal to ${min}`)];
}

function unknownKeys(
  field: string,
  value: Record<string, unknown>,
  known: readonly string[],
): FieldViolation[] {
  return Object.keys(value)
    .filter((key) => !known.includes(key))
    .map((key) => invalid(`${field}.${key}`, value[key], 'unknown field'));
}

function parseStep(field: string, value: unknown): FieldViolation[] {
  if (!isRecord(value)) return [invalid(field, value, 'must be an object with nodes or pause')];
  const keys = Object.keys(value).filter((k) => value[k] !== undefined && value[k] !== null);
  if (keys.length !== 1 || (keys[0] !== 'nodes' && keys[0] !== 'pause'))
    return [invalid(field, value, 'must set exactly one of nodes and pause')];
  if (keys[0] === 'nodes') return intOrPercent(`${field}.nodes`, value.nodes, 1, 1);
  const pause = value.pause;
  if (!isRecord(pause)) return [invalid(`${field}.pause`, pause, 'must be an object')];
  const violations = unknownKeys(`${field}.pause`, pause, ['seconds']);
  if (pause.seconds !== undefined && pause.seconds !== null)
    violations.push(...integerAtLeast(`${field}.pause.seconds`, pause.seconds, 1));
  return violations;
}

function parseSteps(raw: Raw): Parsed<RolloutStep[] | undefined> {
  if (!Array.isArray(raw.value))
    return { value: undefined, violations: [invalid(raw.field, raw.value, 'must be a list of steps')] };
  if (raw.value.length === 0)
    return { value: undefined, violations: [required(raw.field, 'must list at least one step')] };
  const violations = raw.value.flatMap((step, i) => parseStep(`${raw.field}[${i}]`, step));
  if (violations.length > 0) return { value: undefined, violations };
  const steps = (raw.value as Record<string, unknown>[]).map((step): RolloutStep => {
    if (step.nodes !== undefined && step.nodes !== null) return { nodes: step.nodes as IntOrString };
    const seconds = (step.pause as { seconds?: number | null }).seconds;
    return { pause: typeof seconds === 'number' ? { seconds } : {} };
  });
  return { value: steps, violations: [] };
}

function parseTopologyKey(raw: Raw): Parsed<string | undefined> {
  if (typeof raw.value !== 'string' || raw.value === '')
    return { value: undefined, violations: [invalid(raw.field, raw.value, 'must be a label key')] };
  const errors = qualifiedNameErrors(raw.value);
  if (errors.length > 0)
    return { value: undefined, violations: errors.map((m) => invalid(raw.field, raw.value, m)) };
  return { value: raw.value, violations: [] };
}

const HEALTH_FIELDS = ['podReadySeconds', 'maxRestarts', 'nodeReadySeconds', 'maxFailedNodes', 'onFailure'];

function parseHealth(raw: Raw): Parsed<RolloutHealth | undefined> {
  const h = raw.value;
  if (!isRecord(h)) return { value: undefined, violations: [invalid(raw.field, h, 'must be an object')] };
  const set = (key: string) => h[key] !== undefined && h[key] !== null;
  const violations = [
    ...unknownKeys(raw.field, h, HEALTH_FIELDS),
    ...(set('podReadySeconds') ? integerAtLeast(`${raw.field}.podReadySeconds`, h.podReadySeconds, 1) : []),
    ...(set('maxRestarts') ? integerAtLeast(`${raw.field}.maxRestarts`, h.maxRestarts, 0) : []),
    ...(set('nodeReadySeconds')
      ? integerAtLeast(`${raw.field}.nodeReadySeconds`, h.nodeReadySeconds, 1)
      : []),
    ...(set('maxFailedNodes') ? intOrPercent(`${raw.field}.maxFailedNodes`, h.maxFailedNodes, 0, 0) : []),
    ...(set('onFailure') && !onFailureActions.some((a) => a === h.onFailure)
      ? [notSupported(`${raw.field}.onFailure`, h.onFailure, onFailureActions)]
      : []),
  ];
  if (violations.length > 0) return { value: undefined, violations };
  return {
    value: {
      podReadySeconds: set('podReadySeconds') ? (h.podReadySeconds as number) : DEFAULT_POD_READY_SECONDS,
      ...(set('maxRestarts') ? { maxRestarts: h.maxRestarts as number } : {}),
      ...(set('nodeReadySeconds') ? { nodeReadySeconds: h.nodeReadySeconds as number } : {}),
      maxFailedNodes: set('maxFailedNodes') ? (h.maxFailedNodes as IntOrString) : 0,
      onFailure: set('onFailure') ? (h.onFailure as OnFailure) : 'Pause',
    },
    violations: [],
  };
}

/** The settings and every violation found reading them. */
function readSafeRollout(ds: Readonly<DaemonSet>): { settings: SafeRollout; violations: FieldViolation[] } {
  const violations: FieldViolation[] = [];
  const take = <T>(
    raw: Raw | FieldViolation | undefined,
    parse: (raw: Raw) => Parsed<T | undefined>,
  ): T | undefined => {
    if (raw === undefined) return undefined;
    if (isViolation(raw)) {
      violations.push(raw);
      return undefined;
    }
    const parsed = parse(raw);
    violations.push(...parsed.violations);
    return parsed.value;
  };
  const topologyKey = take(
    rawSetting(ds, 'topologyKey', ROLLOUT_TOPOLOGY_KEY_ANNOTATION, true),
    parseTopologyKey,
  );
  const steps = take(rawSetting(ds, 'steps', ROLLOUT_STEPS_ANNOTATION), parseSteps);
  const health = take(rawSetting(ds, 'health', ROLLOUT_HEALTH_ANNOTATION), parseHealth);
  return {
    settings: {
      ...(topologyKey === undefined ? {} : { topologyKey }),
      ...(steps === undefined ? {} : { steps }),
      ...(health === undefined ? {} : { health }),
    },
    violations,
  };
}

/** The DaemonSet's safe-rollout settings in effect: the valid ones (an invalid one counts as unset). */
export function safeRolloutOf(ds: Readonly<DaemonSet>): SafeRollout {
  return readSafeRollout(ds).settings;
}

/** Why the DaemonSet's safe-rollout settings are invalid; empty when they are valid or unset. */
export function safeRolloutViolations(ds: Readonly<DaemonSet>): FieldViolation[] {
  return readSafeRollout(ds).violations;
}
