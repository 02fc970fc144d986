import type { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { describe, expect, it } from 'vitest';
import { EverynodeError } from '../../../lib/errors/everynode-error.ts';
import {
  type BusEvent,
  busEventBytes,
  type EventBus,
  MAX_BUS_EVENT_BYTES,
} from '../../../lib/queue/event-bus.ts';
import { EventBridgeEventBus } from '../../../lib/queue/event-bus-eventbridge.ts';
import { RelayPublisher, type SkippedObject } from '../../../lib/relay/output/publisher.ts';

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

  /** A bus whose batches stay on their way until released, in any order. */
  function heldBus(): EventBus & { batches: string[][]; release(i: number, error?: Error): void } {
    const batches: string[][] = [];
    const settle: Array<(error?: Error) => void> = [];
    return {
      batches,
      publish: (events) => {
        batches.push(events.map((e) => e.detailType));
        return new Promise<void>((resolve, reject) =>
          settle.push((error) => (error ? reject(error) : resolve())),
        );
      },
      release: (i, error) => settle[i]?.(error),
    };
  }

  it('starts a batch while a slow one is on its way, and moves the positions past a batch only once all before it are on the bus', async () => {
    const bus = heldBus();
    const publisher = new RelayPublisher({ bus, lingerMs: 1, maxInFlight: 2 });
    publisher.add(event('slow'), 'pods', '1', true);
    publisher.add(event('second'), 'pods', '2', true);
    publisher.add(event('third'), 'pods', '3', true);
    await pause(5);
    // Two at once: the third waits for room.
    expect(bus.batches).toEqual([['slow'], ['second']]);
    bus.release(1);
    await pause(5);
    expect(bus.batches).toEqual([['slow'], ['second'], ['third']]);
    expect(publisher.positions).toEqual({});
    bus.release(0);
    await pause(5);
    expect(publisher.positions).toEqual({ pods: '2' });
    bus.release(2);
    await publisher.flush();
    expect(publisher.positions).toEqual({ pods: '3' });
  });

  it('never moves the positions past a batch the bus refused, whatever was published after it', async () => {
    const bus = heldBus();
    const publisher = new RelayPublisher({ bus, lingerMs: 1 });
    publisher.add(event('refused'), 'pods', '1', true);
    publisher.add(event('later'), 'pods', '2', true);
    await pause(5);
    bus.release(1);
    bus.release(0, new EverynodeError('AccessDenied', false));
    await expect(publisher.flush()).rejects.toThrow('AccessDenied');
    expect(publisher.positions).toEqual({});
    expect(publisher.failure).toBeInstanceOf(Error);
  });

  it('publishes an event too large for the bus with its hints without them', async () => {
    const published: BusEvent[] = [];
    const publisher = new RelayPublisher({
      bus: { publish: async (events) => void published.push(...events) },
      lingerMs: 1,
    });
    const detail = { kind: 'Pod', name: 'wide-n1', hints: { node: 'n1' }, pairHints: 'x'.repeat(270_000) };
    publisher.add({ source: 'everynode.relay', detailType: 'wide', detail }, 'pods', '1');
    await publisher.flush();
    expect(published.map((e) => e.detail)).toEqual([{ kind: 'Pod', name: 'wide-n1' }]);
    expect(publisher.positions).toEqual({ pods: '1' });
  });

  it('skips one event too large for the bus even without hints, naming its object, and publishes the rest without failing', async () => {
    // The real EventBridge bus, over a client that takes every entry it is sent.
    const sent: string[][] = [];
    const client = {
      send: async (command: PutEventsCommand) => {
        sent.push((command.input.Entries ?? []).map((e) => e.DetailType ?? ''));
        return { FailedEntryCount: 0, Entries: [] };
      },
    } as unknown as EventBridgeClient;
    const skipped: Array<{ object: SkippedObject; bytes: number }> = [];
    const publisher = new RelayPublisher({
      bus: new EventBridgeEventBus({ client, eventBusName: 'everynode' }),
      lingerMs: 1,
      onSkipped: (object, bytes) => skipped.push({ object, bytes }),
    });
    const huge: BusEvent = {
      source: 'everynode.relay',
      detailType: 'huge',
      detail: { kind: 'Pod', namespace: 'default', name: 'wide-n1', changes: ['x'.repeat(270_000)] },
    };
    publisher.add(event('before'), 'pods', '1');
    publisher.add(huge, 'pods', '2');
    publisher.add(event('after'), 'pods', '3');
    await publisher.flush();
    expect(publisher.failure).toBeUndefined();
    expect(sent).toEqual([['before', 'after']]);
    expect(publisher.positions).toEqual({ pods: '3' });
    expect(skipped).toEqual([
      { object: { detailType: 'huge', kind: 'Pod', object: 'default/wide-n1' }, bytes: busEventBytes(huge) },
    ]);
    expect(busEventBytes(huge)).toBeGreaterThan(MAX_BUS_EVENT_BYTES);
    // The watch goes on: later events are published as ever.
    publisher.add(event('later'), 'pods', '4');
    await publisher.flush();
    expect(sent).toEqual([['before', 'after'], ['later']]);
  });
});
