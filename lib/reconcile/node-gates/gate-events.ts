/**
 * The Events of the node readiness gates (docs/design.md, 26. Node readiness gates), on the Node so
 * that `kubectl describe node` tells the story: NodeReadinessGateLifted and
 * NodeReadinessGateRestored naming the key and the DaemonSets, "would lift" / "would restore" in a
 * dry run (once per change of verdict: a dry run changes nothing, so every node step would repeat
 * it), and the Warning NodeReadinessGateTimeout once per node, key and gating episode.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { DaemonSet } from '../../core/daemon-set.ts';
import {
  type GatingDaemonSet,
  gatedSince,
  type NodeGateDecision,
} from '../../core/node-gates/gate-decision.ts';
import { GATE_TAINT_EFFECT } from '../../core/node-gates/gate-declaration.ts';
import type { StepReport } from '../effects/step-report.ts';
import { EventReason, type EventRecorder } from '../memory/event-recorder.ts';

/** What a gate decision did on a node. */
export interface GateOutcome {
  /** The node as it now is. */
  readonly node: V1Node;
  readonly gating: readonly GatingDaemonSet[];
  readonly decision: NodeGateDecision;
  /** The decision's taints (and marker) were written. */
  readonly written: boolean;
  readonly now: Date;
}

const taintText = (key: string) => `${key}:${GATE_TAINT_EFFECT}`;
const nameOf = (ds: Readonly<DaemonSet>) => `${ds.metadata?.namespace ?? ''}/${ds.metadata?.name ?? ''}`;

/** The gating DaemonSets of `key` that should run on the node, for the Events. */
function wantedOf(key: string, gating: readonly GatingDaemonSet[]): string {
  const names = gating.filter((g) => g.gate.taintKey === key && g.shouldRun).map((g) => nameOf(g.ds));
  return names.length === 0
    ? 'no gating DaemonSet should run here'
    : `every gating DaemonSet that should run here has an available pod: ${names.sort().join(', ')}`;
}

/** The Events and counts of the lifts and restores just written. */
function recordWrites(events: EventRecorder, d: Readonly<GateOutcome>, report: StepReport): void {
  const { node, gating } = d;
  for (const k of d.decision.keys) {
    if (k.dryRun || k.action === 'none') continue;
    if (k.action === 'lift') {
      report.gatesLifted++;
      const message = `Lifted taint ${taintText(k.key)}: ${wantedOf(k.key, gating)}`;
      events.onNode(node, 'Normal', EventReason.NodeReadinessGateLifted, message);
    } else {
      report.gatesRestored++;
      const message = `Restored taint ${taintText(k.key)}: waiting for an available pod of ${k.waitingFor.join(', ')}`;
      events.onNode(node, 'Normal', EventReason.NodeReadinessGateRestored, message);
    }
  }
}

/** The dry runs' verdicts, each recorded once per change (a dry run changes nothing, so it repeats). */
function recordDryRuns(events: EventRecorder, d: Readonly<GateOutcome>): void {
  const uid = d.node.metadata?.uid ?? d.node.metadata?.name ?? '';
  for (const k of d.decision.keys) {
    if (!k.dryRun) continue;
    const once = { scope: `dry-run/${uid}/${k.key}`, value: k.action };
    if (k.action === 'lift') {
      const message = `Would lift taint ${taintText(k.key)} (dry run): ${wantedOf(k.key, d.gating)}`;
      events.onNode(d.node, 'Normal', EventReason.NodeReadinessGateLifted, message, once);
    } else if (k.action === 'restore') {
      const message = `Would restore taint ${taintText(k.key)} (dry run): waiting for an available pod of ${k.waitingFor.join(', ')}`;
      events.onNode(d.node, 'Normal', EventReason.NodeReadinessGateRestored, message, once);
    } else events.forget(once.scope);
  }
}

/** The Warning of each key gated past its timeout: once per node, key and gating episode. */
function recordTimeouts(events: EventRecorder, d: Readonly<GateOutcome>, report: StepReport): void {
  const uid = d.node.metadata?.uid ?? d.node.metadata?.name ?? '';
  const since = gatedSince(d.node);
  for (const k of d.decision.keys) {
    if (!k.timedOut || k.action === 'lift') continue;
    const seconds = Math.round((d.now.getTime() - (since ?? d.now.getTime())) / 1000);
    const message = `Node gated by taint ${taintText(k.key)} for ${seconds}s, past its timeout: waiting for an available pod of ${k.waitingFor.join(', ')}`;
    const once = { scope: `timeout/${uid}/${k.key}`, value: String(since) };
    if (events.onNode(d.node, 'Warning', EventReason.NodeReadinessGateTimeout, message, once))
      report.gateTimeouts++;
  }
}

/**
 * Records the Events of `outcome` and counts them in `report`: the lifts and restores written (not
 * dry runs: `gatesLifted`, `gatesRestored`), the dry runs' verdicts, the timeouts (`gateTimeouts`).
 */
export function recordGateEvents(
  events: EventRecorder,
  outcome: Readonly<GateOutcome>,
  report: StepReport,
): void {
  if (outcome.written) recordWrites(events, outcome, report);
  recordDryRuns(events, outcome);
  recordTimeouts(events, outcome, report);
}
