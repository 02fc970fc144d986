/**
 * The scheduler's unschedulable pods, indexed by the nodes that could change their fate: a pod
 * pinned to nodes (a daemon pod's `matchFields metadata.name In [...]`) waits only on those, any
 * other pod on every node. A node event then requeues only the pods it can matter to — upstream
 * does the same with its queueing hints (pkg/scheduler/framework, QueueingHintFn) — so 10,000
 * unschedulable daemon pods do not all wake on each of 10,000 node updates.
 */

/** Pods that did not fit, by the node names they wait on. */
export class UnschedulablePods {
  private readonly pinnedTo = new Map<string, readonly string[]>();
  private readonly byNode = new Map<string, Set<string>>();
  private readonly anywhere = new Set<string>();

  /** Number of pods waiting. */
  get size(): number {
    return this.pinnedTo.size + this.anywhere.size;
  }

  has(key: string): boolean {
    return this.anywhere.has(key) || this.pinnedTo.has(key);
  }

  /** Records that `key` fits nowhere; `pinned` are the only nodes it may go to (undefined: any). */
  add(key: string, pinned: ReadonlySet<string> | undefined): void {
    this.delete(key);
    if (!pinned) {
      this.anywhere.add(key);
      return;
    }
    const names = [...pinned];
    this.pinnedTo.set(key, names);
    for (const name of names) {
      const waiting = this.byNode.get(name) ?? new Set<string>();
      waiting.add(key);
      this.byNode.set(name, waiting);
    }
  }

  delete(key: string): void {
    this.anywhere.delete(key);
    for (const name of this.pinnedTo.get(key) ?? []) {
      const waiting = this.byNode.get(name);
      waiting?.delete(key);
      if (waiting?.size === 0) this.byNode.delete(name);
    }
    this.pinnedTo.delete(key);
  }

  /** Removes and returns the pods a change of node `name` may let fit. */
  takeFor(name: string): string[] {
    const taken = [...this.anywhere, ...(this.byNode.get(name) ?? [])];
    for (const key of taken) this.delete(key);
    return taken;
  }
}
