/**
 * The relay's gate-wait timers (docs/design.md, 26. Node readiness gates). A node bootstrapping
 * behind its gate taint is shown `DaemonSetsReady` False only once it has waited
 * `WAITING_SHOWN_AFTER_SECONDS` since its creation (`core/node-gates/gate-condition.ts`): a usual join is
 * released within that grace and its release stays at three requests. But a node whose gating pod
 * crash-loops sends no further event after its join, so nothing would run its `node` step when the
 * grace ends. The relay watches every node and knows its taints and condition for free, so it keeps
 * one timer per waiting node and, when it ends, publishes a `node` trigger with the node's hints —
 * where a requeue in the step would cost a read for every joining node, even one released in 2 s.
 *
 * A node waits when it carries the NoSchedule taint of a gate key some managed DaemonSet the relay
 * knows gates (its effective gate, dry runs included; a BootstrapOnly key released on the node
 * excluded) and shows no `everynode.dev/DaemonSetsReady` condition. Its timer is due at its
 * creation plus the grace — at once for a node a relay that starts finds waiting past it — and fires
 * once per wait; it goes when the node stops waiting (released, condition shown, deleted, no
 * DaemonSet gating the key) and when the relay stops. Nodes tainted NoSchedule without the
 * condition are remembered by name, so that a gate declared after they joined times them too.
 */

import { effectiveGateOf } from '../../core/node-gates/gate-change.ts';
import { WAITING_SHOWN_AFTER_SECONDS } from '../../core/node-gates/gate-condition.ts';
import {
  DAEMONSETS_READY_CONDITION,
  GATE_RELEASED_ANNOTATION,
  releasedGateKeys,
} from '../../core/node-gates/gate-decision.ts';
import { GATE_TAINT_EFFECT, type NodeReadinessMode } from '../../core/node-gates/gate-declaration.ts';
import type { WatchedObjects, WatchedResource } from '../../kube/kube-port.ts';
import type { StructuredLogger } from '../../log/structured-logger.ts';
import type { NodeHint } from '../../messages/pair-hints.ts';
import type { WatchEventDetail } from '../../messages/trigger.ts';
import type { ObjectEvent } from '../cluster-view/facet-cache.ts';
import type { RelayNodeContext } from '../cluster-view/node-context.ts';
import type { RelayPublisher } from '../output/publisher.ts';
import { watchTriggerEvent } from '../output/trigger.ts';

/**
 * The longest a timer waits before it looks at the wall clock again: a clock that jumps, or a node
 * created in the relay's future, is followed within a minute, and no delay overflows a timer.
 */
const MAX_DELAY_MS = 60_000;

/** Options of {@link GateWaitTimers}. */
export interface GateWaitOptions {
  /** The relay's view, as its watches feed it: the nodes' hints and the managed DaemonSets. */
  readonly context: RelayNodeContext;
  readonly publisher: Pick<RelayPublisher, 'add'>;
  readonly clock: () => Date;
  /** Its abort (the relay stopping) clears every timer. */
  readonly signal?: AbortSignal;
  readonly logger?: StructuredLogger;
}

/** One waiting node's timer: when it is due, and its handle until it fires. */
interface WaitTimer {
  readonly due: number;
  handle: NodeJS.Timeout | undefined;
}

/** The gate keys in use, each with its mode (Continuous if any DaemonSet gating it is). */
type KeysInUse = ReadonlyMap<string, NodeReadinessMode>;

/**
 * Publishes a `node` trigger (timer `gate-wait`, urgent) for each node still waiting on its gate
 * when its grace ends (see the module comment). Fed by the relay's watches after its context:
 * {@link seeded} with each LIST, {@link observed} with each event.
 */
export class GateWaitTimers {
  readonly #options: Readonly<GateWaitOptions>;
  /** Nodes tainted NoSchedule without the condition: those a gate key (now or later) may time. */
  readonly #candidates = new Set<string>();
  /** The timers of the waiting nodes, by node name; kept once fired until the wait ends. */
  readonly #timers = new Map<string, WaitTimer>();
  #keys: KeysInUse = new Map();
  #stopped = false;

  constructor(options: Readonly<GateWaitOptions>) {
    this.#options = options;
    if (options.signal?.aborted) this.stop();
    else options.signal?.addEventListener('abort', () => this.stop(), { once: true });
  }

  /** Nodes whose timer is armed and has not fired yet. */
  get pending(): number {
    return [...this.#timers.values()].filter((t) => t.handle !== undefined).length;
  }

  /** Follows the LIST of `resource` the context was just seeded with. */
  seeded<R extends WatchedResource>(resource: R, objects: readonly Readonly<WatchedObjects[R]>[]): void {
    if (resource === 'daemonsets') this.#daemonSetsChanged();
    if (resource !== 'nodes') return;
    const names = objects.map((node) => (node as { metadata?: { name?: string } }).metadata?.name ?? '');
    for (const name of new Set([...this.#candidates, ...names])) this.#judge(name);
  }

  /** Follows one watch event of `resource` the context just followed. */
  observed<R extends WatchedResource>(resource: R, event: Readonly<ObjectEvent<WatchedObjects[R]>>): void {
    if (resource === 'daemonsets') this.#daemonSetsChanged();
    if (resource !== 'nodes') return;
    this.#judge((event.object as { metadata?: { name?: string } }).metadata?.name ?? '');
  }

  /** Clears every timer; none is armed again. */
  stop(): void {
    this.#stopped = true;
    for (const timer of this.#timers.values()) clearTimeout(timer.handle);
    this.#timers.clear();
    this.#candidates.clear();
  }

  /** Re-judges every candidate when the gate keys in use changed. */
  #daemonSetsChanged(): void {
    const keys = new Map<string, NodeReadinessMode>();
    for (const ds of this.#options.context.daemonSets()) {
      const gate = effectiveGateOf(ds);
      if (gate !== undefined && keys.get(gate.taintKey) !== 'Continuous') keys.set(gate.taintKey, gate.mode);
    }
    if (sameKeys(keys, this.#keys)) return;
    this.#keys = keys;
    for (const name of [...this.#candidates]) this.#judge(name);
  }

  /** Arms, keeps or clears the timer of the node named `name`, as the context knows it now. */
  #judge(name: string): void {
    if (this.#stopped || name === '') return;
    const hint = this.#options.context.node(name);
    if (hint === undefined || !isCandidate(hint)) this.#candidates.delete(name);
    else this.#candidates.add(name);
    const due = hint === undefined ? undefined : dueOf(hint, this.#keys);
    if (due === undefined) this.#clear(name);
    else if (!this.#timers.has(name)) this.#arm(name, due);
  }

  #arm(name: string, due: number): void {
    const delay = Math.min(MAX_DELAY_MS, Math.max(0, due - this.#options.clock().getTime()));
    const handle = setTimeout(() => this.#fire(name), delay);
    handle.unref();
    const timer = this.#timers.get(name);
    if (timer === undefined) this.#timers.set(name, { due, handle });
    else timer.handle = handle;
  }

  #clear(name: string): void {
    clearTimeout(this.#timers.get(name)?.handle);
    this.#timers.delete(name);
  }

  /** The timer of `name` ended: publishes its trigger when the node still waits and is due. */
  #fire(name: string): void {
    const timer = this.#timers.get(name);
    if (timer === undefined || this.#stopped) return;
    timer.handle = undefined;
    const hint = this.#options.context.node(name);
    const at = this.#options.clock();
    if (hint === undefined || dueOf(hint, this.#keys) === undefined) this.#clear(name);
    // Timers follow the process's monotonic clock; the step judges by the wall clock, so must we.
    else if (at.getTime() < timer.due) this.#arm(name, timer.due);
    else this.#publish(hint, at);
  }

  /** Publishes the `gate-wait` trigger of the node `hint` at `at`, urgent: the node waits already. */
  #publish(hint: Readonly<NodeHint>, at: Date): void {
    if (!hint.uid) return;
    const hints = this.#options.context.nodeHintsFor(hint.name, at);
    const detail: WatchEventDetail = {
      v: 1,
      event: 'MODIFIED',
      kind: 'Node',
      apiVersion: 'v1',
      name: hint.name,
      uid: hint.uid,
      resourceVersion: hint.resourceVersion,
      ...(hints ? { hints } : {}),
      timer: 'gate-wait',
    };
    this.#options.publisher.add(watchTriggerEvent(detail, at), undefined, undefined, true);
    this.#options.logger?.info(
      `node ${hint.name} still waits on its gate after the grace; sending its step`,
      {
        resourceVersion: hint.resourceVersion,
      },
    );
  }
}

/** True when the node carries a NoSchedule taint and shows no DaemonSetsReady condition. */
function isCandidate(hint: Readonly<NodeHint>): boolean {
  const shown =
    hint.gate?.condition !== undefined ||
    (hint.conditions ?? []).some((c) => c.type === DAEMONSETS_READY_CONDITION);
  return !shown && (hint.taints ?? []).some((t) => t.effect === GATE_TAINT_EFFECT);
}

/**
 * When the node's timer is due (epoch ms): its creation plus the grace, when it waits on its gate —
 * a candidate tainted with a key in `keys` it has not been released from (BootstrapOnly). Undefined
 * when it does not wait, or has no creation time.
 */
function dueOf(hint: Readonly<NodeHint>, keys: KeysInUse): number | undefined {
  if (!isCandidate(hint)) return undefined;
  const created = hint.creationTimestamp === undefined ? Number.NaN : Date.parse(hint.creationTimestamp);
  if (Number.isNaN(created)) return undefined;
  const released = releasedOf(hint);
  const waits = (hint.taints ?? []).some((t) => {
    const mode = t.effect === GATE_TAINT_EFFECT ? keys.get(t.key) : undefined;
    return mode !== undefined && !(mode === 'BootstrapOnly' && released[t.key] !== undefined);
  });
  return waits ? created + WAITING_SHOWN_AFTER_SECONDS * 1000 : undefined;
}

/** The BootstrapOnly keys released on the node, as its hinted marker says. */
function releasedOf(hint: Readonly<NodeHint>): Record<string, string> {
  const text = hint.gate?.released;
  if (text === undefined) return {};
  return releasedGateKeys({ metadata: { annotations: { [GATE_RELEASED_ANNOTATION]: text } } });
}

function sameKeys(a: KeysInUse, b: KeysInUse): boolean {
  return a.size === b.size && [...a].every(([key, mode]) => b.get(key) === mode);
}
