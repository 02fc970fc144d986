/**
 * Kubernetes Events about DaemonSets, with upstream reasons and messages
 * (pkg/controller/controller_utils.go, pkg/controller/daemon/daemon_controller.go) and the
 * client-go spam filter, so a large rollout writes a handful of events, not one per pod.
 */
import { randomInt } from 'node:crypto';
import type { CoreV1Event, V1Node } from '@kubernetes/client-node';
import type { DaemonSet } from '../../core/daemon-set.ts';
import { AlreadyExistsError } from '../../kube/errors/kube-api-errors.ts';
import { isNamespaceGone } from '../../kube/errors/namespace-gone.ts';
import type { KubePort } from '../../kube/kube-port.ts';
import { eventFor, eventName } from '../../kube/operations/event-for.ts';
import type { StructuredLogger } from '../../log/structured-logger.ts';
import { EventSpamFilter } from './event-spam-filter.ts';
import { Lru } from './lru.ts';

/** The event reasons the DaemonSet controller records (upstream constants). */
export const EventReason = {
  SuccessfulCreate: 'SuccessfulCreate',
  FailedCreate: 'FailedCreate',
  SuccessfulDelete: 'SuccessfulDelete',
  FailedDelete: 'FailedDelete',
  FailedDaemonPod: 'FailedDaemonPod',
  SucceededDaemonPod: 'SucceededDaemonPod',
  SelectingAll: 'SelectingAll',
  /** everynode: the spec fails validation (upstream has no such event; the API server rejects it). */
  InvalidSpec: 'InvalidSpec',
  /** everynode, on a Node: a node readiness gate taint lifted (or, in a dry run, that would be). */
  NodeReadinessGateLifted: 'NodeReadinessGateLifted',
  /** everynode, on a Node: a Continuous gate taint restored (or, in a dry run, that would be). */
  NodeReadinessGateRestored: 'NodeReadinessGateRestored',
  /** everynode, on a Node: gated longer than a gating DaemonSet's timeoutSeconds. */
  NodeReadinessGateTimeout: 'NodeReadinessGateTimeout',
  /** everynode: a safe rollout's step is complete. */
  RolloutStepComplete: 'RolloutStepComplete',
  /** everynode: a safe rollout finished a topology domain. */
  RolloutDomainComplete: 'RolloutDomainComplete',
  /** everynode: the health rules halted a safe rollout. */
  RolloutHalted: 'RolloutHalted',
  /** everynode: a halted rollout was retried (kubectl everynode rollout retry). */
  RolloutRetried: 'RolloutRetried',
  /** everynode: a halted rollout put its updated nodes back on the stable revision. */
  RolloutReverted: 'RolloutReverted',
  /** everynode: a pod took a new revision's images (and labels) in place, without being recreated. */
  UpdatedInPlace: 'UpdatedInPlace',
  /** everynode: a pod's containers were resized in place to a new revision's resources. */
  Resized: 'Resized',
  /** everynode: the node cannot take a pod's in-place resize at all (Infeasible): the pod was recreated. */
  ResizeInfeasible: 'ResizeInfeasible',
  /** everynode: a pod's in-place resize stayed Deferred past its deadline: the pod was recreated. */
  ResizeDeferred: 'ResizeDeferred',
  /** A daemon pod the scheduler finds no room for on its node (upstream's, from before the scheduler placed daemon pods). */
  FailedPlacement: 'FailedPlacement',
} as const;

/** An event reason. */
export type EventReasonName = (typeof EventReason)[keyof typeof EventReason];

/** The component events are reported by (Event `source.component`, shown as FROM by kubectl). */
export const EVENT_COMPONENT = 'everynode';

/** Options of {@link EventRecorder}. */
export interface EventRecorderOptions {
  readonly kube: KubePort;
  readonly clock: () => Date;
  readonly logger: StructuredLogger;
  readonly filter?: EventSpamFilter;
  /** How long recorded events wait before they are written, unless flushed (default {@link EVENT_LINGER_MS}). */
  readonly lingerMs?: number;
}

/**
 * How long an event waits to be written: the writes a step makes (pod creates, deletes) reach the
 * API server first, and the events about them follow together, in the step's wake or at `flush()`.
 */
export const EVENT_LINGER_MS = 50;

let sequence = randomInt(1_000_000);

/**
 * The core/v1 Event about `ds` (lib/kube eventFor), its name made unique within the process: two
 * events in one millisecond would otherwise share upstream's `<name>.<hex nanoseconds>` name.
 */
export function daemonSetEvent(
  ds: Readonly<DaemonSet>,
  type: 'Normal' | 'Warning',
  reason: string,
  message: string,
  now: Date,
): CoreV1Event {
  const meta = ds.metadata ?? {};
  const event = eventFor({
    involvedObject: {
      apiVersion: ds.apiVersion ?? 'apps/v1',
      kind: ds.kind ?? 'DaemonSet',
      name: meta.name ?? '',
      namespace: meta.namespace ?? 'default',
      uid: meta.uid ?? '',
      resourceVersion: meta.resourceVersion ?? '',
    },
    type,
    reason,
    message,
    now,
    component: EVENT_COMPONENT,
  });
  return { ...event, metadata: { ...event.metadata, name: uniqueEventName(meta.name ?? '', now) } };
}

/** Upstream's `<object name>.<hex nanoseconds>` Event name, its nanoseconds made unique within the process. */
function uniqueEventName(objectName: string, now: Date): string {
  return eventName(objectName, BigInt(now.getTime()) * 1_000_000n + BigInt(sequence++ % 1_000_000));
}

/**
 * The core/v1 Event about `node`, as controllers record node events (the node lifecycle
 * controller's): the node's uid, no namespace in the reference, the Event itself in `default` (an
 * Event about a cluster-scoped object lives there); `kubectl describe node` shows it.
 */
export function nodeEvent(
  node: Readonly<V1Node>,
  type: 'Normal' | 'Warning',
  reason: string,
  message: string,
  now: Date,
): CoreV1Event {
  const name = node.metadata?.name ?? '';
  const event = eventFor({
    involvedObject: { apiVersion: 'v1', kind: 'Node', name, namespace: '', uid: node.metadata?.uid ?? name },
    type,
    reason,
    message,
    now,
    component: EVENT_COMPONENT,
  });
  return { ...event, metadata: { name: uniqueEventName(name, now), namespace: 'default' } };
}

/** A state an event reports once: recorded again only when `value` differs from the last one of `scope`. */
export interface ReportedOnce {
  readonly scope: string;
  readonly value: string;
}

/**
 * Records events about DaemonSets. Writing an event is best effort, as upstream's broadcaster: it
 * happens in the background after a short linger (a pod create does not wait for the event about
 * it, nor share the API server with it), a failed write is logged and dropped, and `flush()` writes
 * what lingers and waits for the writes in flight — the handler flushes before an invocation ends,
 * since a Lambda container is frozen between invocations.
 */
export class EventRecorder {
  readonly #options: EventRecorderOptions;
  readonly #filter: EventSpamFilter;
  readonly #pending = new Set<Promise<void>>();
  /** The last value each `once` scope was recorded with. */
  readonly #reported = new Lru<string>(4096);
  /** When each `warningNamed` scope was last recorded (ms since the epoch). */
  readonly #recorded = new Lru<number>(4096);
  #written = 0;
  /** Opens when the linger of the events waiting ends, or at `flush()`. */
  #gate: { readonly opened: Promise<void>; readonly open: () => void } | undefined;

  constructor(options: Readonly<EventRecorderOptions>) {
    this.#options = options;
    this.#filter = options.filter ?? new EventSpamFilter();
  }

  /** Records a Normal event in the background; false when the spam filter dropped it. */
  normal(ds: Readonly<DaemonSet>, reason: EventReasonName, message: string): boolean {
    return this.#record(ds, 'Normal', reason, message);
  }

  /** Records a Warning event in the background; false when the spam filter dropped it. */
  warning(ds: Readonly<DaemonSet>, reason: EventReasonName, message: string): boolean {
    return this.#record(ds, 'Warning', reason, message);
  }

  /**
   * Records an event about `node` in the background; false when it was dropped: by the spam filter,
   * or because `once` was last recorded with the same value by this process (a gate timing out, or
   * a dry run's verdict, is reported once however many node steps see it).
   */
  onNode(
    node: Readonly<V1Node>,
    type: 'Normal' | 'Warning',
    reason: EventReasonName,
    message: string,
    once?: ReportedOnce,
  ): boolean {
    if (once !== undefined && this.#reported.get(once.scope) === once.value) return false;
    const now = this.#options.clock();
    const meta = node.metadata ?? {};
    const key = ['', meta.name, meta.uid, 'v1/Node', reason].join('\u0000');
    if (!this.#filter.allow(key, now.getTime())) return false;
    if (once !== undefined) this.#reported.set(once.scope, once.value);
    this.#track(this.#write(nodeEvent(node, type, reason, message, now), `node ${meta.name}`));
    return true;
  }

  /**
   * Records a Warning about `ds` under the fixed name `<ds name>.<nanos in hex>`, unless this
   * process recorded `scope` less than `quietMs` ago; false when dropped (so, or by the spam filter).
   * A name the API server already holds (409: another process recorded it) is dropped quietly.
   */
  warningNamed(
    ds: Readonly<DaemonSet>,
    reason: EventReasonName,
    message: string,
    named: { readonly scope: string; readonly nanos: bigint; readonly quietMs: number },
  ): boolean {
    const now = this.#options.clock();
    const last = this.#recorded.get(named.scope);
    if (last !== undefined && now.getTime() - last < named.quietMs) return false;
    const meta = ds.metadata ?? {};
    const key = [meta.namespace, meta.name, meta.uid, ds.apiVersion, reason].join('\u0000');
    if (!this.#filter.allow(key, now.getTime())) return false;
    this.#recorded.set(named.scope, now.getTime());
    const event = daemonSetEvent(ds, 'Warning', reason, message, now);
    const name = eventName(meta.name ?? '', named.nanos);
    this.#track(
      this.#write({ ...event, metadata: { ...event.metadata, name } }, `${meta.namespace}/${meta.name}`),
    );
    return true;
  }

  /** Forgets what `scope` was last recorded with: its next event is recorded whatever its value. */
  forget(scope: string): void {
    this.#reported.delete(scope);
  }

  /** Resolves when every event recorded so far was written (or failed and was dropped). */
  async flush(): Promise<void> {
    this.#gate?.open();
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  /** Resolves when the events recorded so far may be written. */
  #lingered(): Promise<void> {
    if (this.#gate !== undefined) return this.#gate.opened;
    let release = () => {};
    const opened = new Promise<void>((resolve) => {
      release = resolve;
    });
    const timer = setTimeout(() => gate.open(), this.#options.lingerMs ?? EVENT_LINGER_MS);
    const gate = {
      opened,
      open: () => {
        clearTimeout(timer);
        if (this.#gate === gate) this.#gate = undefined;
        release();
      },
    };
    this.#gate = gate;
    return opened;
  }

  /** Events written and dropped by the spam filter, since the process started. */
  get counts(): { written: number; dropped: number } {
    return { written: this.#written, dropped: this.#filter.dropped };
  }

  #record(ds: Readonly<DaemonSet>, type: 'Normal' | 'Warning', reason: string, message: string): boolean {
    const now = this.#options.clock();
    const meta = ds.metadata ?? {};
    const key = [meta.namespace, meta.name, meta.uid, ds.apiVersion, reason].join('\u0000');
    if (!this.#filter.allow(key, now.getTime())) return false;
    this.#track(
      this.#write(daemonSetEvent(ds, type, reason, message, now), `${meta.namespace}/${meta.name}`),
    );
    return true;
  }

  #track(write: Promise<void>): void {
    this.#pending.add(write);
    void write.finally(() => this.#pending.delete(write));
  }

  /** Writes `event` about `about` (a DaemonSet's namespace/name, or `node <name>`) after the linger. */
  async #write(event: CoreV1Event, about: string): Promise<void> {
    await this.#lingered();
    try {
      await this.#options.kube.createEvent(event);
      this.#written++;
    } catch (error) {
      // An event in a namespace being torn down is lost with the namespace anyway; a fixed name
      // taken is the same event recorded already.
      const log =
        isNamespaceGone(error) || error instanceof AlreadyExistsError
          ? this.#options.logger.debug
          : this.#options.logger.warn;
      log.call(this.#options.logger, 'recording an event failed; dropping it', {
        reason: event.reason,
        about,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
