/**
 * `rollout plan` without a cluster: the plan of a DaemonSet with a safe rollout from fabricated
 * nodes, pods and records (`rolloutPlanOf`), printed as the command prints it (`planText`).
 */
import type { V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { nodeViewsFor } from '../../lib/core/node-view.ts';
import { ROLLOUT_RESUME_ANNOTATION, type RolloutRecord } from '../../lib/core/safe-rollout/rollout-record.ts';
import { rolloutPlanOf } from '../../lib/kubectl-plugin/rollout-plan-model.ts';
import { planText } from '../../lib/kubectl-plugin/rollout-plan-text.ts';
import { aDaemonSet, aNode, aPod } from '../support/builders.ts';

const NOW = new Date('2026-01-02T00:10:00Z');
const HASH = 'newhash';
const ZONE = 'topology.kubernetes.io/zone';
/** Seven nodes: four in zone a, three in zone b. */
const nodes = Array.from({ length: 7 }, (_, i) =>
  aNode(`node-0000${i + 1}`, { labels: { [ZONE]: i < 4 ? 'a' : 'b' } }),
);
const STEPS = [{ nodes: 1 }, { pause: {} }, { nodes: '50%' }];

function agent(rollingUpdate: Record<string, unknown>, annotations?: Record<string, string>): V1DaemonSet {
  return aDaemonSet('agent', {
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2, ...rollingUpdate } },
    ...(annotations ? { annotations } : {}),
  });
}

/** What each node runs: the old revision, the new one available, or the new one not ready yet. */
type Slot = 'old' | 'new' | 'new-';

function planOf(ds: V1DaemonSet, slots: readonly Slot[], record?: RolloutRecord, podReadySeconds = 30) {
  const withRecord = record ? { ...ds, status: { ...ds.status, rollout: record } } : ds;
  const pods: V1Pod[] = slots.map((slot, i) =>
    aPod(`agent-${i}`, {
      owner: ds,
      nodeName: `node-0000${i + 1}`,
      ready: slot !== 'new-',
      labels: { 'controller-revision-hash': slot === 'old' ? 'oldhash' : HASH },
    }),
  );
  const views = nodeViewsFor(withRecord as V1DaemonSet, nodes, pods);
  const plan = rolloutPlanOf({
    ds: withRecord as V1DaemonSet,
    views,
    currentHash: HASH,
    podReadySeconds,
    now: NOW,
  });
  return planText(plan, 'daemonset.everynode.dev/agent');
}

const all = (slot: Slot): Slot[] => Array.from({ length: 7 }, () => slot);
const header = (pod = '30s', steps = '1 node, pause until resumed, 50% of nodes') =>
  `daemonset.everynode.dev/agent, revision ${HASH}: 7 nodes; steps: ${steps}; topologyKey: ${ZONE}; maxUnavailable: 2; maxSurge: 0; minReadySeconds: 0; pod ready: ${pod}\n`;
const lines = (...text: string[]) => text.map((line) => `${line}\n`).join('');

describe('rolloutPlanOf and planText', () => {
  it('plans a rollout that has not begun: the canary, the pause, the step by batches, then the next zone', () => {
    expect(planOf(agent({ steps: STEPS, topologyKey: ZONE }), all('old'))).toBe(
      header() +
        lines(
          `0 of 7 nodes run revision ${HASH}; the rollout would go as follows:`,
          'step 1: 1 node (zone a): node-00001',
          'step 2: pause until resumed',
          'step 3: 3 nodes (zone a) in 2 batches of ≤2: node-00002, node-00003, node-00004',
          'then zone b: 3 nodes in 2 batches of ≤2: node-00005, node-00006, node-00007',
          'expected time: 2m30s = 5 batches × 30s (pod ready 30s + minReadySeconds 0s) + 0s of timed pauses',
          'waits for a person to resume: step 2',
        ),
    );
  });

  it('plans the rest of a rollout from the step its record holds, a node in flight counted once', () => {
    const record: RolloutRecord = {
      revision: HASH,
      phase: 'Progressing',
      step: 2,
      stepStartedAt: '2026-01-02T00:05:00Z',
      domain: 'a',
      updatedNodes: 2,
    };
    const slots: Slot[] = ['new', 'new-', 'old', 'old', 'old', 'old', 'old'];
    expect(planOf(agent({ steps: STEPS, topologyKey: ZONE }), slots, record, 20)).toBe(
      header('20s') +
        lines(
          `rollout Progressing at step 3 of 3, zone a: 2 of 7 nodes run revision ${HASH}; the rest would go as follows:`,
          'updating now: 1 node (zone a): node-00002',
          'step 3: 2 nodes (zone a): node-00003, node-00004',
          'then zone b: 3 nodes in 2 batches of ≤2: node-00005, node-00006, node-00007',
          'expected time: 1m20s = 4 batches × 20s (pod ready 20s + minReadySeconds 0s) + 0s of timed pauses',
          'waits for a person to resume: none',
        ),
    );
  });

  it('counts what is left of a timed pause that holds, and skips a pause a request resumed', () => {
    const steps = [{ nodes: 1 }, { pause: { seconds: 300 } }, { pause: {} }, { nodes: 3 }];
    const record: RolloutRecord = {
      revision: HASH,
      phase: 'Paused',
      step: 1,
      stepStartedAt: '2026-01-02T00:08:00Z',
      domain: 'a',
      updatedNodes: 1,
    };
    const ds = agent({ steps, topologyKey: ZONE }, { [ROLLOUT_RESUME_ANNOTATION]: `${HASH}/2` });
    expect(planOf(ds, ['new', 'old', 'old', 'old', 'old', 'old', 'old'], record)).toBe(
      header('30s', '1 node, pause 300s, pause until resumed, 3 nodes') +
        lines(
          `rollout Paused at step 2 of 4, zone a: 1 of 7 nodes run revision ${HASH}; the rest would go as follows:`,
          'step 2: pause 300s (holds now, 3m0s left)',
          'step 3: pause until resumed (resumed)',
          'step 4: 2 nodes (zone a): node-00002, node-00003',
          'then zone a: 1 node in 1 batch of ≤2: node-00004',
          'then zone b: 3 nodes in 2 batches of ≤2: node-00005, node-00006, node-00007',
          'expected time: 5m0s = 4 batches × 30s (pod ready 30s + minReadySeconds 0s) + 3m0s of timed pauses',
          'waits for a person to resume: none',
        ),
    );
  });

  it('plans a new revision for a DaemonSet rolled out, and the rest after a retry for a halted one', () => {
    const rolled = planOf(agent({ steps: STEPS, topologyKey: ZONE }), all('new'), {
      revision: HASH,
      phase: 'Complete',
      step: 3,
      updatedNodes: 7,
    });
    expect(rolled.split('\n')[1]).toBe(`7 nodes run revision ${HASH}; a new revision would roll as follows:`);
    expect(rolled).toContain('step 1: 1 node (zone a): node-00001\n');
    expect(rolled).toContain('then zone b: 3 nodes in 2 batches of ≤2: node-00005, node-00006, node-00007\n');
    const halted: RolloutRecord = {
      revision: HASH,
      phase: 'Halted',
      step: 0,
      updatedNodes: 1,
      failedNodes: [
        { node: 'node-00001', reason: 'PodNotAvailable', message: 'not ready', at: '2026-01-02T00:06:00Z' },
      ],
      haltedAt: '2026-01-02T00:06:00Z',
      haltReason: 'TooManyFailedNodes',
      haltMessage: '1 nodes failed',
    };
    expect(planOf(agent({ steps: STEPS, topologyKey: ZONE }), ['new-', ...all('old').slice(1)], halted)).toBe(
      header() +
        lines(
          'rollout halted at 2026-01-02T00:06:00Z: 1 nodes failed',
          `1 of 7 nodes run revision ${HASH}; after kubectl everynode rollout retry the rollout would go as follows:`,
          'step 1: no node to move (1 of 7 reached already)',
          'step 2: pause until resumed',
          'step 3: 3 nodes (zone a) in 2 batches of ≤2: node-00002, node-00003, node-00004',
          'then zone b: 3 nodes in 2 batches of ≤2: node-00005, node-00006, node-00007',
          'expected time: 2m0s = 4 batches × 30s (pod ready 30s + minReadySeconds 0s) + 0s of timed pauses',
          'waits for a person to resume: step 2',
        ),
    );
  });

  it('says when the settings are invalid', () => {
    const text = planOf(agent({ steps: [{ nodes: 0 }], topologyKey: ZONE }), all('old'));
    expect(text.split('\n')[1]).toBe(
      'invalid, so nothing rolls until it is fixed: spec.updateStrategy.rollingUpdate.steps[0].nodes: must be an integer greater than or equal to 1',
    );
  });

  it('rolls a DaemonSet without a safe rollout in batches of maxSurge when it surges, and says when it is paused', () => {
    const ds = agent({ maxUnavailable: 0, maxSurge: 3, paused: true });
    expect(planOf(ds, all('old'))).toBe(
      lines(
        `daemonset.everynode.dev/agent, revision ${HASH}: 7 nodes; steps: none; topologyKey: none; maxUnavailable: 0; maxSurge: 3; minReadySeconds: 0; pod ready: 30s`,
        `0 of 7 nodes run revision ${HASH}; the rollout would go as follows:`,
        'then 7 nodes in 3 batches of ≤3: node-00001, node-00002, node-00003, node-00004, node-00005, node-00006, node-00007',
        'expected time: 1m30s = 3 batches × 30s (pod ready 30s + minReadySeconds 0s) + 0s of timed pauses',
        'waits for a person to resume: the DaemonSet (paused)',
      ),
    );
  });
});
