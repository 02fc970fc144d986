import { describe, expect, it } from 'vitest';
import type { BusEvent, EventBus } from '../../../lib/queue/event-bus.ts';
import { RelayPublisher } from '../../../lib/relay/output/publisher.ts';

/** A bus that records when each batch arrived, taking `publishMs` to accept one. */
function recordingBus(publishMs = 0): EventBus & { batches: { at: number; names: string[] }[] } {
  const batches: { at: number; names: string[] }[] = [];
  return {
    batches,
    publish: async (events: readonly BusEvent[]) => {
      batches.push({ at: performance.now(), names: events.map((e) => e.detailType) });
      await new Promise((resolve) => setTimeout(resolve, publishMs));
    },
  };
}

const event = (name: string): BusEvent => ({ source: 'test', detailType: name, detail: {} });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('RelayPublisher', () => {
  it('lets ordinary triggers linger for company, one batch for the lot', async () => {
    const bus = recordingBus();
    const publisher = new RelayPublisher({ bus, lingerMs: 100 });
    const start = performance.now();
    publisher.add(event('a'), 'pods', '1');
    publisher.add(event('b'), 'pods', '2');
    await pause(40);
    expect(bus.batches).toEqual([]);
    await publisher.flush();
    await pause(150);
    expect(bus.batches.map((b) => b.names)).toEqual([['a', 'b']]);
    expect(publisher.positions).toEqual({ pods: '2' });
    expect((bus.batches[0]?.at ?? 0) - start).toBeLessThan(100);
  });

  it('publishes an urgent trigger without lingering, with what was queued before it', async () => {
    const bus = recordingBus();
    const publisher = new RelayPublisher({ bus, lingerMs: 1_000 });
    const start = performance.now();
    publisher.add(event('status'), 'pods', '1');
    publisher.add(event('gate'), 'pods', '2', true);
    await pause(30);
    expect(bus.batches.map((b) => b.names)).toEqual([['status', 'gate']]);
    expect((bus.batches[0]?.at ?? 0) - start).toBeLessThan(30);
  });

  it('starts an urgent batch as soon as the one in flight is on the bus, keeping the order', async () => {
    const bus = recordingBus(50);
    const publisher = new RelayPublisher({ bus, lingerMs: 1_000 });
    publisher.add(event('first'), 'pods', '1', true);
    await pause(5);
    publisher.add(event('gate'), 'pods', '2', true);
    await pause(80);
    expect(bus.batches.map((b) => b.names)).toEqual([['first'], ['gate']]);
    const [first, second] = bus.batches;
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeLessThan(80);
    await publisher.flush();
    expect(publisher.positions).toEqual({ pods: '2' });
  });
});
