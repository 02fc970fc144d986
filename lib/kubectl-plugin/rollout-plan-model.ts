/**
 * What `rollout plan` foresees for a DaemonSet (docs/design.md, 30. Rollouts that stop
 * themselves), pure: from the node views, the current revision and the rollout record, the order in
 * which the rest of the rollout would move the nodes — each step's nodes, its pauses, then the rest
 * domain by domain in batches — and how long that would take when every new pod becomes available
 * `podReadySeconds` after it is created. Steps and domains are read as the controller reads them
 * (`core/safe-rollout`), the batch size as the rolling update's budgets (`rolloutBudget`).
 */
import type { DaemonSet } from '../core/daemon-set.ts';
import { rolloutExtensionsOf } from '../core/extensions.ts';
import type { NodeView } from '../core/node-view.ts';
import { timestampMillis } from '../core/pod-availability.ts';
import { rolloutBudget, scaledValue } from '../core/rolling-update/budget.ts';
import { type RolloutNode, rolloutNodes } from '../core/safe-rollout/rollout-nodes.ts';
import {
  ROLLOUT_RESUME_ANNOTATION,
  type RolloutRecord,
  requestFor,
  rolloutRecordOf,
} from '../core/safe-rollout/rollout-record.ts';
import { type SafeRollout, safeRolloutOf, safeRolloutViolations } from '../core/safe-rollout/rollout-spec.ts';
import { isHalted } from './rollout-revision.ts';

/** Nodes of one domain that move together, in batches of at most the batch size. */
export interface DomainMove {
  readonly domain: string;
  readonly nodes: readonly string[];
  readonly batches: number;
}

/** One part of the plan: a step that moves nodes, a pause step, or the rest after the steps. */
export type PlanPart =
  | { readonly kind: 'nodes'; readonly step: number; readonly target: number; readonly moves: DomainMove[] }
  | {
      readonly kind: 'pause';
      readonly step: number;
      /** Undefined: until resumed. */
      readonly seconds: number | undefined;
      /** The seconds still to wait (a timed pause that holds already has run for a while). */
      readonly wait: number;
      readonly holding: boolean;
      /** A resume request names this step already. */
      readonly resumed: boolean;
    }
  | { readonly kind: 'rest'; readonly moves: DomainMove[] };

/** Where the plan starts from. */
export type PlanStart =
  /** The rollout of the current revision, from where its record says it is (or from its start). */
  | 'rest'
  /** The current revision's rollout halted (or reverts after its halt): the plan is what follows a retry. */
  | 'halted'
  /** The current revision is rolled out: the plan is that of a new revision. */
  | 'new';

/** The plan. */
export interface RolloutPlan {
  readonly start: PlanStart;
  readonly currentHash: string;
  /** The record of the current revision, if any. */
  readonly record: RolloutRecord | undefined;
  readonly settings: SafeRollout;
  /** Why the safe-rollout settings are invalid (`field: message`): the controller rolls nothing then. */
  readonly violations: string[];
  /** everynode's paused extension holds the DaemonSet: nothing moves until it is resumed. */
  readonly paused: boolean;
  /** Nodes that should run the daemon. */
  readonly total: number;
  /** Of them, on the current revision (running, starting or replacing its pod). */
  readonly updated: number;
  /** Nodes moved already whose new pod is not available yet (failed ones left out). */
  readonly inFlight: DomainMove[];
  readonly maxUnavailable: number;
  readonly maxSurge: number;
  /** Nodes that move at once: maxSurge when the DaemonSet surges, else maxUnavailable. */
  readonly batchSize: number;
  readonly minReadySeconds: number;
  readonly podReadySeconds: number;
  readonly parts: PlanPart[];
  /** Batches of pods to wait for, those in flight included. */
  readonly batches: number;
  /** Seconds of timed pauses still to wait. */
  readonly pauseSeconds: number;
  /** Batches × (podReadySeconds + minReadySeconds) + pauseSeconds. */
  readonly expectedSeconds: number;
  /** The steps (0-based) that wait for `rollout resume`. */
  readonly waitsForPerson: number[];
}

/** What the plan is made from. */
export interface RolloutPlanInput {
  readonly ds: Readonly<DaemonSet>;
  readonly views: readonly NodeView[];
  readonly currentHash: string;
  readonly podReadySeconds: number;
  readonly now: Date;
}

/** `nodes` (in rollout order) cut into their domains, each in batches of `batchSize`. */
function movesOf(nodes: readonly RolloutNode[], batchSize: number): DomainMove[] {
  const moves: { domain: string; nodes: string[] }[] = [];
  for (const node of nodes) {
    const last = moves.at(-1);
    if (last?.domain === node.domain) last.nodes.push(node.view.name);
    else moves.push({ domain: node.domain, nodes: [node.view.name] });
  }
  return moves.map((move) => ({ ...move, batches: Math.ceil(move.nodes.length / Math.max(1, batchSize)) }));
}

const batchesOf = (moves: readonly DomainMove[]) => moves.reduce((sum, move) => sum + move.batches, 0);

/** Where the plan starts, and the record of the current revision it starts from. */
function startOf(
  ds: Readonly<DaemonSet>,
  nodes: readonly RolloutNode[],
  currentHash: string,
): { start: PlanStart; record: RolloutRecord | undefined } {
  const stored = rolloutRecordOf(ds);
  const record = stored?.revision === currentHash ? stored : undefined;
  if (isHalted(record)) return { start: 'halted', record };
  const done = record?.phase === 'Complete' || nodes.every((node) => node.updated && node.available);
  return { start: done ? 'new' : 'rest', record };
}

/** The plan of `input`'s DaemonSet. */
export function rolloutPlanOf(input: Readonly<RolloutPlanInput>): RolloutPlan {
  const { ds, currentHash, now, podReadySeconds } = input;
  const settings = safeRolloutOf(ds);
  const all = rolloutNodes(ds, input.views, currentHash, settings.topologyKey, now);
  const { start, record } = startOf(ds, all, currentHash);
  const { maxSurge, maxUnavailable } = rolloutBudget(ds, all.length);
  const batchSize = maxSurge > 0 ? maxSurge : maxUnavailable;
  const failed = new Set((record?.failedNodes ?? []).map((f) => f.node));
  const fresh = start === 'new';
  const inFlight = fresh
    ? []
    : movesOf(
        all.filter((n) => n.updated && !n.available && !failed.has(n.view.name)),
        all.length,
      );
  const queue = fresh ? [...all] : all.filter((n) => !n.updated);
  let updated = all.length - queue.length;
  const steps = settings.steps ?? [];
  // After a retry the controller begins its steps again; a new revision too.
  const first = start === 'rest' ? (record?.step ?? 0) : 0;
  const resumeRequest = fresh ? undefined : requestFor(ds, ROLLOUT_RESUME_ANNOTATION, currentHash);
  const parts: PlanPart[] = [];
  for (let index = first; index < steps.length; index++) {
    const step = steps[index];
    if (step === undefined) break;
    if ('nodes' in step) {
      const target = Math.min(all.length, scaledValue(step.nodes, all.length, true) ?? all.length);
      const moving = queue.splice(0, Math.max(0, target - updated));
      updated += moving.length;
      parts.push({ kind: 'nodes', step: index, target, moves: movesOf(moving, batchSize) });
      continue;
    }
    const seconds = step.pause.seconds;
    const holding = start === 'rest' && record?.phase === 'Paused' && record.step === index;
    const resumed = resumeRequest === String(index);
    const began = holding ? timestampMillis(record?.stepStartedAt ?? '') : undefined;
    const ran = began === undefined ? 0 : Math.max(0, Math.floor((now.getTime() - began) / 1000));
    const wait = resumed || seconds === undefined ? 0 : Math.max(0, seconds - ran);
    parts.push({ kind: 'pause', step: index, seconds, wait, holding, resumed });
  }
  parts.push({ kind: 'rest', moves: movesOf(queue, batchSize) });
  const moved = parts.flatMap((part) => (part.kind === 'pause' ? [] : part.moves));
  const batches = batchesOf(moved) + (inFlight.length > 0 ? 1 : 0);
  const pauses = parts.flatMap((part) => (part.kind === 'pause' ? [part] : []));
  const pauseSeconds = pauses.reduce((sum, pause) => sum + pause.wait, 0);
  const minReadySeconds = ds.spec?.minReadySeconds ?? 0;
  return {
    start,
    currentHash,
    record,
    settings,
    violations: safeRolloutViolations(ds).map((v) => `${v.field}: ${v.message}`),
    paused: rolloutExtensionsOf(ds).paused,
    total: all.length,
    updated: fresh ? 0 : all.filter((n) => n.updated).length,
    inFlight,
    maxUnavailable,
    maxSurge,
    batchSize,
    minReadySeconds,
    podReadySeconds,
    parts,
    batches,
    pauseSeconds,
    expectedSeconds: batches * (podReadySeconds + minReadySeconds) + pauseSeconds,
    waitsForPerson: pauses.filter((p) => p.seconds === undefined && !p.resumed).map((p) => p.step),
  };
}
