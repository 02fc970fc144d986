import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BusEvent } from '../../lib/queue/event-bus.ts';
import {
  EventBridgeEventBus,
  PUT_EVENTS_MAX_BYTES,
  PutEventsError,
} from '../../lib/queue/event-bus-eventbridge.ts';

/**
 * An HTTP endpoint speaking EventBridge's PutEvents (AWS JSON 1.1) that accepts entries unless
 * `refuse` names an error code for them, so the real SDK client and the bus's batching and retries
 * run as against AWS (there is no local EventBridge to test against).
 */
interface Endpoint {
  readonly url: string;
  readonly calls: Array<Array<{ Source: string; DetailType: string; Detail: string; EventBusName: string }>>;
  /** Attempts so far per entry detail. */
  readonly attempts: Map<string, number>;
  refuse: (detail: Record<string, unknown>, attempt: number) => string | undefined;
  close(): Promise<void>;
}

async function startEndpoint(): Promise<Endpoint> {
  const attempts = new Map<string, number>();
  const endpoint: Omit<Endpoint, 'url' | 'close'> & { server?: Server } = {
    calls: [],
    attempts,
    refuse: () => undefined,
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
    });
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const entries = (JSON.parse(body) as { Entries: Endpoint['calls'][number] }).Entries;
      endpoint.calls.push(entries);
      const results = entries.map((entry, i) => {
        const attempt = (attempts.get(entry.Detail) ?? 0) + 1;
        attempts.set(entry.Detail, attempt);
        const code = endpoint.refuse(JSON.parse(entry.Detail) as Record<string, unknown>, attempt);
        return code
          ? { ErrorCode: code, ErrorMessage: `refused ${i}` }
          : { EventId: `id-${endpoint.calls.length}-${i}` };
      });
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(
        JSON.stringify({
          FailedEntryCount: results.filter((r) => 'ErrorCode' in r).length,
          Entries: results,
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(endpoint, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

const events = (n: number): BusEvent[] =>
  Array.from({ length: n }, (_, i) => ({
    source: 'everynode.relay',
    detailType: 'Kubernetes Watch Event',
    detail: { n: i },
  }));

/** `n` events whose detail weighs about `bytes` in UTF-8 ('é' is two bytes, one UTF-16 unit). */
const largeEvents = (n: number, bytes: number): BusEvent[] =>
  events(n).map((event) => ({ ...event, detail: { ...event.detail, pad: 'é'.repeat(bytes / 2) } }));

/** The size AWS counts for a PutEvents entry as the endpoint received it (no Time, no Resources here). */
const entrySize = (entry: Endpoint['calls'][number][number]): number =>
  [entry.Source, entry.DetailType, entry.Detail].reduce((sum, s) => sum + Buffer.byteLength(s, 'utf8'), 0);

describe('EventBridgeEventBus through the SDK client', () => {
  let endpoint: Endpoint;
  let bus: EventBridgeEventBus;
  beforeAll(async () => {
    endpoint = await startEndpoint();
    const client = new EventBridgeClient({
      endpoint: endpoint.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    bus = new EventBridgeEventBus({ client, eventBusName: 'everynode', retryDelayMs: 1 });
  });
  afterAll(async () => endpoint.close());

  it('publishes in order, in batches of 10, onto the named bus', async () => {
    endpoint.calls.length = 0;
    endpoint.refuse = () => undefined;
    await bus.publish(events(23));
    expect(endpoint.calls.map((c) => c.length)).toEqual([10, 10, 3]);
    expect(endpoint.calls.flat().map((e) => JSON.parse(e.Detail).n)).toEqual(
      Array.from({ length: 23 }, (_, i) => i),
    );
    expect(
      new Set(endpoint.calls.flat().map((e) => `${e.EventBusName} ${e.Source} ${e.DetailType}`)),
    ).toEqual(new Set(['everynode everynode.relay Kubernetes Watch Event']));
  });

  it('cuts batches by size too, keeping every call under the PutEvents limit, in order', async () => {
    endpoint.calls.length = 0;
    endpoint.refuse = () => undefined;
    await bus.publish(largeEvents(10, 40_000));
    expect(endpoint.calls.length).toBeGreaterThanOrEqual(2);
    for (const call of endpoint.calls) {
      expect(call.reduce((sum, entry) => sum + entrySize(entry), 0)).toBeLessThan(PUT_EVENTS_MAX_BYTES);
    }
    expect(endpoint.calls.flat().map((e) => JSON.parse(e.Detail).n)).toEqual(
      Array.from({ length: 10 }, (_, i) => i),
    );
  });

  it('rejects an event too large for any call, for good, without sending its batch', async () => {
    endpoint.calls.length = 0;
    endpoint.refuse = () => undefined;
    const oversized = events(3).map((event) =>
      event.detail.n === 1 ? { ...event, detail: { n: 1, pad: 'x'.repeat(PUT_EVENTS_MAX_BYTES) } } : event,
    );
    const error = await bus.publish(oversized).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PutEventsError);
    expect((error as PutEventsError).retryable).toBe(false);
    expect((error as PutEventsError).message).toMatch(/event of \d+ bytes to everynode/);
    expect(endpoint.calls.map((c) => c.map((e) => JSON.parse(e.Detail).n))).toEqual([[0]]);
  });

  it('sends again only the entries refused for a transient reason, until accepted', async () => {
    endpoint.calls.length = 0;
    endpoint.attempts.clear();
    endpoint.refuse = (detail, attempt) =>
      detail.n === 2 && attempt < 3 ? 'ThrottlingException' : undefined;
    await bus.publish(events(4));
    expect(endpoint.calls.map((c) => c.map((e) => JSON.parse(e.Detail).n))).toEqual([[0, 1, 2, 3], [2], [2]]);
  });

  it.each([
    { name: 'a permanent refusal', code: 'ValidationException', retryable: false, calls: 1 },
    { name: 'a transient refusal that never ends', code: 'InternalFailure', retryable: true, calls: 4 },
  ])('rejects after $name, saying which code', async ({ code, retryable, calls }) => {
    endpoint.calls.length = 0;
    endpoint.refuse = (detail) => (detail.n === 1 ? code : undefined);
    const error = await bus.publish(events(2)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PutEventsError);
    expect((error as PutEventsError).message).toContain(code);
    expect((error as PutEventsError).retryable).toBe(retryable);
    expect(endpoint.calls).toHaveLength(calls);
  });
});
