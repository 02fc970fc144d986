/**
 * The text of `rollout plan`: plain lines, one fact each, in an order that only the plan changes,
 * so a script or a test may compare them. A header with the DaemonSet, its revision and the
 * settings; the invalid settings, if any; where the rollout stands; the nodes updating now; each
 * step (`step 1: 1 node (zone a): node-00001`, `step 2: pause until resumed`); the rest by domain
 * (`then zone b: 3 nodes in 2 batches of ≤2: …`); the expected time; and the pauses that wait for
 * a person.
 */
import { goDurationString } from './go-duration.ts';
import type { DomainMove, PlanPart, RolloutPlan } from './rollout-plan-model.ts';
import { domainName, nodeCount, stepWords } from './safe-rollout-words.ts';

const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 'es'}`;
const seconds = (s: number) => goDurationString(s * 1000);
const namesOf = (moves: readonly DomainMove[]) => moves.flatMap((move) => move.nodes).join(', ');
const nodesOf = (moves: readonly DomainMove[]) => moves.reduce((sum, move) => sum + move.nodes.length, 0);

/** ` (zone a)` or ` (zone a: 2, zone b: 1)`; '' without a topology key. */
function domainsOf(plan: Readonly<RolloutPlan>, moves: readonly DomainMove[]): string {
  const key = plan.settings.topologyKey;
  if (key === undefined || moves.length === 0) return '';
  if (moves.length === 1) return ` (${domainName(key, moves[0]?.domain ?? '')})`;
  return ` (${moves.map((move) => `${domainName(key, move.domain)}: ${move.nodes.length}`).join(', ')})`;
}

function header(plan: Readonly<RolloutPlan>, printed: string): string {
  const { steps, topologyKey } = plan.settings;
  return [
    `${printed}, revision ${plan.currentHash}: ${nodeCount(plan.total)}`,
    `steps: ${steps === undefined ? 'none' : steps.map(stepWords).join(', ')}`,
    `topologyKey: ${topologyKey ?? 'none'}`,
    `maxUnavailable: ${plan.maxUnavailable}`,
    `maxSurge: ${plan.maxSurge}`,
    `minReadySeconds: ${plan.minReadySeconds}`,
    `pod ready: ${seconds(plan.podReadySeconds)}`,
  ].join('; ');
}

/** Where the rollout stands, and what the lines after it are. */
function standing(plan: Readonly<RolloutPlan>): string[] {
  const { record, currentHash, total, updated } = plan;
  const running = `${updated} of ${total} nodes run revision ${currentHash}`;
  if (plan.start === 'new')
    return [`${nodeCount(total)} run revision ${currentHash}; a new revision would roll as follows:`];
  if (plan.start === 'halted')
    return [
      `rollout halted at ${record?.haltedAt ?? ''}: ${record?.haltMessage ?? record?.haltReason ?? ''}`,
      `${running}; after kubectl everynode rollout retry the rollout would go as follows:`,
    ];
  if (record === undefined) return [`${running}; the rollout would go as follows:`];
  const steps = plan.settings.steps;
  const where = [
    ...(steps && record.step !== undefined && record.step < steps.length
      ? [`step ${record.step + 1} of ${steps.length}`]
      : []),
    ...(plan.settings.topologyKey !== undefined && record.domain !== undefined
      ? [domainName(plan.settings.topologyKey, record.domain)]
      : []),
  ];
  const at = where.length === 0 ? '' : ` at ${where.join(', ')}`;
  return [`rollout ${record.phase}${at}: ${running}; the rest would go as follows:`];
}

function partLine(plan: Readonly<RolloutPlan>, part: Readonly<PlanPart>): string[] {
  const size = plan.batchSize;
  if (part.kind === 'pause') {
    const words = stepWords(
      part.seconds === undefined ? { pause: {} } : { pause: { seconds: part.seconds } },
    );
    const note = part.resumed
      ? ' (resumed)'
      : part.holding
        ? part.seconds === undefined
          ? ' (holds now)'
          : ` (holds now, ${seconds(part.wait)} left)`
        : '';
    return [`step ${part.step + 1}: ${words}${note}`];
  }
  if (part.kind === 'nodes') {
    const moved = nodesOf(part.moves);
    if (moved === 0)
      return [`step ${part.step + 1}: no node to move (${part.target} of ${plan.total} reached already)`];
    const batches = part.moves.reduce((sum, move) => sum + move.batches, 0);
    const inBatches = batches > 1 ? ` in ${batches} batches of ≤${size}` : '';
    return [
      `step ${part.step + 1}: ${nodeCount(moved)}${domainsOf(plan, part.moves)}${inBatches}: ${namesOf(part.moves)}`,
    ];
  }
  if (part.moves.length === 0) return ['then no node left to move'];
  const key = plan.settings.topologyKey;
  return part.moves.map((move) => {
    const where = key === undefined ? '' : ` ${domainName(key, move.domain)}:`;
    return `then${where} ${nodeCount(move.nodes.length)} in ${count(move.batches, 'batch')} of ≤${size}: ${move.nodes.join(', ')}`;
  });
}

/** The plan as text, every line ending in a newline; `printed` names the DaemonSet as kubectl does. */
export function planText(plan: Readonly<RolloutPlan>, printed: string): string {
  const perBatch = plan.podReadySeconds + plan.minReadySeconds;
  const people = [
    ...(plan.paused ? ['the DaemonSet (paused)'] : []),
    ...plan.waitsForPerson.map((step) => `step ${step + 1}`),
  ];
  const lines = [
    header(plan, printed),
    ...(plan.violations.length > 0
      ? [`invalid, so nothing rolls until it is fixed: ${plan.violations.join('; ')}`]
      : []),
    ...standing(plan),
    ...(plan.inFlight.length > 0
      ? [
          `updating now: ${nodeCount(nodesOf(plan.inFlight))}${domainsOf(plan, plan.inFlight)}: ${namesOf(plan.inFlight)}`,
        ]
      : []),
    ...plan.parts.flatMap((part) => partLine(plan, part)),
    `expected time: ${seconds(plan.expectedSeconds)} = ${count(plan.batches, 'batch')} × ${seconds(perBatch)} (pod ready ${seconds(plan.podReadySeconds)} + minReadySeconds ${seconds(plan.minReadySeconds)}) + ${seconds(plan.pauseSeconds)} of timed pauses`,
    `waits for a person to resume: ${people.length === 0 ? 'none' : people.join(', ')}`,
  ];
  return lines.map((line) => `${line}\n`).join('');
}
