import { readFileSync } from 'node:fs';
import type { V1DaemonSet } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { nodeShouldRunDaemonPod } from '../../lib/core/placement.ts';
import { fixtureNodes } from '../../lib/sim/sim-nodes.ts';

function fixture(name: string): unknown {
  return parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8'));
}

const nodes = fixtureNodes();

describe('seed fixtures: placement of the seed DaemonSets on nodes.yaml', () => {
  it('nodes.yaml holds the six nodes its comment describes', () => {
    expect(nodes.map((node) => node.metadata?.name)).toEqual([
      'worker-1',
      'worker-ssd',
      'master-1',
      'cordoned-1',
      'notready-1',
      'gpu-dedicated',
    ]);
  });

  it.each([
    {
      file: 'fluentd-elasticsearch.yaml',
      shouldRun: ['worker-1', 'worker-ssd', 'master-1', 'cordoned-1'],
      shouldContinueRunning: ['worker-1', 'worker-ssd', 'master-1', 'cordoned-1', 'notready-1'],
    },
    {
      file: 'demo.yaml',
      shouldRun: ['worker-1', 'worker-ssd', 'cordoned-1'],
      // An untolerated NoSchedule taint (master-1, notready-1) only stops new pods (upstream).
      shouldContinueRunning: ['worker-1', 'worker-ssd', 'master-1', 'cordoned-1', 'notready-1'],
    },
    { file: 'node-selector-ds.yaml', shouldRun: ['worker-ssd'], shouldContinueRunning: ['worker-ssd'] },
  ])('$file starts on $shouldRun', ({ file, shouldRun, shouldContinueRunning }) => {
    const ds = fixture(file) as V1DaemonSet;
    const placements = nodes.map((node) => ({
      name: node.metadata?.name,
      ...nodeShouldRunDaemonPod(node, ds),
    }));
    expect(placements.filter((p) => p.shouldRun).map((p) => p.name)).toEqual(shouldRun);
    expect(placements.filter((p) => p.shouldContinueRunning).map((p) => p.name)).toEqual(
      shouldContinueRunning,
    );
  });
});
