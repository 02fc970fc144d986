/**
 * The gate part of the `node` step (docs/design.md, 26. Node readiness gates; 16. The node step):
 * from the node and the gating DaemonSets' pods on it, `decideNodeGates` says which gate taints to
 * lift or restore; this part writes that, then (`node-gates/gate-outcome.ts`) the
 * `everynode.dev/DaemonSetsReady` condition when what it says changed, the Events, and a requeue
 * when time alone will change the answer.
 *
 * Writes are safe under concurrency: the taints and the BootstrapOnly released marker go in one
 * merge patch guarded by the resourceVersion the node was read at, and a Conflict means the node
 * changed (another controller's taint, a kubelet's status): it is read again and decided again, so
 * nothing of theirs is ever written over. The condition goes through `nodes/status`, merged by type.
 *
 * The node is decided as the step planned it, with no read of its own when that came from the
 * relay's hints and they carry its gate state (the marker and the condition: `node-gate-hint.ts`),
 * so releasing a node costs the patch, the condition and the Event, and a step that finds the node
 * still waiting costs nothing; the guarded patch is what makes a stale hint safe
 * (docs/design.md, 9. Hints, and why a stale hint is safe).
 */
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { isActionable } from '../../core/actionable.ts';
import { isControlledBy } from '../../core/controller-ref.ts';
import { targetNodeName } from '../../core/daemon-pod.ts';
import type { DaemonSet } from '../../core/daemon-set.ts';
import {
  DAEMONSETS_READY_CONDITION,
  decideNodeGates,
  GATE_RELEASED_ANNOTATION,
  type GatingDaemonSet,
} from '../../core/node-gates/gate-decision.ts';
import { gateKeysFor, nodeReadinessOf } from '../../core/node-gates/gate-declaration.ts';
import { nodeShouldRunDaemonPod } from '../../core/placement.ts';
import { isPodAvailable, isPodTerminating } from '../../core/pod-availability.ts';
import { EverynodeError } from '../../errors/everynode-error.ts';
import { ConflictError } from '../../kube/errors/kube-api-errors.ts';
import { compareResourceVersions } from '../../kube/resource-version.ts';
import type { NodeMessage } from '../../messages/work-message.ts';
import type { ReconcileDeps } from '../deps/reconcile-deps.ts';
import { emptyReport, type StepReport } from '../effects/step-report.ts';
import { nodeVersion } from '../reads/pair-reader.ts';
import { writeGateOutcome } from './gate-outcome.ts';
import { carriesNamedGateTaint, withNamedOrphansLifted } from './lift-orphan-gates.ts';

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
  const node = await deps.ports.kube.getNode(name);
  if (node !== undefined) deps.memory.objects.putRecentNodes([node], deps.clock().getTime());
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
  const recent = deps.memory.objects.recentNode(name, deps.clock().getTime());
  if (recent === undefined) return hinted;
  const order = compareResourceVersions(nodeVersion(recent) ?? '', nodeVersion(hinted) ?? '');
  return order === 1 ? recent : hinted;
}

/**
 * `input` with the node's pods listed afresh (a consistent LIST), for a decision on a node newer
 * than the hint the pods came with: a newer node decided with older pods could restore a gate whose
 * pods are all available, or lift one whose pod has gone since.
 */
async function withPodsListed(
  deps: ReconcileDeps,
  name: string,
  input: Readonly<NodeGateInput>,
): Promise<NodeGateInput> {
  const listed = await deps.ports.kube.listPods({ fieldSelector: `spec.nodeName=${name}` });
  const pods = listed.items.filter((pod) => targetNodeName(pod) === name);
  return { ...input, podsOf: (ds) => pods.filter((pod) => isControlledBy(pod, ds)) };
}

/**
 * Makes the node's gates right for `message`'s node: decides, writes the taints and marker (one
 * guarded merge patch, decided again after each Conflict), the condition when it changed, the
 * Events, and a requeue when a gating pod is ready but not yet available (minReadySeconds) or a
 * timeout is still to come; lifts the keys the message names that no DaemonSet gates any more
 * (`core/node-gates/orphan-gate-keys.ts`). Does nothing for a node that is gone, or when no DaemonSet gates and the
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
  let pods = input;
  // Pods hinted with an older node than the one decided on are read again with it.
  const hintedPods = () => !input.nodeConfirmed && pods === input;
  if (node !== undefined && node !== input.node && hintedPods())
    pods = await withPodsListed(deps, name, input);
  for (let attempt = 1; node !== undefined; attempt++) {
    const gating = gatingOn(node, gated, pods, now);
    const decision = withNamedOrphansLifted(message, node, decideNodeGates(node, gating, now.getTime()));
    const decided = {
      gating,
      decision,
      now,
      report,
      livePods: (ds: Readonly<DaemonSet>) => livePods(pods, ds),
    };
    if (decision.taints === undefined)
      return writeGateOutcome(deps, message, { ...decided, node, written: false });
    const marker = decision.releasedMarker;
    try {
      const annotations = marker === undefined ? undefined : { [GATE_RELEASED_ANNOTATION]: marker };
      const written = await deps.ports.kube.patchNodeGate(
        name,
        node.metadata?.resourceVersion ?? '',
        decision.taints,
        annotations,
      );
      deps.memory.objects.putRecentNodes([written], deps.clock().getTime());
      return writeGateOutcome(deps, message, { ...decided, node: written, written: true });
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      report.conflicts++;
      if (attempt >= GATE_WRITE_ATTEMPTS) throw new NodeGateConflictError(name);
      node = await readNode(deps, name);
      if (node !== undefined && hintedPods()) pods = await withPodsListed(deps, name, input);
    }
  }
  return report;
}
