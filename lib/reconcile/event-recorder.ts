/**
 * Kubernetes Events about DaemonSets, with upstream reasons and messages
 * (pkg/controller/controller_utils.go, pkg/controller/daemon/daemon_controller.go) and the
 * client-go spam filter, so a large rollout writes a handful of events, not one per pod.
 */
import { randomInt } from 'node:crypto';
import type { CoreV1Event } from '@kubernetes/client-node';
import type { DaemonSet } from '../core/daemon-set.ts';
import { eventFor, eventName } from '../kube/event-for.ts';
import type { KubePort } from '../kube/kube-port.ts';
import { isNamespaceGone } from '../kube/namespace-gone.ts';
import type { StructuredLogger } from '../log/structured-logger.ts';
import { EventSpamFilter } from './event-spam-filter.ts';

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
  const nanos = BigInt(now.getTime()) * 1_000_000n + BigInt(sequence++ % 1_000_000);
  return { ...event, metadata: { ...event.metadata, name: eventName(meta.name ?? '', nanos) } };
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
    const write = this.#write(
      daemonSetEvent(ds, type, reason, message, now),
      `${meta.namespace}/${meta.name}`,
    );
    this.#pending.add(write);
    void write.finally(() => this.#pending.delete(write));
    return true;
  }

  async #write(event: CoreV1Event, daemonSet: string): Promise<void> {
    await this.#lingered();
    try {
      await this.#options.kube.createEvent(event);
      this.#written++;
    } catch (error) {
      // An event in a namespace being torn down is lost with the namespace anyway.
      const log = isNamespaceGone(error) ? this.#options.logger.debug : this.#options.logger.warn;
      log.call(this.#options.logger, 'recording an event failed; dropping it', {
        reason: event.reason,
        daemonSet,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
