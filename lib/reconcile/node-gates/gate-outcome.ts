/**
 * The end of the node step's gate part (docs/design.md, 26. Node readiness gates), once the taints
 * and the released marker are written or found right: the `everynode.dev/DaemonSetsReady`
 * condition when what it says changed (`conditionWrite`), the Events, and a requeue when time alone
 * will change the decision.
 *
 * The condition goes after the taint patch, never before: a `nodes/status` patch bumps the node's
 * resourceVersion, and a guarded taint patch decided on the version before it would meet 409.
 */
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import type { DaemonSet } from '../../core/daemon-set.ts';
import { conditionWrite } from '../../core/node-gates/gate-condition.ts';
import {
  type GateKeyDecision,
  type GatingDaemonSet,
  gatedSince,
} from '../../core/node-gates/gate-decision.ts';
import { secondsUntilAvailable } from '../../core/pod-availability.ts';
import { fifoSafeId } from '../../messages/message-group-id.ts';
import { withRequeueCause } from '../../messages/requeue-envelope.ts';
import type { NodeMessage } from '../../messages/work-message.ts';
import type { ReconcileDeps } from '../deps/reconcile-deps.ts';
import type { StepReport } from '../effects/step-report.ts';
import { type GateOutcome, recordGateEvents } from './gate-events.ts';

/** What the step decided on the node as last read (or as written). */
export interface DecidedGates extends GateOutcome {
  /** The live pods of `ds` on the node: not terminating, not being deleted by this step. */
  readonly livePods: (ds: Readonly<DaemonSet>) => readonly V1Pod[];
  readonly report: StepReport;
}

/**
 * Writes the condition when it changed, records the Events (counted in `decided.report`) and
 * requeues the node step for when a gating pod turns available under minReadySeconds or a timeout
 * falls due; resolves to the step's report.
 */
export async function writeGateOutcome(
  deps: ReconcileDeps,
  message: Readonly<NodeMessage>,
  decided: DecidedGates,
): Promise<StepReport> {
  const node = await writeCondition(deps, decided);
  const d = { ...decided, node };
  recordGateEvents(deps.memory.events, d, d.report);
  const wait = nextLookSeconds(d);
  if (wait !== undefined) {
    const due = Math.ceil((d.now.getTime() + wait * 1000) / 1000);
    const again = withRequeueCause(message, `node readiness gate waits ${wait}s`, d.now);
    await deps.ports.requeue.requeue(again, wait, fifoSafeId(`gate:${message.node.name}:${due}`));
    d.report.requeues++;
  }
  return d.report;
}

/** Patches the condition `conditionWrite` decides, if any; resolves to the node as it then is. */
async function writeCondition(deps: ReconcileDeps, d: Readonly<DecidedGates>): Promise<V1Node> {
  const condition = conditionWrite(d.node, d.decision, d.now);
  if (condition === undefined) return d.node;
  const written = await deps.ports.kube.patchNodeCondition(d.node.metadata?.name ?? '', condition);
  deps.memory.objects.putRecentNodes([written], deps.clock().getTime());
  return written;
}

/**
 * Seconds until time alone changes the decision, if it will: a gating pod that is ready but not yet
 * available under its DaemonSet's minReadySeconds (no event announces that moment), or a gated key
 * whose timeout is still to come (the Warning is due then).
 */
function nextLookSeconds(d: Readonly<DecidedGates>): number | undefined {
  const waits: number[] = [];
  const since = gatedSince(d.node);
  for (const g of d.gating) {
    if (!g.shouldRun || g.available) continue;
    const minReady = g.ds.spec?.minReadySeconds ?? 0;
    for (const pod of d.livePods(g.ds)) {
      const wait = secondsUntilAvailable(pod, minReady, d.now);
      if (wait !== undefined) waits.push(wait);
    }
  }
  for (const k of d.decision.keys) {
    const timeout = pendingTimeout(k, d.gating);
    if (timeout === undefined || since === undefined) continue;
    waits.push(Math.max(1, Math.ceil((since + timeout * 1000 - d.now.getTime()) / 1000)));
  }
  return waits.length > 0 ? Math.min(...waits) : undefined;
}

/**
 * The shortest timeout of a key gated (tainted, or being restored) and waiting but not yet timed
 * out; undefined otherwise.
 */
function pendingTimeout(
  k: Readonly<GateKeyDecision>,
  gating: readonly GatingDaemonSet[],
): number | undefined {
  const gatedNow = k.tainted || (k.action === 'restore' && !k.dryRun);
  if (!gatedNow || k.released || k.timedOut || k.action === 'lift' || k.waitingFor.length === 0)
    return undefined;
  const timeouts = gating.flatMap((g) =>
    g.gate.taintKey === k.key && g.shouldRun && !g.available && g.gate.timeoutSeconds !== undefined
      ? [g.gate.timeoutSeconds]
      : [],
  );
  return timeouts.length > 0 ? Math.min(...timeouts) : undefined;
}
