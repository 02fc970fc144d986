/**
 * When the relay of test/bench/node-ready.ts published each gating pod's readiness: the local bus's
 * `publish` is wrapped (the relay calls it with each batch of triggers, before the journal and the
 * ingress queue), so the part that is ours splits into the relay's share and the rest.
 */
import type { BusEvent, EventBus } from '../../lib/queue/event-bus.ts';

/**
 * Milliseconds since the epoch with sub-millisecond precision, comparable across worker threads
 * (each has its own `performance.timeOrigin`, all on the same system clock).
 */
export function wallMs(): number {
  return performance.timeOrigin + performance.now();
}

/** `node/daemonset` → when the first trigger of that gating pod's readiness change was published. */
export type ReadyPublished = ReadonlyMap<string, number>;

/** The trigger's `node/daemonset` when it reports a gating pod's readiness change; else undefined. */
function readyChangeOf(event: Readonly<BusEvent>): string | undefined {
  const d = event.detail as {
    kind?: string;
    event?: string;
    gatesNode?: boolean;
    changes?: string[];
    nodeName?: string;
    controller?: { name?: string };
  };
  if (d.kind !== 'Pod' || d.gatesNode !== true || d.nodeName === undefined) return undefined;
  if (d.event === 'MODIFIED' && !d.changes?.includes('ready')) return undefined;
  return `${d.nodeName}/${d.controller?.name ?? ''}`;
}

/** Wraps `bus.publish` to record, per `node/daemonset`, the first gating readiness trigger published. */
export function tapReadyTriggers(bus: EventBus): ReadyPublished {
  const published = new Map<string, number>();
  const publish = bus.publish.bind(bus);
  bus.publish = async (events) => {
    const at = wallMs();
    for (const event of events) {
      const key = readyChangeOf(event);
      if (key !== undefined && !published.has(key)) published.set(key, at);
    }
    return publish(events);
  };
  return published;
}
