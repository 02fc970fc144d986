/**
 * One DaemonSet step's decision on a safe rollout (docs/design.md, 30. Rollouts that stop
 * themselves): from the listed nodes and pods, the stored rollout record and the user's resume and
 * retry requests, the record to store next, how far the rolling update may go on this step, the
 * events of what changed, and when to look again. Pure: the same inputs give the same answer in any
 * process, so a replay or a restart decides as the first step did.
 */
import { timestampMillis } from '../pod-availability.ts';
import { scaledValue } from '../rolling-update/budget.ts';
import { revertOutcome } from './revert-progress.ts';
import {
  failuresTolerated,
  nodeFailure,
  secondsUntil,
  secondsUntilHealthDeadline,
  secondsUntilWindowsClose,
} from './rollout-health.ts';
import { compareDomains, type RolloutNode, rolloutNodes } from './rollout-nodes.ts';
import {
  type FailedNode,
  ROLLOUT_RESUME_ANNOTATION,
  ROLLOUT_RETRY_ANNOTATION,
  type RolloutPhase,
  type RolloutRecord,
  requestFor,
} from './rollout-record.ts';
import type { RolloutAllowance, RolloutEvent, RolloutProgressInput } from './rollout-types.ts';
import { stableRevisionOf } from './stable-revision.ts';

export type { RolloutAllowance, RolloutEvent, RolloutProgressInput } from './rollout-types.ts';

/** The decision. */
export interface RolloutProgress {
  /** The record to store; undefined when the DaemonSet asks for no safe rollout. */
  readonly record: RolloutRecord | undefined;
  readonly allowance: RolloutAllowance | undefined;
  /** While a halted rollout reverts: the stable revision every node goes back to (the allowance is towards it). */
  readonly revertTo?: string;
  readonly events: readonly RolloutEvent[];
  /** When time alone changes the decision (a timed pause ends, a pod's readiness deadline passes). */
  readonly requeueAfterSeconds?: number;
}

function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The stored record when it is of this revision, with a pending retry applied; and the events of that. */
function startingRecord(
  input: Readonly<RolloutProgressInput>,
  events: RolloutEvent[],
): Partial<RolloutRecord> {
  const { stored, currentHash, ds } = input;
  if (stored?.revision !== currentHash) return {};
  const retry = requestFor(ds, ROLLOUT_RETRY_ANNOTATION, currentHash);
  // A retry names the halt it lifts; one already taken never lifts a later halt of the same second.
  if (stored.haltedAt === undefined || retry !== stored.haltedAt || stored.retried === retry) return stored;
  events.push({
    type: 'Normal',
    reason: 'RolloutRetried',
    message: `Retrying revision ${currentHash}, halted at ${stored.haltedAt}`,
  });
  return {
    revision: currentHash,
    retried: stored.haltedAt,
    ...(stored.stableRevision ? { stableRevision: stored.stableRevision } : {}),
  };
}

/**
 * The failed nodes: those recorded, and those the health rules find failed now. The rules hold
 * while the revision rolls (a completed one is left alone before this is asked), not once it
 * halted: the halt names the nodes that broke the rule.
 */
function failedNodes(
  input: Readonly<RolloutProgressInput>,
  nodes: readonly RolloutNode[],
  start: Partial<RolloutRecord>,
): FailedNode[] {
  const recorded = start.failedNodes ?? [];
  const health = input.settings.health;
  if (health === undefined || start.phase === 'Complete' || start.haltedAt !== undefined)
    return [...recorded];
  const known = new Set(recorded.map((f) => f.node));
  const found = nodes.flatMap((node) => {
    if (known.has(node.view.name)) return [];
    const failure = nodeFailure(node, health, input.now);
    return failure ? [failure] : [];
  });
  return [...recorded, ...found];
}

interface StepOutcome {
  step: number;
  stepStartedAt: string;
  /** Most nodes on the revision while the current step holds (Infinity past the steps). */
  cap: number;
  paused: boolean;
  requeueAfterSeconds?: number;
}

/**
 * Moves through the steps that are complete, and says what the one that holds allows. A nodes step
 * is complete once that many nodes run an available pod of the revision or are failed nodes the
 * health rules tolerate (a tolerated failure must not hold the rollout for ever), and, with health
 * rules, once that many of them have their health windows closed: a canary that breaks its node
 * seconds after it became ready halts the rollout before the next step touches a node.
 */
function advanceSteps(
  input: Readonly<RolloutProgressInput>,
  nodes: readonly RolloutNode[],
  start: Partial<RolloutRecord>,
  failed: ReadonlySet<string>,
  events: RolloutEvent[],
): StepOutcome {
  const steps = input.settings.steps ?? [];
  const { now, ds, currentHash, settings } = input;
  let step = start.step ?? 0;
  let startedAt = start.stepStartedAt ?? rfc3339(now);
  const available = nodes.filter((n) => n.available).length;
  // The nodes that count towards a step, and when each one's health windows close.
  const counted = nodes.filter((n) => n.available || failed.has(n.view.name));
  const done = counted.length;
  const updated = nodes.filter((n) => n.updated).length;
  const health = settings.health;
  const open = health
    ? counted.flatMap((n) => secondsUntilWindowsClose([n], health, now) ?? []).sort((a, b) => a - b)
    : [];
  /** Seconds until `target` of the counted nodes have their windows closed (undefined: they have). */
  const windowsOf = (target: number) => {
    const closed = done - open.length;
    return closed >= target ? undefined : open[target - closed - 1];
  };
  const next = (message: string) => {
    events.push({ type: 'Normal', reason: 'RolloutStepComplete', message });
    step++;
    startedAt = rfc3339(now);
  };
  while (step < steps.length) {
    const current = steps[step];
    if (current === undefined) break;
    if ('nodes' in current) {
      const target = Math.min(nodes.length, scaledValue(current.nodes, nodes.length, true) ?? nodes.length);
      if (done < target) return { step, stepStartedAt: startedAt, cap: target, paused: false };
      const windows = windowsOf(target);
      if (windows !== undefined)
        return { step, stepStartedAt: startedAt, cap: target, paused: false, requeueAfterSeconds: windows };
      next(
        `Step ${step + 1} of ${steps.length} complete: ${available} of ${nodes.length} nodes run an available pod of revision ${currentHash}${done > available ? `, ${done - available} failed nodes tolerated` : ''}`,
      );
      continue;
    }
    const resumed = requestFor(ds, ROLLOUT_RESUME_ANNOTATION, currentHash) === String(step);
    const seconds = current.pause.seconds;
    const endsAt =
      seconds === undefined ? undefined : (timestampMillis(startedAt) ?? now.getTime()) + seconds * 1000;
    if (resumed || (endsAt !== undefined && endsAt <= now.getTime())) {
      next(`Step ${step + 1} of ${steps.length} complete: ${resumed ? 'resumed' : `paused ${seconds}s`}`);
      continue;
    }
    const wait = endsAt === undefined ? undefined : secondsUntil(endsAt, now);
    return {
      step,
      stepStartedAt: startedAt,
      cap: updated,
      paused: true,
      ...(wait === undefined ? {} : { requeueAfterSeconds: wait }),
    };
  }
  return { step, stepStartedAt: startedAt, cap: Number.POSITIVE_INFINITY, paused: false };
}

/** The domain being rolled: the first, in order, with a node neither available on the revision nor failed. */
function currentDomain(nodes: readonly RolloutNode[], failed: ReadonlySet<string>): string | undefined {
  return nodes.find((n) => !n.available && !failed.has(n.view.name))?.domain;
}

/** The safe rollout's decision for this step. */
export function safeRolloutProgress(input: Readonly<RolloutProgressInput>): RolloutProgress {
  const { settings, currentHash, now } = input;
  if (settings.steps === undefined && settings.topologyKey === undefined && settings.health === undefined)
    return { record: undefined, allowance: undefined, events: [] };
  const events: RolloutEvent[] = [];
  const start = startingRecord(input, events);
  const nodes = rolloutNodes(input.ds, input.views, currentHash, settings.topologyKey, now);
  const updated = nodes.filter((n) => n.updated).length;
  // A revision whose rollout completed stays complete: a node joining later is not a new rollout.
  if (start.phase === 'Complete')
    return {
      record: { ...(start as RolloutRecord), updatedNodes: updated },
      allowance: {
        halted: false,
        maxNewNodes: Number.POSITIVE_INFINITY,
        order: nodes.map((n) => n.view.name),
      },
      events,
    };
  const failed = failedNodes(input, nodes, start);
  const failedNames = new Set(failed.map((f) => f.node));
  let halt =
    start.haltedAt === undefined
      ? undefined
      : { at: start.haltedAt, reason: start.haltReason ?? '', message: start.haltMessage ?? '' };
  const health = settings.health;
  if (halt === undefined && health !== undefined && failed.length > failuresTolerated(health, updated)) {
    const list = failed.map((f) => `${f.node} (${f.reason}: ${f.message})`).join('; ');
    halt = {
      at: rfc3339(now),
      reason: 'TooManyFailedNodes',
      message: `${failed.length} nodes failed on revision ${currentHash}, at most ${failuresTolerated(health, updated)} tolerated: ${list}`,
    };
    events.push({
      type: 'Warning',
      reason: 'RolloutHalted',
      message: `Rollout of revision ${currentHash} halted: ${halt.message}`,
    });
  }
  const windows = health && !halt ? secondsUntilWindowsClose(nodes, health, now) : undefined;
  const complete = nodes.every((n) => n.available) && windows === undefined;
  // A halted rollout stays where it stopped: no step completes, however its pods recover.
  const steps: StepOutcome = halt
    ? {
        step: start.step ?? 0,
        stepStartedAt: start.stepStartedAt ?? rfc3339(now),
        cap: updated,
        paused: false,
      }
    : advanceSteps(input, nodes, start, failedNames, events);
  const domain = settings.topologyKey === undefined ? undefined : currentDomain(nodes, failedNames);
  if (
    !halt &&
    start.domain !== undefined &&
    domain !== start.domain &&
    (domain === undefined || compareDomains(start.domain, domain) < 0)
  )
    events.push({
      type: 'Normal',
      reason: 'RolloutDomainComplete',
      message: `Domain ${start.domain || '(no label)'} complete for revision ${currentHash}`,
    });
  const stableRevision =
    complete && !halt ? currentHash : (start.stableRevision ?? stableRevisionOf(input, nodes));
  const revert =
    halt && health?.onFailure === 'Revert' && stableRevision !== undefined && stableRevision !== currentHash
      ? revertOutcome(input, stableRevision, failed, start.revertedAt, events)
      : undefined;
  const phase: RolloutPhase =
    revert?.phase ?? (halt ? 'Halted' : complete ? 'Complete' : steps.paused ? 'Paused' : 'Progressing');
  const record: RolloutRecord = {
    revision: currentHash,
    phase,
    ...(settings.steps ? { step: steps.step, stepStartedAt: steps.stepStartedAt } : {}),
    ...(domain === undefined ? {} : { domain }),
    updatedNodes: updated,
    ...(stableRevision ? { stableRevision } : {}),
    ...(failed.length > 0 ? { failedNodes: failed } : {}),
    ...(halt ? { haltedAt: halt.at, haltReason: halt.reason, haltMessage: halt.message } : {}),
    ...(start.retried ? { retried: start.retried } : {}),
    ...(revert?.revertedAt ? { revertedAt: revert.revertedAt } : {}),
  };
  const order = nodes
    .filter((n) => domain === undefined || compareDomains(n.domain, domain) <= 0)
    .map((n) => n.view.name);
  const waits = [
    steps.requeueAfterSeconds,
    health && !halt && !complete ? secondsUntilHealthDeadline(nodes, health, failedNames, now) : undefined,
    nodes.every((n) => n.available) ? windows : undefined,
  ].filter((s): s is number => s !== undefined);
  return {
    record,
    allowance: revert?.allowance ?? {
      halted: halt !== undefined,
      maxNewNodes: Math.max(0, steps.cap - updated),
      order,
    },
    ...(revert ? { revertTo: revert.revision } : {}),
    events,
    ...(waits.length > 0 ? { requeueAfterSeconds: Math.min(...waits) } : {}),
  };
}
