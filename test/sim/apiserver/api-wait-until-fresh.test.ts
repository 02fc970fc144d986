/**
 * Reads at a resourceVersion the store has not reached, over HTTP, as kube-apiserver's watch cache
 * answers them: a list waits up to 3 s for the version, then answers 504 Too large resource version;
 * a watch sends nothing at or below the version asked for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer } from '../../../lib/sim/apiserver/api-server.ts';
import { BLOCK_TIMEOUT_MS } from '../../../lib/sim/apiserver/api-wait-until-fresh.ts';
import { ClusterStore } from '../../../lib/sim/storage/store.ts';
import { newPod } from '../../support/store-test-helpers.ts';

const store = new ClusterStore();
const server = createApiServer(store);
let url = '';

beforeAll(async () => {
  url = await server.listen();
});
afterAll(() => server.close());

let created = 0;
/** Creates a pod in the store (a write: the store's resourceVersion moves on by one). */
function write(): void {
  created += 1;
  store.create('pods', newPod(`p-${created}`));
}

interface Status {
  kind?: string;
  code?: number;
  reason?: string;
  message?: string;
  details?: unknown;
  metadata?: { resourceVersion?: string };
}

describe('a list not older than a version the store has not reached', () => {
  it.each([
    {
      name: 'with resourceVersionMatch=NotOlderThan and a limit',
      query: 'resourceVersionMatch=NotOlderThan&limit=1',
    },
    { name: 'without resourceVersionMatch nor limit (the same semantics)', query: '' },
  ])('answers 504 Timeout with the ResourceVersionTooLarge cause after 3 s: $name', async ({ query }) => {
    const current = store.resourceVersion;
    const started = performance.now();
    const response = await fetch(`${url}/api/v1/pods?resourceVersion=${current + 1000}&${query}`);
    const waited = performance.now() - started;
    expect(response.status).toBe(504);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await response.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `Timeout: Too large resource version: ${current + 1000}, current: ${current}`,
      reason: 'Timeout',
      details: {
        causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
        retryAfterSeconds: 1,
      },
      code: 504,
    });
    expect(waited).toBeGreaterThanOrEqual(BLOCK_TIMEOUT_MS - 50);
  });

  it('is answered once the store reaches the version within the 3 s', async () => {
    const wanted = store.resourceVersion + 2;
    setTimeout(write, 100);
    setTimeout(write, 200);
    const response = await fetch(
      `${url}/api/v1/pods?resourceVersion=${wanted}&resourceVersionMatch=NotOlderThan`,
    );
    expect(response.status).toBe(200);
    const list = (await response.json()) as Status;
    expect(Number(list.metadata?.resourceVersion)).toBeGreaterThanOrEqual(wanted);
  });
});

/** The lines a watch at `query` sends until it ends (timeoutSeconds), as parsed events. */
async function watchLines(
  query: string,
): Promise<{ type: string; object: Status & { metadata?: object } }[]> {
  const response = await fetch(`${url}/api/v1/namespaces/default/pods?watch=true&${query}`);
  const text = await response.text();
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}

describe('a watch from a version the store has not reached', () => {
  it('sends no event at or below that version, only the newer ones', async () => {
    const from = store.resourceVersion + 2;
    const lines = watchLines(`resourceVersion=${from}&timeoutSeconds=1`);
    setTimeout(() => {
      for (let i = 0; i < 3; i += 1) write();
    }, 200);
    const events = await lines;
    expect(
      events.map((e) => [e.type, (e.object.metadata as { resourceVersion?: string }).resourceVersion]),
    ).toEqual([['ADDED', String(from + 1)]]);
  });

  it('with sendInitialEvents, waits 3 s for it, then sends ERROR 504 Too large resource version', async () => {
    const current = store.resourceVersion;
    const events = await watchLines(
      `resourceVersion=${current + 1000}&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&allowWatchBookmarks=true`,
    );
    expect(events).toMatchObject([
      {
        type: 'ERROR',
        object: {
          kind: 'Status',
          code: 504,
          reason: 'Timeout',
          message: `Timeout: Too large resource version: ${current + 1000}, current: ${current}`,
          details: { causes: [{ reason: 'ResourceVersionTooLarge' }], retryAfterSeconds: 1 },
        },
      },
    ]);
  });
});
