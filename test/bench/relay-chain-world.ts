/**
 * What the runs of `npm run bench -- relay-chain` share, decorated so the bench can see what
 * happened: the trigger bus noting when each node's watch trigger was first accepted, and the
 * checkpoint record (the SSM parameter on AWS, a file here) keeping every version written. And how
 * one run is made to crash: from a moment on, nothing it does reaches the bus or the record.
 */
import type { BusEvent, EventBus } from '../../lib/queue/event-bus.ts';
import type { RelayCheckpoint, RelayCheckpointStore } from '../../lib/relay/run/checkpoint.ts';
import type { ResourceVersions } from '../../lib/relay/run/handover.ts';

/** The bus of the local pipeline, noting when each node's watch trigger was first accepted. */
export class TimedBus implements EventBus {
  /** Node name → epoch ms when the bus first accepted a watch trigger about it. */
  readonly nodeSeenAt = new Map<string, number>();

  constructor(private readonly bus: EventBus) {}

  async publish(events: readonly BusEvent[]): Promise<void> {
    await this.bus.publish(events);
    const at = Date.now();
    for (const event of events) {
      const { kind, name } = event.detail as { kind?: unknown; name?: unknown };
      if (kind === 'Node' && typeof name === 'string' && !this.nodeSeenAt.has(name))
        this.nodeSeenAt.set(name, at);
    }
  }
}

/** The shared checkpoint record, keeping the versions of every write and counting the calls. */
export class RecordedStore implements RelayCheckpointStore {
  /** The resourceVersions of every write, in order. */
  readonly written: ResourceVersions[] = [];
  loads = 0;
  private firstWrite: (() => void) | undefined;
  /** Settles at the first write: the first run's watches are established. */
  readonly firstWritten: Promise<void> = new Promise((resolve) => (this.firstWrite = resolve));

  constructor(private readonly store: RelayCheckpointStore) {}

  load(): Promise<RelayCheckpoint | undefined> {
    this.loads += 1;
    return this.store.load();
  }

  async save(checkpoint: Readonly<RelayCheckpoint>): Promise<void> {
    await this.store.save(checkpoint);
    this.written.push({ ...checkpoint.resourceVersions });
    this.firstWrite?.();
  }
}

/**
 * One run's view of the bus, the record and the clock, which can crash: from {@link crash} on,
 * what it publishes and writes is lost (resolving, as nothing is left to notice) and its clock
 * jumps past any deadline, so the run's loop ends at its next poll as the Lambda's process would
 * have ended at once. Until then everything passes through.
 */
export class CrashableRun {
  /** Epoch ms of the crash, once crashed. */
  crashedAt: number | undefined;
  private writes = 0;

  constructor(
    private readonly shared: { readonly bus: EventBus; readonly store: RelayCheckpointStore },
    /** Crash this long after the run's first write (it took the lease); undefined: never. */
    private readonly crashAfterFirstWriteMs?: number,
  ) {}

  readonly bus: EventBus = {
    publish: async (events) => {
      if (this.crashedAt === undefined) await this.shared.bus.publish(events);
    },
  };

  readonly store: RelayCheckpointStore = {
    load: () => this.shared.store.load(),
    save: async (checkpoint) => {
      if (this.crashedAt !== undefined) return;
      await this.shared.store.save(checkpoint);
      this.writes += 1;
      const after = this.crashAfterFirstWriteMs;
      if (this.writes === 1 && after !== undefined) setTimeout(() => this.crash(), after);
    },
  };

  /** The run's clock: real time until it crashed, then far beyond every deadline. */
  readonly now = (): number => (this.crashedAt === undefined ? Date.now() : Date.now() + 1e9);

  /** Whether the run is gone: nothing it does reaches anyone any more. */
  get crashed(): boolean {
    return this.crashedAt !== undefined;
  }

  /** Crashes the run now. */
  crash(): void {
    this.crashedAt ??= Date.now();
  }
}
