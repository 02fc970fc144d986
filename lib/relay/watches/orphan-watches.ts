/**
 * The relay's watches of the pods a managed DaemonSet could adopt (docs/design.md, 7. The relay):
 * for each managed DaemonSet, the pods of its namespace that match its selector and carry no
 * everynode DaemonSet uid label (`<selector>,!everynode.dev/daemonset-uid`), which is normally
 * none. A pod there without a controller — made by hand, or by a tool that meant it for the
 * DaemonSet — is forwarded once per node it targets, naming the DaemonSet, so its pair step adopts
 * it and deletes it if it is extra, as upstream's addPod enqueues the DaemonSets matching an
 * orphan. Adopting it gives it the uid label, which takes it out of the watch.
 *
 * Each watch LISTs from the API server's watch cache (`resourceVersion=0`: the answer is small)
 * and watches from there; it is not checkpointed. A relay start lists again, so an orphan made
 * while no relay watched is forwarded then.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { V1Pod } from '@kubernetes/client-node';
import { controllerOf } from '../../core/controller-ref.ts';
import { targetNodeName } from '../../core/daemon-pod.ts';
import { DAEMONSET_UID_LABEL, type DaemonSet } from '../../core/daemon-set.ts';
import {
  isEmptyLabelSelector,
  labelSelectorQuery,
  labelSelectorViolations,
} from '../../core/label-selector.ts';
import { GoneError } from '../../kube/errors/kube-api-errors.ts';
import type { WatchEvent, WatchedObjects, WatchedResource } from '../../kube/kube-port.ts';
import type { ManagedKind } from '../../kube/managed-kind.ts';
import type { StructuredLogger } from '../../log/structured-logger.ts';
import type { ObjectEvent } from '../cluster-view/facet-cache.ts';
import type { RelayPublisher } from '../output/publisher.ts';
import { watchDetailOf, watchTriggerEvent } from '../output/trigger.ts';
import type { RelayStats } from './relay-stats.ts';
import { MAX_WATCH_FAILURES, type RelayKube, watchRetryDelayMs } from './resource-watch.ts';

/** Options of {@link OrphanWatches}. */
export interface OrphanWatchesOptions {
  readonly kube: Pick<RelayKube, 'listPods' | 'watch'>;
  readonly managedKind: ManagedKind;
  readonly publisher: Pick<RelayPublisher, 'add'>;
  readonly logger: StructuredLogger;
  readonly signal: AbortSignal;
  readonly stats: RelayStats;
  readonly clock?: () => Date;
  /** Server-side watch timeout (default 300 s); the loop then resumes from its position. */
  readonly watchTimeoutSeconds?: number;
}

/** One DaemonSet's watch: what it selects, and how to stop it. */
interface OrphanWatch {
  readonly labelSelector: string;
  readonly stop: AbortController;
  readonly done: Promise<void>;
}

/**
 * The `labelSelector` of the pods `ds` could adopt that everynode does not follow already, or
 * undefined when it adopts none: being deleted, or without a selector, an empty one (upstream
 * claims nothing then) or an invalid one (the DaemonSet step reports it).
 */
export function orphanSelectorOf(ds: Readonly<DaemonSet>): string | undefined {
  const selector = ds.spec?.selector;
  if (ds.metadata?.deletionTimestamp || selector === undefined || isEmptyLabelSelector(selector))
    return undefined;
  if (labelSelectorViolations(selector, 'spec.selector').length > 0) return undefined;
  return `${labelSelectorQuery(selector)},!${DAEMONSET_UID_LABEL}`;
}

/**
 * The orphan watches of the managed DaemonSets, following the relay's DaemonSet LISTs (`seeded`)
 * and events (`observed`) as they come.
 */
export class OrphanWatches {
  readonly #watches = new Map<string, OrphanWatch>();

  constructor(private readonly options: Readonly<OrphanWatchesOptions>) {}

  /** Follows a LIST of `resource`: the DaemonSets listed are every managed DaemonSet there is. */
  seeded<R extends WatchedResource>(resource: R, objects: readonly Readonly<WatchedObjects[R]>[]): void {
    if (resource !== 'daemonsets') return;
    const listed = new Set<string>();
    for (const ds of objects as readonly DaemonSet[]) {
      listed.add(ds.metadata?.uid ?? '');
      this.#follow(ds);
    }
    for (const uid of [...this.#watches.keys()]) if (!listed.has(uid)) this.#drop(uid);
  }

  /** Follows one watch event of `resource`. */
  observed<R extends WatchedResource>(resource: R, event: Readonly<ObjectEvent<WatchedObjects[R]>>): void {
    if (resource !== 'daemonsets') return;
    const ds = event.object as DaemonSet;
    if (event.type === 'DELETED') this.#drop(ds.metadata?.uid ?? '');
    else this.#follow(ds);
  }

  /** Settles once the signal aborted and every watch stopped. */
  async settled(): Promise<void> {
    const { signal } = this.options;
    if (!signal.aborted)
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    await Promise.all([...this.#watches.values()].map((watch) => watch.done));
  }

  /** Starts, keeps or stops the watch of `ds`, as it is now. */
  #follow(ds: Readonly<DaemonSet>): void {
    const uid = ds.metadata?.uid ?? '';
    const labelSelector = orphanSelectorOf(ds);
    const current = this.#watches.get(uid);
    if (current?.labelSelector === labelSelector) return;
    this.#drop(uid);
    if (labelSelector === undefined || uid === '' || this.options.signal.aborted) return;
    const stop = new AbortController();
    const target = {
      namespace: ds.metadata?.namespace ?? 'default',
      name: ds.metadata?.name ?? '',
      uid,
      labelSelector,
    };
    const signal = AbortSignal.any([this.options.signal, stop.signal]);
    const done = followOrphans(this.options, target, signal);
    this.#watches.set(uid, { labelSelector, stop, done });
  }

  #drop(uid: string): void {
    const watch = this.#watches.get(uid);
    if (watch === undefined) return;
    watch.stop.abort();
    this.#watches.delete(uid);
  }
}

/** The DaemonSet an orphan watch is for, and what it selects. */
interface OrphanTarget {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly labelSelector: string;
}

/**
 * LIST+WATCH of one DaemonSet's orphan selection until `signal` aborts: resumes from its position
 * after the server ends a watch, relists after 410 Gone or {@link MAX_WATCH_FAILURES} failures in
 * a row, and retries any failure with backoff, never throwing.
 */
async function followOrphans(
  options: Readonly<OrphanWatchesOptions>,
  target: Readonly<OrphanTarget>,
  signal: AbortSignal,
): Promise<void> {
  const { kube, logger } = options;
  const { namespace, labelSelector } = target;
  /** What was last seen of each selected pod: `orphan:<node>` or `owned`. */
  const seen = new Map<string, string>();
  let position: string | undefined;
  let failures = 0;
  while (!signal.aborted) {
    try {
      if (position === undefined) {
        const list = await kube.listPods({ namespace, labelSelector, allowStale: true });
        const listed = new Set(list.items.map((pod) => pod.metadata?.uid ?? ''));
        for (const uid of [...seen.keys()]) if (!listed.has(uid)) seen.delete(uid);
        if (signal.aborted) return;
        for (const pod of list.items) consider(options, target, seen, 'ADDED', pod);
        position = list.resourceVersion;
      }
      const watchOptions = {
        resourceVersion: position,
        namespace,
        labelSelector,
        timeoutSeconds: options.watchTimeoutSeconds ?? 300,
        signal,
      };
      for await (const event of kube.watch('pods', watchOptions) as AsyncIterable<WatchEvent<V1Pod>>) {
        if (signal.aborted) return;
        position = event.resourceVersion;
        failures = 0;
        if (event.type !== 'BOOKMARK') consider(options, target, seen, event.type, event.object);
      }
    } catch (error) {
      if (signal.aborted) return;
      failures++;
      if (error instanceof GoneError || failures >= MAX_WATCH_FAILURES) position = undefined;
      logger.warn(
        `watching the pods DaemonSet ${target.namespace}/${target.name} could adopt failed; retrying`,
        {
          error: String(error),
          labelSelector,
        },
      );
      await sleep(watchRetryDelayMs(failures), undefined, { signal }).catch(() => undefined);
    }
  }
}

/**
 * Forwards `pod` when it is an orphan the target may adopt (no controller, not being deleted) that
 * was not already forwarded for the node it targets; forgets it when it is deleted.
 */
function consider(
  options: Readonly<OrphanWatchesOptions>,
  target: Readonly<OrphanTarget>,
  seen: Map<string, string>,
  type: 'ADDED' | 'MODIFIED' | 'DELETED',
  pod: Readonly<V1Pod>,
): void {
  const uid = pod.metadata?.uid ?? '';
  if (type === 'DELETED') {
    seen.delete(uid);
    return;
  }
  const orphan = controllerOf(pod) === undefined && !pod.metadata?.deletionTimestamp;
  const nodeName = targetNodeName(pod);
  const mark = orphan ? `orphan:${nodeName ?? ''}` : 'owned';
  const before = seen.get(uid);
  seen.set(uid, mark);
  if (!orphan || before === mark) return;
  const resourceVersion = pod.metadata?.resourceVersion ?? '';
  const adoptableBy = { name: target.name, uid: target.uid };
  const event = { type, object: pod as V1Pod, resourceVersion };
  const detail = watchDetailOf('pods', event, [], options.managedKind, { adoptableBy });
  const now = options.clock?.() ?? new Date();
  options.stats.orphans = (options.stats.orphans ?? 0) + 1;
  options.logger.info('forwarding an orphan pod a managed DaemonSet may adopt', {
    pod: `${pod.metadata?.namespace}/${pod.metadata?.name}`,
    daemonSet: `${target.namespace}/${target.name}`,
    node: nodeName ?? '',
  });
  options.publisher.add(watchTriggerEvent(detail, now));
}
