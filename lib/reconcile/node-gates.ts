/**
 * The gate part of the `node` step (docs/design.md, 26. Node readiness gates; 16. The node step):
 * from the node and the gating DaemonSets' pods on it, `decideNodeGates` says which gate taints to
 * lift or restore; this part writes that, shows the `everynode.dev/DaemonSetsReady` condition,
 * records the Events and asks to look again when time alone will change the answer.
 *
 * Writes are safe under concurrency: the taints and the BootstrapOnly released marker go in one
 * merge patch guarded by the resourceVersion the node was read at, and a Conflict means the node
 * changed (another controller's taint, a kubelet's status): it is read again and decided again, so
 * nothing of theirs is ever written over. The condition goes through `nodes/status`, merged by type.
 *
 * The node is decided as the step planned it, with no read of its own when that came from the
 * relay's hints and they carry its gate state (the marker and the condition: `node-gate-hint.ts`),
 * so releasing a node costs the patch, the condition and the Event; the guarded patch is what makes
 * a stale hint safe (docs/design.md, 9. Hints, and why a stale hint is safe).
 */
import type { V1Node, V1NodeCondition, V1Pod } from '@kubernetes/client-node';
import type { DaemonSet } from '../core/daemon-set.ts';
import {
  DAEMONSETS_READY_CONDITION,
  decideNodeGates,
  GATE_RELEASED_ANNOTATION,
  type GateKeyDecision,
  type GatingDaemonSet,
  gatedSince,
} from '../core/node-gate.ts';
import { gateKeysFor, nodeReadinessOf } from '../core/node-readiness.ts';
import { nodeShouldRunDaemonPod } from '../core/placement.ts';
import {
  isPodAvailable,
  isPodTerminating,
  secondsUntilAvailable,
  timestampMillis,
} from '../core/pod-availability.ts';
import { EverynodeError } from '../errors/everynode-error.ts';
import { ConflictError } from '../kube/kube-api-errors.ts';
import { compareResourceVersions } from '../kube/resource-version.ts';
import { fifoSafeId } from '../messages/message-group-id.ts';
import { withRequeueCause } from '../messages/requeue-envelope.ts';
import type { NodeMessage } from '../messages/work-message.ts';
import { isActionable } from './actionable.ts';
import { type GateOutcome, recordGateEvents } from './node-gate-events.ts';
import { carriesNamedGateTaint, withNamedOrphansLifted } from './node-gate-orphans.ts';
import { nodeVersion } from './pair-reader.ts';
import type { ReconcileDeps } from './reconcile-deps.ts';
import { emptyReport, type StepReport } from './step-report.ts';

/** Gate writes tried on one node before the step fails (and is retried): each Conflict re-reads it. */
export const GATE_WRITE_ATTEMPTS = 3;

/** The node kept changing under its gate write; retried with the message. */
export class NodeGateConflictError extends EverynodeError {
  constructor(nodeName: string) {
    super(
      `writing the readiness gate taints of node ${nodeName}: the node changed under ${GATE_WRITE_ATTEMPTS} writes in a row`,
      true,
    );
  }
}

/** What the node step hands the gate part. */
export interface NodeGateInput {
  /** The node as the step planned from: its own GET, or the relay's hints. */
  readonly node: V1Node | undefined;
  /** `node` is the answer to a GET of this step. */
  readonly nodeConfirmed: boolean;
  /**
   * `node` shows its gate state (the released marker, everynode's condition) as of its
   * resourceVersion: read, or hinted by a relay that sends it. Else the node is read for the gate.
   */
  readonly gateStateKnown: boolean;
  /** Every DaemonSet of the managed kind the step listed or was hinted. */
  readonly daemonSets: readonly DaemonSet[];
  /** The pods of `ds` on the node. */
  readonly podsOf: (ds: Readonly<DaemonSet>) => readonly V1Pod[];
  /** The uids of the pods the step's pairs are deleting: not available, whatever they show. */
  readonly deleting: ReadonlySet<string>;
}

type Gated = Pick<GatingDaemonSet, 'ds' | 'gate'>;

/** The actionable DaemonSets with a valid gate. */
function gatingOf(daemonSets: readonly DaemonSet[]): Gated[] {
  return daemonSets.filter(isActionable).flatMap((ds) => {
    const gate = nodeReadinessOf(ds);
    return gate === undefined ? [] : [{ ds, gate }];
  });
}

/** True when the node shows gate state of ours (the condition or the marker) to keep up to date. */
function carriesGateState(node: Readonly<V1Node>): boolean {
  return (
    node.status?.conditions?.some((c) => c.type === DAEMONSETS_READY_CONDITION) === true ||
    node.metadata?.annotations?.[GATE_RELEASED_ANNOTATION] !== undefined
  );
}

/** The live pods of `ds` on the node: not terminating, not being deleted by this step. */
function livePods(input: Readonly<NodeGateInput>, ds: Readonly<DaemonSet>): V1Pod[] {
  return input
    .podsOf(ds)
    .filter((pod) => !isPodTerminating(pod) && !input.deleting.has(pod.metadata?.uid ?? ''));
}

/** Each gating DaemonSet as `node` sees it: placed with every gate key tolerated, available or not. */
function gatingOn(
  node: Readonly<V1Node>,
  gated: readonly Gated[],
  input: Readonly<NodeGateInput>,
  now: Date,
) {
  // Every listed DaemonSet's gate keys (each gating one's own among them), as its pods tolerate them.
  const keys = gated[0] === undefined ? [] : gateKeysFor(gated[0].ds, input.daemonSets);
  return gated.map(({ ds, gate }): GatingDaemonSet => {
    const minReady = ds.spec?.minReadySeconds ?? 0;
    return {
      ds,
      gate,
      shouldRun: nodeShouldRunDaemonPod(node, ds, keys).shouldRun,
      available: livePods(input, ds).some((pod) => isPodAvailable(pod, minReady, now)),
    };
  });
}

/** One GET of the node, kept as this process's recent read of it. */
async function readNode(deps: ReconcileDeps, name: string): Promise<V1Node | undefined> {
  const node = await deps.kube.getNode(name);
  if (node !== undefined) deps.objects.putRecentNodes([node], deps.clock().getTime());
  return node;
}

/**
 * The node to decide the gates on: the step's own read; else the hinted node when the hint carries
 * its gate state, or this process's own read or write of it of the last seconds when that is newer
 * (a hint may predate the gate this process just wrote, and the event of that write is a pipeline
 * trip away); else one GET, for a hint without the marker and the condition cannot be decided on.
 */
async function nodeToDecide(
  deps: ReconcileDeps,
  name: string,
  input: Readonly<NodeGateInput>,
): Promise<V1Node | undefined> {
  const hinted = input.node;
  if (hinted === undefined || input.nodeConfirmed) return hinted;
  if (!input.gateStateKnown) return readNode(deps, name);
  const recent = deps.objects.recentNode(name, deps.clock().getTime());
  if (recent === undefined) return hinted;
  const order = compareResourceVersions(nodeVersion(recent) ?? '', nodeVersion(hinted) ?? '');
  return order === 1 ? recent : hinted;
}

/**
 * Makes the node's gates right for `message`'s node: decides, writes the taints and marker (one
 * guarded merge patch, decided again after each Conflict), the condition when it changed, the
 * Events, and a requeue when a gating pod is ready but not yet available (minReadySeconds) or a
 * timeout is still to come; lifts the keys the message names that no DaemonSet gates any more
 * (`node-gate-orphans.ts`). Does nothing for a node that is gone, or when no DaemonSet gates and the
 * node shows no gate state of ours nor the taint of a key the message names.
 */
export async function reconcileNodeGates(
  deps: ReconcileDeps,
  message: Readonly<NodeMessage>,
  input: Readonly<NodeGateInput>,
): Promise<StepReport> {
  const report = emptyReport();
  const gated = gatingOf(input.daemonSets);
  const named = carriesNamedGateTaint(message, input.node);
  if (input.node === undefined || (gated.length === 0 && !named && !carriesGateState(input.node)))
    return report;
  const name = message.node.name;
  const now = deps.clock();
  let node = await nodeToDecide(deps, name, input);
  for (let attempt = 1; node !== undefined; attempt++) {
    const gating = gatingOn(node, gated, input, now);
    const decision = withNamedOrphansLifted(message, node, decideNodeGates(node, gating, now.getTime()));
    const decided = { input, gating, decision, now, report };
    if (decision.taints === undefined) return finish(deps, message, { ...decided, node, written: false });
    const marker = decision.releasedMarker;
    try {
      const annotations = marker === undefined ? undefined : { [GATE_RELEASED_ANNOTATION]: marker };
      const written = await deps.kube.patchNodeGate(
        name,
        node.metadata?.resourceVersion ?? '',
        decision.taints,
        annotations,
      );
      deps.objects.putRecentNodes([written], deps.clock().getTime());
      return finish(deps, message, { ...decided, node: written, written: true });
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      report.conflicts++;
      if (attempt >= GATE_WRITE_ATTEMPTS) throw new NodeGateConflictError(name);
      node = await readNode(deps, name);
    }
  }
  return report;
}

/** What the step decided on the node as last read (or as written). */
interface Decided extends GateOutcome {
  readonly input: NodeGateInput;
  readonly report: StepReport;
}

/** The condition, the dry runs' and timeouts' Events, and the requeue; resolves to the step's report. */
async function finish(
  deps: ReconcileDeps,
  message: Readonly<NodeMessage>,
  decided: Decided,
): Promise<StepReport> {
  const node = await writeCondition(deps, decided);
  const d = { ...decided, node };
  recordGateEvents(deps.events, d, d.report);
  const wait = nextLookSeconds(d);
  if (wait !== undefined) {
    const due = Math.ceil((d.now.getTime() + wait * 1000) / 1000);
    const again = withRequeueCause(message, `node readiness gate waits ${wait}s`, d.now);
    await deps.requeue.requeue(again, wait, fifoSafeId(`gate:${message.node.name}:${due}`));
    d.report.requeues++;
  }
  return d.report;
}

/**
 * Writes the decided condition when its status, reason or message differs from the node's, and
 * returns the node as it then is. lastHeartbeatTime is now; lastTransitionTime moves only when the
 * status flips — and a first False on a node bootstrapping behind a gate taint dates from the
 * node's creation, as `gatedSince` counts it, so the timeout clock does not restart with it.
 */
async function writeCondition(deps: ReconcileDeps, d: Readonly<Decided>): Promise<V1Node> {
  const wanted = d.decision.condition;
  const current = d.node.status?.conditions?.find((c) => c.type === DAEMONSETS_READY_CONDITION);
  if (
    current !== undefined &&
    current.status === wanted.status &&
    current.reason === wanted.reason &&
    current.message === wanted.message
  )
    return d.node;
  const condition: V1NodeCondition = { ...wanted, lastHeartbeatTime: d.now };
  if (current?.status !== wanted.status) condition.lastTransitionTime = transitionTime(d, current);
  const written = await deps.kube.patchNodeCondition(d.node.metadata?.name ?? '', condition);
  deps.objects.putRecentNodes([written], deps.clock().getTime());
  return written;
}

function transitionTime(d: Readonly<Decided>, current: V1NodeCondition | undefined): Date {
  const bootstrapping =
    current === undefined &&
    d.decision.condition.status === 'False' &&
    d.decision.keys.some((k) => k.tainted && k.action !== 'lift' && k.waitingFor.length > 0);
  const created = timestampMillis(d.node.metadata?.creationTimestamp);
  return bootstrapping && created !== undefined && created < d.now.getTime() ? new Date(created) : d.now;
}

/**
 * Seconds until time alone changes the decision, if it will: a gating pod that is ready but not yet
 * available under its DaemonSet's minReadySeconds (no event announces that moment), or a gated key
 * whose timeout is still to come (the Warning is due then).
 */
function nextLookSeconds(d: Readonly<Decided>): number | undefined {
  const waits: number[] = [];
  const since = gatedSince(d.node);
  for (const g of d.gating) {
    if (!g.shouldRun || g.available) continue;
    const minReady = g.ds.spec?.minReadySeconds ?? 0;
    for (const pod of livePods(d.input, g.ds)) {
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
