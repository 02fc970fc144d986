/**
 * Lets the event loop run what is waiting before a long step goes on. A `daemonset` step computes
 * over every node and pod it listed in one synchronous stretch when nothing in it waits on I/O (a
 * status refresh with nothing to create); a `node` step whose answer arrived meanwhile — the one
 * that lifts a readiness gate — would wait all of it. Yielding between the step's phases bounds
 * that wait to one phase, for a fraction of a millisecond per yield.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
