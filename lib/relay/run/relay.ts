/**
 * The relay (docs/design.md, 7. The relay): LIST+WATCH of nodes, everynode's pods and the managed
 * DaemonSets, forwarding every decision-relevant change to the trigger bus in batches, and
 * checkpointing how far it got so that the next relay (a restart, the next scheduled run on AWS)
 * resumes there; and of ControllerRevisions, for the revision hashes its hints carry.
 */
import type { ClusterIdentity, TriggeringResource, WatchedResource } from '../../kube/kube-port.ts';
import type { ManagedKind } from '../../kube/managed-kind.ts';
import type { StructuredLogger } from '../../log/structured-logger.ts';
import { type BusEvent, type EventBus, MAX_BUS_EVENT_BYTES } from '../../queue/event-bus.ts';
import { RelayNodeContext } from '../cluster-view/node-context.ts';
import { GateWaitTimers } from '../filters/gate-wait.ts';
import { StatusCoalescer } from '../filters/status-coalescer.ts';
import { RelayPublisher, type WatchPositions } from '../output/publisher.ts';
import { resyncTriggerEvent } from '../output/trigger.ts';
import { OrphanWatches } from '../watches/orphan-watches.ts';
import type { RelayStats } from '../watches/relay-stats.ts';
import { type RelayKube, ResourceWatch } from '../watches/resource-watch.ts';
import type { RelayCheckpointStore } from './checkpoint.ts';
import { planResume, type ResumePlan } from './resume.ts';

/** The resources whose changes the relay forwards as triggers (and checkpoints). */
export const RELAYED_RESOURCES: readonly TriggeringResource[] = ['nodes', 'pods', 'daemonsets'];

/**
 * The resources the relay watches for its hints only: ControllerRevisions, whose current one per
 * DaemonSet names the revision hash of its new pods. Listed afresh at every start, not checkpointed.
 */
export const HINT_RESOURCES: readonly WatchedResource[] = ['controllerrevisions'];

/** Options of {@link startRelay}. */
export interface RelayOptions {
  readonly kube: RelayKube;
  readonly managedKind: ManagedKind;
  readonly bus: EventBus;
  readonly checkpoints: RelayCheckpointStore;
  readonly logger: StructuredLogger;
  readonly clock?: () => Date;
  /** How often the checkpoint is written when it moved (default 1 s; SSM allows a few writes/s). */
  readonly checkpointEveryMs?: number;
  /** How long a batch waits for more triggers (default 5 ms). */
  readonly lingerMs?: number;
  /** Server-side watch timeout (default 300 s). */
  readonly watchTimeoutSeconds?: number;
  /** Coalesce status-only pod changes per DaemonSet and window (default true; see `StatusCoalescer`). */
  readonly coalesceStatus?: boolean;
}

/** A running relay. */
export interface Relay {
  /** Events forwarded and dropped, relists. */
  readonly stats: Readonly<RelayStats>;
  /** Triggers the bus accepted. */
  readonly published: number;
  /** Settles when the relay stops: rejects when publishing failed (its checkpoint stays behind). */
  readonly done: Promise<void>;
  /** Stops watching, publishes what is queued and writes the final checkpoint. */
  stop(): Promise<void>;
}

/**
 * The identity of the cluster (one GET, recorded in every checkpoint written) and where each
 * resource resumes: only from a checkpoint of this cluster, at versions it has reached.
 */
async function resumeFor(
  options: Readonly<RelayOptions>,
): Promise<{ identity: ClusterIdentity; plan: ResumePlan }> {
  const [checkpoint, identity] = await Promise.all([
    options.checkpoints.load(),
    options.kube.getClusterIdentity(),
  ]);
  const { kube, managedKind, logger } = options;
  return { identity, plan: await planResume({ kube, managedKind, logger, checkpoint, identity }) };
}

/**
 * The resync request of a start where some resources have no usable checkpointed version (what
 * changed before their LIST is unknown), saying why; undefined when every resource resumes.
 */
function startResync(plan: Readonly<ResumePlan>, clock: () => Date): BusEvent | undefined {
  const cold = RELAYED_RESOURCES.filter((resource) => plan.resumeFrom[resource] === undefined);
  if (cold.length === 0) return undefined;
  const why = plan.why === undefined ? '' : `: ${plan.why}`;
  return resyncTriggerEvent(`relay started without a checkpoint for ${cold.join(', ')}${why}`, clock());
}

/**
 * The options every resource's watch shares, with the context they feed, the gate-wait timers
 * that follow it (cleared when `signal` aborts) and the orphan watches that follow the DaemonSets.
 */
function sharedWatchOptions(
  options: Readonly<RelayOptions>,
  publisher: RelayPublisher,
  stats: RelayStats,
  signal: AbortSignal,
  clock: () => Date,
) {
  const context = new RelayNodeContext();
  const { logger } = options;
  const timeouts = options.watchTimeoutSeconds ? { watchTimeoutSeconds: options.watchTimeoutSeconds } : {};
  const { kube, managedKind } = options;
  const orphans = new OrphanWatches({
    kube,
    managedKind,
    publisher,
    logger,
    signal,
    stats,
    clock,
    ...timeouts,
  });
  return {
    kube: options.kube,
    managedKind: options.managedKind,
    publisher,
    logger: options.logger,
    signal,
    stats,
    clock,
    ...(options.coalesceStatus === false ? {} : { coalescer: new StatusCoalescer() }),
    context,
    followers: [new GateWaitTimers({ context, publisher, clock, signal, logger }), orphans],
    orphans,
    ...timeouts,
  };
}

/**
 * Starts the relay: loads the checkpoint and checks it is of this cluster and its versions reached
 * (`run/resume.ts`), makes the first LIST of every resource (rejecting when the cluster cannot
 * be listed), and watches. A resource without a usable checkpointed version starts from its LIST,
 * and then one resync trigger is published: what changed before that LIST is unknown.
 */
export async function startRelay(options: Readonly<RelayOptions>): Promise<Relay> {
  const clock = options.clock ?? (() => new Date());
  const { identity, plan } = await resumeFor(options);
  const controller = new AbortController();
  // A checkpointed version the cluster has not reached is relisted, as after a 410 Gone.
  const stats: RelayStats = {
    forwarded: 0,
    dropped: 0,
    coalesced: 0,
    gating: 0,
    relists: plan.relisted.length,
  };
  let published = 0;
  const publisher = new RelayPublisher({
    bus: options.bus,
    lingerMs: options.lingerMs ?? 5,
    onPublished: (count) => {
      published += count;
    },
    onRetry: (error, attempt) =>
      options.logger.warn(`publishing triggers failed (attempt ${attempt}); retrying`, {
        error: String(error),
      }),
    // Never published, and never a reason to stop: its steps read for themselves at the next resync.
    onSkipped: (object, bytes) =>
      options.logger.error('skipped a trigger too large for the bus', {
        ...object,
        bytes,
        limit: MAX_BUS_EVENT_BYTES,
      }),
  });
  const { orphans, ...watchOptions } = sharedWatchOptions(
    options,
    publisher,
    stats,
    controller.signal,
    clock,
  );
  const watches = RELAYED_RESOURCES.map(
    (resource) => new ResourceWatch({ ...watchOptions, resource, resumeFrom: plan.resumeFrom[resource] }),
  );
  const hintWatches = HINT_RESOURCES.map(
    (resource) => new ResourceWatch({ ...watchOptions, resource, resumeFrom: undefined }),
  );
  await Promise.all([...watches, ...hintWatches].map((watch) => watch.start()));
  publisher.add(startResync(plan, clock));
  // The start positions, published with the resync above: a checkpoint never drops a resource.
  for (const watch of watches) publisher.add(undefined, watch.resource, watch.startPosition);
  const checkpointer = new Checkpointer(options, publisher, identity);
  const running = Promise.all([
    ...[...watches, ...hintWatches].map((watch) => watch.run()),
    orphans.settled(),
  ]);
  const done = superviseRelay(running, publisher, checkpointer, controller, options);
  done.catch(() => undefined);
  return {
    stats,
    get published() {
      return published;
    },
    done,
    stop: async () => {
      controller.abort();
      await done;
    },
  };
}

/** Runs until aborted or until publishing fails; then flushes and checkpoints what was published. */
async function superviseRelay(
  running: Promise<unknown>,
  publisher: RelayPublisher,
  checkpointer: Checkpointer,
  controller: AbortController,
  options: Readonly<RelayOptions>,
): Promise<void> {
  const save = () =>
    checkpointer
      .save()
      .catch((error) => options.logger.warn('writing the relay checkpoint failed', { error: String(error) }));
  // A heartbeat store is written at once: a successor takes the lease as soon as it watches.
  if (options.checkpoints.heartbeat) save();
  const timer = setInterval(() => {
    if (publisher.failure !== undefined) controller.abort();
    else save();
  }, options.checkpointEveryMs ?? 1_000);
  try {
    await running;
    await publisher.flush();
  } finally {
    clearInterval(timer);
    await checkpointer.save();
  }
}

/** Writes the checkpoint when the safely published positions moved, one write at a time. */
class Checkpointer {
  private saved: WatchPositions = {};
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly options: Readonly<RelayOptions>,
    private readonly publisher: RelayPublisher,
    private readonly cluster: ClusterIdentity,
  ) {}

  save(): Promise<void> {
    this.writing = this.writing.catch(() => undefined).then(() => this.write());
    return this.writing;
  }

  private async write(): Promise<void> {
    const positions = this.publisher.positions;
    const unmoved = RELAYED_RESOURCES.every((r) => positions[r] === this.saved[r]);
    if (unmoved && !this.options.checkpoints.heartbeat) return;
    await this.options.checkpoints.save({
      managedKind: this.options.managedKind,
      resourceVersions: { ...positions },
      cluster: this.cluster,
      savedAt: (this.options.clock?.() ?? new Date()).toISOString(),
    });
    this.saved = positions;
  }
}
