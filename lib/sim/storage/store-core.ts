/**
 * The store's state and its two write primitives (put, remove): every change gets the next global
 * resourceVersion, is frozen, indexed, recorded in the watch window and announced to listeners
 * in resourceVersion order.
 */
import { type ResourceKey, resourceByKey, resources } from '../schema/resources.ts';
import { deepFreeze } from '../schema/store-json.ts';
import type { KubeObject, StoreEvent } from '../schema/store-types.ts';
import { ResourceHistory } from './store-history.ts';
import { ResourceTable } from './store-table.ts';

/** ObjectMeta's fields in the order the real server serializes them (the Go struct order). */
const metadataOrder = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
];

/** `obj` with apiVersion, kind, metadata first and metadata fields in wire order, as kubectl shows them. */
function inWireOrder(obj: KubeObject): KubeObject {
  const meta: Record<string, unknown> = {};
  const source = obj.metadata as Record<string, unknown>;
  for (const field of metadataOrder) if (source[field] !== undefined) meta[field] = source[field];
  for (const [field, value] of Object.entries(source))
    if (!(field in meta) && value !== undefined) meta[field] = value;
  const { apiVersion, kind, metadata: _m, ...rest } = obj;
  return { apiVersion, kind, metadata: meta, ...rest };
}

/** Where an object with a given uid lives. */
export interface UidLocation {
  readonly key: ResourceKey;
  readonly id: string;
}

/** Options of the store's state. */
export interface StoreCoreOptions {
  /** Changes kept per resource for watches (the watch cache window); default 10,000. */
  readonly watchWindow?: number;
  /** The clock; default `() => new Date()`. */
  readonly now?: () => Date;
}

/** The state of a ClusterStore and its write primitives. Not for use outside lib/sim/store*.ts. */
export class StoreCore {
  readonly tables = new Map<ResourceKey, ResourceTable>();
  readonly histories = new Map<ResourceKey, ResourceHistory>();
  readonly byUid = new Map<string, UidLocation>();
  readonly now: () => Date;
  private readonly listeners = new Set<(event: StoreEvent) => void>();
  private readonly pending: StoreEvent[] = [];
  private dispatching = false;
  /** Called after every change, after listeners; the garbage collector hooks in here. */
  afterChange: ((event: StoreEvent) => void) | undefined;
  private version = 1;

  constructor(options: StoreCoreOptions = {}) {
    this.now = options.now ?? (() => new Date());
    for (const r of resources) {
      this.tables.set(r.key, new ResourceTable(r.key));
      this.histories.set(r.key, new ResourceHistory(options.watchWindow ?? 10_000, this.version));
    }
  }

  /** The current global resourceVersion. */
  get resourceVersion(): number {
    return this.version;
  }

  /** The table of `key`. */
  table(key: ResourceKey): ResourceTable {
    const table = this.tables.get(key);
    if (!table) throw new Error(`no table for resource ${key}`);
    return table;
  }

  /** The watch window of `key`. */
  history(key: ResourceKey): ResourceHistory {
    const history = this.histories.get(key);
    if (!history) throw new Error(`no history for resource ${key}`);
    return history;
  }

  /** The stored (frozen) object, or undefined. */
  find(key: ResourceKey, namespace: string | undefined, name: string): KubeObject | undefined {
    const scoped = resourceByKey(key).namespaced ? namespace : undefined;
    return this.table(key).objects.get(ResourceTable.idOf(scoped, name));
  }

  /** Registers a listener; returns the function that removes it. */
  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stores `obj` (ADDED when `old` is undefined, else MODIFIED) at the next resourceVersion; returns it frozen. */
  put(key: ResourceKey, obj: KubeObject, old: KubeObject | undefined): KubeObject {
    this.version += 1;
    obj.metadata.resourceVersion = String(this.version);
    const stored = deepFreeze(inWireOrder(obj));
    const id = ResourceTable.idOf(stored.metadata.namespace, stored.metadata.name ?? '');
    this.table(key).put(id, stored);
    if (stored.metadata.uid) this.byUid.set(stored.metadata.uid, { key, id });
    this.emit(
      old
        ? { type: 'MODIFIED', key, object: stored, oldObject: old }
        : { type: 'ADDED', key, object: stored },
    );
    return stored;
  }

  /**
   * Removes the stored object `old`; the DELETED event carries `last` (default `old`: its final
   * state) with the next resourceVersion. Returns that final object.
   */
  remove(key: ResourceKey, old: KubeObject, last: KubeObject = old): KubeObject {
    this.version += 1;
    const final = deepFreeze({
      ...last,
      metadata: { ...last.metadata, resourceVersion: String(this.version) },
    });
    this.table(key).remove(ResourceTable.idOf(old.metadata.namespace, old.metadata.name ?? ''));
    if (old.metadata.uid) this.byUid.delete(old.metadata.uid);
    this.emit({ type: 'DELETED', key, object: final, oldObject: old });
    return final;
  }

  /** Records the event, then notifies listeners in order even when a listener writes meanwhile. */
  private emit(event: StoreEvent): void {
    this.history(event.key).push({ resourceVersion: this.version, event });
    this.pending.push(event);
    if (this.dispatching) return;
    this.dispatching = true;
    try {
      for (let next = this.pending.shift(); next; next = this.pending.shift()) {
        for (const listener of [...this.listeners]) {
          try {
            listener(next);
          } catch (error) {
            console.error('store listener failed', error);
          }
        }
        this.afterChange?.(next);
      }
    } finally {
      this.dispatching = false;
    }
  }
}
