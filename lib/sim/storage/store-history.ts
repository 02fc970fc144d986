/**
 * The bounded window of recent changes per resource, from which watches resume and exact-version
 * lists are rebuilt, like the apiserver's watch cache (staging/src/k8s.io/apiserver/pkg/storage/
 * cacher/watch_cache.go): a resourceVersion older than the window answers 410 Expired.
 */
import { SimApiError } from '../schema/api-error.ts';
import type { StoreEvent } from '../schema/store-types.ts';

/** A change with the global resourceVersion it was written at. */
export interface HistoryEntry {
  readonly resourceVersion: number;
  readonly event: StoreEvent;
}

/** Recent changes of one resource, oldest first, at most about 2 × capacity kept. */
export class ResourceHistory {
  private entries: HistoryEntry[] = [];
  /** Every change at or below this version may have been dropped from the window. */
  private compactedThrough: number;

  constructor(
    private readonly capacity: number,
    startVersion: number,
  ) {
    this.compactedThrough = startVersion;
  }

  /** Records a change; drops the oldest half once the window holds twice its capacity. */
  push(entry: HistoryEntry): void {
    this.entries.push(entry);
    if (this.entries.length >= this.capacity * 2) {
      const dropped = this.entries.length - this.capacity;
      this.compactedThrough = this.entries[dropped - 1]?.resourceVersion ?? this.compactedThrough;
      this.entries = this.entries.slice(dropped);
    }
  }

  /** The oldest resourceVersion a watch can resume from. */
  get oldestResumable(): number {
    return this.compactedThrough;
  }

  /**
   * The changes after `resourceVersion`, oldest first. Throws 410 Expired (`too old resource
   * version: N (M)`, as the watch cache words it) when some of them have left the window.
   */
  since(resourceVersion: number): HistoryEntry[] {
    if (resourceVersion < this.compactedThrough) {
      throw SimApiError.expired(
        `too old resource version: ${resourceVersion} (${this.compactedThrough + 1})`,
      );
    }
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((this.entries[mid]?.resourceVersion ?? 0) <= resourceVersion) low = mid + 1;
      else high = mid;
    }
    return this.entries.slice(low);
  }
}
