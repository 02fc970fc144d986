/**
 * A DaemonSet's node readiness gate (docs/design.md, 26. Node readiness gates): nodes register
 * with a NoSchedule taint, and everynode lifts it once every gating DaemonSet that should run on a
 * node has an available pod there. On an `everynode.dev/v1` DaemonSet it is `spec.nodeReadiness`;
 * on an `apps/v1` DaemonSet the same through annotations. When the field is present it wins whole.
 *
 * | setting | everynode.dev/v1 field | apps/v1 annotation | default |
 * | --- | --- | --- | --- |
 * | mode | `spec.nodeReadiness.mode` | `everynode.dev/node-readiness` | none: no gate |
 * | taint key | `spec.nodeReadiness.taintKey` | `everynode.dev/node-readiness-taint-key` | `everynode.dev/not-ready` |
 * | timeout | `spec.nodeReadiness.timeoutSeconds` | `everynode.dev/node-readiness-timeout-seconds` | none |
 * | dry run | `spec.nodeReadiness.dryRun` | `everynode.dev/node-readiness-dry-run` (`"true"`) | false |
 */
import type { DaemonSet } from '../daemon-set.ts';
import { type FieldViolation, invalid, notSupported, required } from '../field-violation.ts';
import { qualifiedNameErrors } from '../object-names.ts';

/** Annotation carrying the gate's mode on an apps/v1 DaemonSet; its presence declares the gate. */
export const NODE_READINESS_ANNOTATION = 'everynode.dev/node-readiness';
/** Annotation carrying the gate's taint key on an apps/v1 DaemonSet. */
export const NODE_READINESS_TAINT_KEY_ANNOTATION = 'everynode.dev/node-readiness-taint-key';
/** Annotation carrying the gate's timeout on an apps/v1 DaemonSet. */
export const NODE_READINESS_TIMEOUT_ANNOTATION = 'everynode.dev/node-readiness-timeout-seconds';
/** Annotation carrying the gate's dry run on an apps/v1 DaemonSet. */
export const NODE_READINESS_DRY_RUN_ANNOTATION = 'everynode.dev/node-readiness-dry-run';
/** The taint key of a gate that names none. */
export const DEFAULT_GATE_TAINT_KEY = 'everynode.dev/not-ready';
/** The only effect a gate taint has: NoExecute would evict what already runs on the node. */
export const GATE_TAINT_EFFECT = 'NoSchedule';

/**
 * True when `taint` is the gate taint of `key`: that key with the NoSchedule effect. A NoExecute or
 * PreferNoSchedule taint of the same key is another controller's, never lifted or tolerated as ours.
 */
export function isGateTaint(taint: Readonly<{ key?: string; effect?: string }>, key: string): boolean {
  return taint.key === key && taint.effect === GATE_TAINT_EFFECT;
}

/** The gate's modes (the Node Readiness Controller's): lifted once, or kept in step with the pods. */
export const nodeReadinessModes = ['BootstrapOnly', 'Continuous'] as const;
/** How a gate follows its pods. */
export type NodeReadinessMode = (typeof nodeReadinessModes)[number];

/** A DaemonSet's effective gate. */
export interface NodeReadinessGate {
  /**
   * `BootstrapOnly`: a node's taint is lifted once and never restored; `Continuous`: restored
   * whenever the DaemonSet's pod on the node stops being available, lifted again when it is.
   */
  readonly mode: NodeReadinessMode;
  /** The taint key that gates the node. */
  readonly taintKey: string;
  /** Seconds a node may stay gated before a Warning event and a metric; the taint stays. */
  readonly timeoutSeconds?: number;
  /** Everything is decided and reported, and no taint is changed. */
  readonly dryRun: boolean;
}

interface RawGate {
  readonly mode: unknown;
  readonly taintKey: unknown;
  readonly timeoutSeconds: unknown;
  readonly dryRun: unknown;
  readonly effect?: unknown;
  /** JSON path of each setting, for violations. */
  readonly fields: Readonly<Record<'mode' | 'taintKey' | 'timeoutSeconds' | 'dryRun' | 'effect', string>>;
}

const specField = (name: string) => `spec.nodeReadiness.${name}`;
const annotationField = (name: string) => `metadata.annotations[${name}]`;

/** The gate's settings as written, from the field or else the annotations; undefined when there is no gate. */
function rawGate(ds: Readonly<DaemonSet>): RawGate | undefined {
  const field = (ds.spec as { nodeReadiness?: unknown } | undefined)?.nodeReadiness;
  if (field !== undefined && field !== null) {
    const value = (typeof field === 'object' ? field : {}) as Record<string, unknown>;
    return {
      mode: value.mode,
      taintKey: value.taintKey,
      timeoutSeconds: value.timeoutSeconds,
      dryRun: value.dryRun,
      effect: value.effect,
      fields: {
        mode: specField('mode'),
        taintKey: specField('taintKey'),
        timeoutSeconds: specField('timeoutSeconds'),
        dryRun: specField('dryRun'),
        effect: specField('effect'),
      },
    };
  }
  const annotations = ds.metadata?.annotations ?? {};
  const mode = annotations[NODE_READINESS_ANNOTATION];
  if (mode === undefined) return undefined;
  return {
    mode,
    taintKey: annotations[NODE_READINESS_TAINT_KEY_ANNOTATION],
    timeoutSeconds: annotations[NODE_READINESS_TIMEOUT_ANNOTATION],
    dryRun: annotations[NODE_READINESS_DRY_RUN_ANNOTATION],
    fields: {
      mode: annotationField(NODE_READINESS_ANNOTATION),
      taintKey: annotationField(NODE_READINESS_TAINT_KEY_ANNOTATION),
      timeoutSeconds: annotationField(NODE_READINESS_TIMEOUT_ANNOTATION),
      dryRun: annotationField(NODE_READINESS_DRY_RUN_ANNOTATION),
      effect: specField('effect'),
    },
  };
}

function parseMode(raw: unknown): NodeReadinessMode | undefined {
  return nodeReadinessModes.find((mode) => mode === raw);
}

function parseTaintKey(raw: unknown): string | undefined {
  if (raw === undefined || raw === null || raw === '') return DEFAULT_GATE_TAINT_KEY;
  return typeof raw === 'string' && qualifiedNameErrors(raw).length === 0 ? raw : undefined;
}

/** Seconds: an integer > 0 (a JSON number or, in an annotation, its decimal text); null = unset. */
function parseTimeout(raw: unknown): number | null | undefined {
  if (raw === undefined || raw === null) return null;
  const n =
    typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

function parseDryRun(raw: unknown): boolean | undefined {
  if (raw === undefined || raw === null) return false;
  if (typeof raw === 'boolean') return raw;
  return raw === 'true' ? true : raw === 'false' ? false : undefined;
}

/**
 * The DaemonSet's gate, or undefined when it declares none or declares it invalidly (then
 * {@link nodeReadinessViolations} says why, and the DaemonSet gates nothing until fixed: an
 * invalid gate never taints a node).
 */
export function nodeReadinessOf(ds: Readonly<DaemonSet>): NodeReadinessGate | undefined {
  const raw = rawGate(ds);
  if (raw === undefined || nodeReadinessViolations(ds).length > 0) return undefined;
  const timeoutSeconds = parseTimeout(raw.timeoutSeconds);
  return {
    mode: parseMode(raw.mode) ?? 'BootstrapOnly',
    taintKey: parseTaintKey(raw.taintKey) ?? DEFAULT_GATE_TAINT_KEY,
    ...(typeof timeoutSeconds === 'number' ? { timeoutSeconds } : {}),
    dryRun: parseDryRun(raw.dryRun) ?? false,
  };
}

/** The violations of the DaemonSet's gate settings; empty when it has none or they are valid. */
export function nodeReadinessViolations(ds: Readonly<DaemonSet>): FieldViolation[] {
  const raw = rawGate(ds);
  if (raw === undefined) return [];
  const violations: FieldViolation[] = [];
  if (raw.mode === undefined || raw.mode === null) violations.push(required(raw.fields.mode));
  else if (parseMode(raw.mode) === undefined)
    violations.push(notSupported(raw.fields.mode, raw.mode, nodeReadinessModes));
  if (parseTaintKey(raw.taintKey) === undefined) {
    const messages =
      typeof raw.taintKey === 'string' ? qualifiedNameErrors(raw.taintKey) : ['must be a string'];
    for (const message of messages) violations.push(invalid(raw.fields.taintKey, raw.taintKey, message));
  }
  if (parseTimeout(raw.timeoutSeconds) === undefined)
    violations.push(
      invalid(raw.fields.timeoutSeconds, raw.timeoutSeconds, 'must be an integer greater than 0'),
    );
  if (parseDryRun(raw.dryRun) === undefined)
    violations.push(invalid(raw.fields.dryRun, raw.dryRun, 'must be true or false'));
  if (raw.effect !== undefined && raw.effect !== null && raw.effect !== GATE_TAINT_EFFECT)
    violations.push(notSupported(raw.fields.effect, raw.effect, [GATE_TAINT_EFFECT]));
  return violations;
}

/**
 * The gate keys `ds`'s pods tolerate: its own gate's and those of the DaemonSets in `known` (the
 * step's list of the cluster's, or the process cache), each once, sorted.
 */
export function gateKeysFor(ds: Readonly<DaemonSet>, known: Iterable<Readonly<DaemonSet>> = []): string[] {
  const keys = new Set<string>();
  for (const other of [ds, ...known]) {
    const gate = nodeReadinessOf(other);
    if (gate) keys.add(gate.taintKey);
  }
  return [...keys].sort();
}
