import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer } from '../../../lib/sim/apiserver/api-server.ts';
import { ClusterStore } from '../../../lib/sim/storage/store.ts';

// --min-request-timeout 1 s at timeScale 0.1, the random draw fixed at 0.5: lifetime 1 × 1.5 × 100 ms.
const draws: number[] = [];
const server = createApiServer(new ClusterStore(), {
  minRequestTimeoutSeconds: 1,
  timeScale: 0.1,
  random: () => {
    draws.push(0.5);
    return 0.5;
  },
});
let url = '';

beforeAll(async () => {
  url = await server.listen();
});
afterAll(() => server.close());

/** Milliseconds until the server ends the watch stream at `query`. */
async function lifetimeMs(query: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${url}/api/v1/namespaces/default/pods?watch=true${query}`);
  await response.arrayBuffer();
  return performance.now() - started;
}

describe('watch lifetimes', () => {
  it('a watch without timeoutSeconds (or with 0) ends after --min-request-timeout × [1, 2), scaled', async () => {
    const [absent, zero] = await Promise.all([lifetimeMs(''), lifetimeMs('&timeoutSeconds=0')]);
    for (const ms of [absent, zero]) {
      expect(ms).toBeGreaterThanOrEqual(140);
      expect(ms).toBeLessThan(1000);
    }
    expect(draws).toHaveLength(2);
  });

  it('timeoutSeconds, when given, is the lifetime itself', async () => {
    const [given, fallback] = await Promise.all([lifetimeMs('&timeoutSeconds=1'), lifetimeMs('')]);
    expect(given).toBeGreaterThanOrEqual(990);
    expect(fallback).toBeLessThan(given);
  });
});
