/**
 * What the relay remembers of each watched object: its decision-relevant facets at its last seen
 * resourceVersion, so that an update can be told apart from a no-op.
 */
import type { TriggeringResource, WatchEvent, WatchedObjects } from '../../kube/kube-port.ts';
import { isNewer } from '../../kube/resource-version.ts';
import { changedFacets, type Facets, facetsOf, isRemovedAtOnce } from './decision-facets.ts';
import { type Seeding, seedingInPlace } from './list-seeding.ts';
import { Interner } from './shared-values.ts';

interface Entry {
  facets: Facets;
  resourceVersion: string;
  /** From a LIST rather than from this watch: only events newer than it have it as their "before". */
  seeded: boolean;
}

/** An object event (not a bookmark). */
export type ObjectEvent<T> = Extract<WatchEvent<T>, { object: T }>;

/**
 * The verdict on one event: forward it with the changed facet names, or drop it as a no-op. For an
 * ADDED or DELETED event `changes` is empty (the event type says it all).
 */
export type Verdict =
  | { readonly forward: true; readonly changes: readonly string[] }
  | { readonly forward: false };

function uidOf(object: unknown): string {
  const meta = (object as { metadata?: { uid?: string; namespace?: string; name?: string } }).metadata;
  return meta?.uid ?? `${meta?.namespace ?? ''}/${meta?.name ?? ''}`;
}

/**
 * The facets of every object of one resource, fed by its LIST and WATCH.
 *
 * Why "seeded": when the relay resumes a watch from a checkpoint, it also LISTs to learn the current
 * state, and the watch then replays the changes between the checkpoint and that LIST. For those
 * replayed events the listed state is *newer* than the event, so it cannot serve as the state before
 * it: comparing against it would hide a label change that happened while no relay was watching. So
 * an event no newer than the listed version of its object has an unknown "before" and is forwarded
 * (as if every facet changed); only events newer than the listed version are compared against it
 * (see `compareResourceVersions`; when versions cannot be ordered, every first event is forwarded).
 * After a cold start the watch starts at the LIST's own version, so every event is newer and exact.
 */
export class RelayObjectCache<R extends TriggeringResource> {
  private readonly entries = new Map<string, Entry>();
  /** Pod facet values repeat (a node's name in each of its pods, a DaemonSet's uid): kept once each. */
  private readonly interner = new Interner();

  constructor(readonly resource: R) {}

  /** Objects remembered. */
  get size(): number {
    return this.entries.size;
  }

  /** Forgets everything and remembers `objects` as listed. */
  seed(objects: readonly Readonly<WatchedObjects[R]>[]): void {
    const seeding = this.seeding();
    seeding.add(objects);
    seeding.commit();
  }

  /**
   * A seeding from a LIST taken page by page (`cluster-view/list-seeding.ts`): each page's objects remembered as
   * listed as they come, and the objects the list did not show forgotten at the commit.
   */
  seeding(): Seeding<WatchedObjects[R]> {
    const put = (object: Readonly<WatchedObjects[R]>) => {
      const uid = uidOf(object);
      const resourceVersion =
        (object as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion ?? '';
      const known = this.entries.get(uid);
      // An object at a version never changes: a relisted one keeps its facets (no copy to collect).
      if (resourceVersion !== '' && known?.resourceVersion === resourceVersion) known.seeded = true;
      else this.entries.set(uid, { facets: this.facetsOf(object), resourceVersion, seeded: true });
      return uid;
    };
    return seedingInPlace(this.entries, put, (uid) => this.entries.delete(uid));
  }

  /**
   * Remembers the object of `event` and says whether the event can change a decision: an update
   * that changed a facet, unless it only precedes the object's removal (`isRemovedAtOnce`).
   */
  observe(event: Readonly<ObjectEvent<WatchedObjects[R]>>): Verdict {
    const uid = uidOf(event.object);
    if (event.type === 'DELETED') {
      this.entries.delete(uid);
      return { forward: true, changes: [] };
    }
    const facets = this.facetsOf(event.object);
    const before = this.knownBefore(this.entries.get(uid), event.resourceVersion);
    this.entries.set(uid, { facets, resourceVersion: event.resourceVersion, seeded: false });
    if (event.type === 'ADDED') return { forward: true, changes: [] };
    if (isRemovedAtOnce(this.resource, event.object)) return { forward: false };
    const changes = changedFacets(before ?? {}, facets);
    return changes.length > 0 ? { forward: true, changes } : { forward: false };
  }

  /** The facets of `object`, with the values many objects repeat shared. */
  private facetsOf(object: Readonly<WatchedObjects[R]>): Facets {
    return facetsOf(this.resource, object, (value) => this.interner.string(value));
  }

  /** The facets the object had just before an event at `resourceVersion`, when they are known. */
  private knownBefore(entry: Entry | undefined, resourceVersion: string): Facets | undefined {
    if (entry === undefined) return undefined;
    if (!entry.seeded) return entry.facets;
    return isNewer(resourceVersion, entry.resourceVersion) ? entry.facets : undefined;
  }
}
