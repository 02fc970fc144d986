import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startRunCluster } from '../../lib/cli/run-cluster.ts';

describe('startRunCluster', () => {
  it.each([
    { name: 'a simulated cluster runs at real speed by default', timeScale: undefined, expected: 1 },
    { name: '--time-scale reaches the simulated cluster', timeScale: 0.1, expected: 0.1 },
  ])('$name', async ({ timeScale, expected }) => {
    const stateDir = mkdtempSync(join(tmpdir(), 'everynode-run-cluster-'));
    const cluster = await startRunCluster(
      { type: 'sim', nodes: 1, port: 0, demo: false, ...(timeScale === undefined ? {} : { timeScale }) },
      stateDir,
    );
    try {
      expect(cluster.sim?.timing.timeScale).toBe(expected);
      expect(cluster.sim?.nodes.names()).toEqual(['worker-1']);
    } finally {
      await cluster.stop();
    }
  });
});
