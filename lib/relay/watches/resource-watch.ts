/**
 * One resource's LIST+WATCH loop in the relay (the reflector pattern of client-go
 * tools/cache/reflector.go ListAndWatch): list to learn the state and a version, watch from that
 * version with bookmarks, resume from the last event or bookmark after the server ends a watch or
 * the connection drops, and relist after 410 Gone (the version left the server's history).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { targetNodeName } from '../../core/daemon-pod.ts';
import { DAEMONSET_UID_LABEL } from '../../core/daemon-set.ts';
import { GoneError } from '../../kube/errors/kube-api-errors.ts';
import type {
  KubePort,
  TriggeringResource,
  WatchEvent,
  WatchedObjects,
  WatchedResource,
} from '../../kube/kube-port.ts';
import type { ManagedKind } from '../../kube/managed-kind.ts';
import type { StructuredLogger } from '../../log/structured-logger.ts';
import { type ObjectEvent, RelayObjectCache } from '../cluster-view/facet-cache.ts';
import type { RelayNodeContext } from '../cluster-view/node-context.ts';
import { gateChangeOf, relistGateChange } from '../filters/gate-changes.ts';
import { rolloutsWatchingNode } from '../filters/health-signals.ts';
import { type PodEventMarks, podEventMarks } from '../filters/pod-event-marks.ts';
import { sizedDaemonSetsOnNode } from '../filters/sized-nodes.ts';
import type { StatusCoalescer } from '../filters/status-coalescer.ts';
import type { RelayPublisher } from '../output/publisher.ts';
import { resyncTriggerEvent, watchDetailOf, watchTriggerEvent } from '../output/trigger.ts';
import { listForSeeding } from './list-pages.ts';
import type { RelayStats } from './relay-stats.ts';

/** The KubePort methods the relay uses. */
export type RelayKube = Pick<
  KubePort,
  'listNodes' | 'listPods' | 'listDaemonSets' | 'listControllerRevisions' | 'watch' | 'getClusterIdentity'
>;

/**
 * Label selector of the pods the relay watches: those everynode created or adopted (they carry the
 * DaemonSet uid label). The pods a DaemonSet could adopt have watches of their own
 * (`orphan-watches.ts`).
 */
export const WATCHED_POD_SELECTOR = DAEMONSET_UID_LABEL;

/** Consecutive failed watches after which the relay relists instead of resuming. */
export const MAX_WATCH_FAILURES = 5;

/** The wait before the next try after `failures` failed watches in a row: 200 ms doubling to 5 s. */
export function watchRetryDelayMs(failures: number): number {
  return Math.min(5_000, 100 * 2 ** failures);
}

/** What follows the relay's view as the watches take it in: each LIST and each event. */
export interface ViewFollower {
  seeded<R extends WatchedResource>(resource: R, objects: readonly Readonly<WatchedObjects[R]>[]): void;
  observed<R extends WatchedResource>(resource: R, event: Readonly<ObjectEvent<WatchedObjects[R]>>): void;
}

/** Options of {@link watchResource}. */
export interface ResourceWatchOptions<R extends WatchedResource> {
  readonly kube: RelayKube;
  readonly resource: R;
  readonly managedKind: ManagedKind;
  /** The checkpointed version to resume from; undefined to start from a fresh LIST. */
  readonly resumeFrom: string | undefined;
  readonly publisher: RelayPublisher;
  readonly logger: StructuredLogger;
  readonly signal: AbortSignal;
  readonly stats: RelayStats;
  /** Coalesces status-only pod changes (pods only); none: every change is forwarded. */
  readonly coalescer?: StatusCoalescer;
  /** Shared by the relay's watches: every event feeds it; node and pod events take their hints from it. */
  readonly context?: RelayNodeContext;
  /**
   * Follow what the context follows: the gate-wait timers (`filters/gate-wait.ts`), the orphan
   * watches of the managed DaemonSets (`orphan-watches.ts`).
   */
  readonly followers?: readonly ViewFollower[];
  readonly clock?: () => Date;
  /** Server-side watch timeout (default 300 s); the loop then resumes from its position. */
  readonly watchTimeoutSeconds?: number;
}

/**
 * The LIST+WATCH loop of one resource. `start()` makes the first LIST (so an unreachable cluster
 * fails the relay's start); `run()` then watches until `options.signal` aborts, feeding decision-
 * relevant events to the publisher and moving the resource's position on every event and bookmark.
 * With `resumeFrom` the first LIST only teaches the cache each object's current facets and the watch
 * starts at the checkpoint, so the changes made while no relay watched are replayed; without it the
 * watch starts at the LIST. After 410 Gone it relists, watches from the new list, and publishes a
 * resync trigger: the changes between the lost version and the list are unknown.
 *
 * ControllerRevisions only feed the relay's context (the revision hashes of its hints): their
 * events are no triggers, a relist of them asks for no resync, and they are not checkpointed.
 */
export class ResourceWatch<R extends WatchedResource> {
  /** The facets of each object, for a resource whose changes become triggers. */
  private readonly cache: RelayObjectCache<TriggeringResource> | undefined;
  private position = '';
  private listedAt = '';

  constructor(private readonly options: Readonly<ResourceWatchOptions<R>>) {
    this.cache = isTriggering(options.resource) ? new RelayObjectCache(options.resource) : undefined;
  }

  /** The resource watched. */
  get resource(): R {
    return this.options.resource;
  }

  /** Where the watch starts: the checkpoint, or the first LIST's version (after `start()`). */
  get startPosition(): string {
    return this.options.resumeFrom ?? this.listedAt;
  }

  /** The first LIST; rejects when the resource cannot be listed. */
  async start(): Promise<void> {
    this.listedAt = await relist(this.options, this.cache, undefined);
    this.position = this.startPosition;
  }

  /**
   * Watches until the signal aborts; failures are retried with backoff, never thrown. After 410 Gone,
   * or after {@link MAX_WATCH_FAILURES} watches in a row failed from the same position (a version
   * the server cannot serve, such as one from another cluster), it relists and asks for a resync
   * rather than retrying a position that may never work.
   */
  async run(): Promise<void> {
    const options = this.options;
    let failures = 0;
    let relistReason: string | undefined;
    while (!options.signal.aborted) {
      try {
        if (relistReason !== undefined) {
          this.position = await relist(options, this.cache, relistReason);
          relistReason = undefined;
          failures = 0;
        }
        for await (const event of options.kube.watch(options.resource, this.watchOptions())) {
          this.position = handle(options, this.cache, event);
          failures = 0;
        }
      } catch (error) {
        if (options.signal.aborted) return;
        failures++;
        if (error instanceof GoneError && relistReason === undefined) {
          relistReason = '410 Gone';
          continue;
        }
        if (failures >= MAX_WATCH_FAILURES)
          relistReason ??= `${failures} failed watches from ${this.position}`;
        options.logger.warn(`watching ${options.resource} failed; retrying from ${this.position}`, {
          error: String(error),
        });
        await sleep(watchRetryDelayMs(failures), undefined, { signal: options.signal }).catch(
          () => undefined,
        );
      }
    }
  }

  private watchOptions() {
    return {
      resourceVersion: this.position,
      ...(this.options.resource === 'pods' ? { labelSelector: WATCHED_POD_SELECTOR } : {}),
      timeoutSeconds: this.options.watchTimeoutSeconds ?? 300,
      signal: this.options.signal,
    };
  }
}

/** The marks of an event that is not a forwarded pod event. */
const UNMARKED: PodEventMarks = {
  gatesNode: false,
  rolloutSlot: false,
  settles: false,
  healthSignal: false,
  coalesced: false,
};

/** True when changes of `resource` become triggers (see {@link TriggeringResource}). */
const isTriggering = (resource: WatchedResource): resource is TriggeringResource =>
  resource !== 'controllerrevisions';

/**
 * Feeds one event to the context, the cache and the publisher (the context only, without a cache);
 * returns the new position.
 */
function handle<R extends WatchedResource>(
  options: Readonly<ResourceWatchOptions<R>>,
  cache: RelayObjectCache<TriggeringResource> | undefined,
  event: WatchEvent<WatchedObjects[R]>,
): string {
  const objectEvent = event.type === 'BOOKMARK' ? undefined : (event as ObjectEvent<WatchedObjects[R]>);
  const gateChange = gateChangeOf(options.context, options.resource, objectEvent);
  if (objectEvent) options.context?.observe(options.resource, objectEvent);
  for (const follower of objectEvent ? (options.followers ?? []) : [])
    follower.observed(options.resource, objectEvent as ObjectEvent<WatchedObjects[R]>);
  if (cache === undefined || !isTriggering(options.resource)) return event.resourceVersion;
  if (objectEvent === undefined) {
    options.publisher.add(undefined, options.resource, event.resourceVersion);
    return event.resourceVersion;
  }
  const verdict = cache.observe(objectEvent as ObjectEvent<WatchedObjects[TriggeringResource]>);
  const at = now(options);
  const pod = options.resource === 'pods' ? (objectEvent.object as V1Pod) : undefined;
  const { gatesNode, rolloutSlot, settles, healthSignal, coalesced } =
    verdict.forward && pod !== undefined
      ? podEventMarks(options.context, options.coalescer, objectEvent.type, verdict.changes, pod, at)
      : UNMARKED;
  if (!verdict.forward || coalesced) {
    options.stats[coalesced ? 'coalesced' : 'dropped']++;
    options.publisher.add(undefined, options.resource, event.resourceVersion);
    return event.resourceVersion;
  }
  options.stats.forwarded++;
  if (gatesNode) options.stats.gating = (options.stats.gating ?? 0) + 1;
  const detail = watchDetailOf(options.resource, objectEvent, verdict.changes, options.managedKind, {
    ...hintsOf(options, objectEvent, verdict.changes, at, gatesNode),
    gatesNode,
    rolloutSlot,
    settles,
    healthSignal,
    gateChange,
  });
  // A gate waits for this one: no lingering for company (docs/design.md, 26. Node readiness gates).
  options.publisher.add(watchTriggerEvent(detail, at), options.resource, event.resourceVersion, gatesNode);
  return event.resourceVersion;
}

/**
 * The relay's hints for a forwarded event: a node's (unless deleted) with the safe rollouts its
 * change may break (`filters/health-signals.ts`) and the DaemonSets whose pods it sizes whose size
 * it may change (`filters/sized-nodes.ts`), a pod's pair's, and for a pod that gates its node
 * also that node's, for the `node` message the router adds.
 */
function hintsOf<R extends WatchedResource>(
  options: Readonly<ResourceWatchOptions<R>>,
  event: Readonly<ObjectEvent<WatchedObjects[R]>>,
  changes: readonly string[],
  at: Date,
  gatesNode: boolean,
) {
  const context = options.context;
  if (context === undefined) return {};
  if (options.resource === 'nodes') {
    // A forwarded node change can move a placement: node LISTs older than it are not planned on.
    context.noteNodeChange(event.resourceVersion);
    const object = event.object as V1Node;
    const node = event.type === 'DELETED' ? undefined : context.hintsFor(object, at);
    const rollouts = rolloutsWatchingNode(context, event.type, changes, object);
    // A change of the node's size reaches the steps of the DaemonSets sizing their pods there.
    const sized = sizedDaemonSetsOnNode(context, event.type, changes, object, rollouts);
    return { ...(node ? { node } : {}), rollouts: [...rollouts, ...sized] };
  }
  const nodesVersion = context.nodesVersion;
  if (options.resource === 'pods') {
    const pod = event.object as V1Pod;
    const pair = context.pairHintsFor(pod, at, event.resourceVersion);
    const nodeName = gatesNode ? targetNodeName(pod) : undefined;
    const node = nodeName === undefined ? undefined : context.nodeHintsFor(nodeName, at);
    return { ...(pair ? { pair } : {}), ...(node ? { node } : {}), nodesVersion };
  }
  return { nodesVersion };
}

/**
 * Lists the resource into the cache; returns the list's version. With a `reason` (a relist),
 * publishes a resync trigger positioned at that version, with the gate changes the list shows.
 */
async function relist<R extends WatchedResource>(
  options: Readonly<ResourceWatchOptions<R>>,
  cache: RelayObjectCache<TriggeringResource> | undefined,
  reason: string | undefined,
): Promise<string> {
  const { kube, resource, context } = options;
  const list = await listForSeeding(kube, resource, WATCHED_POD_SELECTOR, cache, context);
  const gateChange = relistGateChange(context, resource, list.kept);
  list.commit();
  if (resource === 'nodes') context?.noteNodeChange(list.resourceVersion);
  for (const follower of options.followers ?? []) follower.seeded(resource, list.kept);
  if (reason !== undefined && isTriggering(options.resource)) {
    options.stats.relists++;
    options.logger.info(`relisted ${options.resource} after ${reason}; asking for a resync`, {
      objects: list.count,
      resourceVersion: list.resourceVersion,
    });
    const why = `relay relisted ${options.resource} after ${reason}`;
    const event = resyncTriggerEvent(why, now(options), gateChange);
    options.publisher.add(event, options.resource, list.resourceVersion);
  }
  return list.resourceVersion;
}

const now = (options: Readonly<{ clock?: () => Date }>): Date => options.clock?.() ?? new Date();
