/**
 * Kubernetes Events about DaemonSets, with upstream reasons and messages
 * (pkg/controller/controller_utils.go, pkg/controller/daemon/daemon_controller.go) and the
 * client-go spam filter, so a large rollout writes a handful of events, not one per pod.
 */
import { randomInt } from 'node:crypto';
import type { CoreV1Event } from '@kubernetes/client-node';
import type { DaemonSet } from '../core/daemon-set.ts';
import { eventFor } from '../kube/event-for.ts';
import type { KubePort } from '../kube/kube-port.ts';
import { EventSpamFilter } from './event-spam-filter.ts';
import type { PipelineLogger } from './pipeline-deps.ts';

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
  readonly logger: PipelineLogger;
  readonly filter?: EventSpamFilter;
}

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
  return { ...event, metadata: { ...event.metadata, name: `${meta.name ?? ''}.${nanos.toString(16)}` } };
}

/**
 * Records events about DaemonSets. Writing an event is best effort, as upstream's broadcaster:
 * a failed write is logged and dropped, never failing the reconcile.
 */
export class EventRecorder {
  readonly #options: EventRecorderOptions;
  readonly #filter: EventSpamFilter;
  #written = 0;

  constructor(options: Readonly<EventRecorderOptions>) {
    this.#options = options;
    this.#filter = options.filter ?? new EventSpamFilter();
  }

  /** Records a Normal event; resolves true when it was written, false when filtered or failed. */
  normal(ds: Readonly<DaemonSet>, reason: EventReasonName, message: string): Promise<boolean> {
    return this.#record(ds, 'Normal', reason, message);
  }

  /** Records a Warning event; resolves true when it was written, false when filtered or failed. */
  warning(ds: Readonly<DaemonSet>, reason: EventReasonName, message: string): Promise<boolean> {
    return this.#record(ds, 'Warning', reason, message);
  }

  /** Events written and dropped by the spam filter, since the process started. */
  get counts(): { written: number; dropped: number } {
    return { written: this.#written, dropped: this.#filter.dropped };
  }

  async #record(ds: Readonly<DaemonSet>, type: 'Normal' | 'Warning', reason: string, message: string) {
    const now = this.#options.clock();
    const meta = ds.metadata ?? {};
    const key = [meta.namespace, meta.name, meta.uid, ds.apiVersion, reason].join('\u0000');
    if (!this.#filter.allow(key, now.getTime())) return false;
    try {
      await this.#options.kube.createEvent(daemonSetEvent(ds, type, reason, message, now));
      this.#written++;
      return true;
    } catch (error) {
      this.#options.logger.warn('recording an event failed; dropping it', {
        reason,
        daemonSet: `${meta.namespace}/${meta.name}`,
        error: error instanceof Error ? error.message : String(error),
      });
      return false;
    }
  }
}
