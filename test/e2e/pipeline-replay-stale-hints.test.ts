/**
 * A replay never acts on the facts its triggers carried: a node tainted NoExecute and untainted
 * again keeps the daemon pods it runs now when the journal (whose triggers hint the tainted node,
 * younger than the hint window) is replayed through `everynode replay`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyDemoDaemonSets } from '../../lib/cli/demo-daemon-sets.ts';
import { writePipelineState } from '../../lib/cli/pipeline-state.ts';
import { runReplayCommand } from '../../lib/cli/replay-command.ts';
import { type PipelineWorld, startPipelineWorld } from '../support/pipeline-harness.ts';

const NODE = 'worker-ssd';

/** The live daemon pods on `node`, as `owner@node#uid`, sorted. */
function podsOn(world: PipelineWorld, node: string): string[] {
  return world
    .pods()
    .filter((p) => p.node === node)
    .map((p) => `${p.owner}@${p.node}#${p.uid}`)
    .sort();
}

/** True when `node` runs both demo pods, Running. */
function bothRunning(world: PipelineWorld, node: string): boolean {
  const pods = world.pods().filter((p) => p.node === node);
  return pods.length === 2 && pods.every((p) => p.phase === 'Running');
}

describe('everynode replay after a node changed back', () => {
  let world: PipelineWorld;

  beforeAll(async () => {
    world = await startPipelineWorld({ managedKind: 'apps/v1', secured: true });
    applyDemoDaemonSets(world.sim.store, 'apps/v1');
    await world.until('the seed DaemonSets are placed', () => world.placement().length === 7);
    await world.until('worker-ssd runs both pods', () => bothRunning(world, NODE));
    await world.quiet();
    await writePipelineState(world.stateDir, {
      pid: process.pid,
      startedAt: new Date().toISOString(),
      sqsEndpoint: world.pipeline.queues.endpoint,
      queues: world.pipeline.queues.urls,
      journalPath: world.pipeline.journalPath,
      kubeconfigPath: world.kubeconfigPath,
      managedKind: 'apps/v1',
    });
  });
  afterAll(async () => world.stop());

  it('leaves the pods of a node untainted again untouched', async () => {
    world.sim.nodes.taint(NODE, { key: 'x', value: 'y', effect: 'NoExecute' });
    await world.until('the pods left worker-ssd', () => podsOn(world, NODE).length === 0);
    world.sim.nodes.untaint(NODE, 'x', 'NoExecute');
    await world.until('both pods are back on worker-ssd, Running', () => bothRunning(world, NODE), 30_000);
    await world.quiet();
    const before = podsOn(world, NODE);
    const everywhere = world.placement();
    const deletes = world.sim.counters.total({ verb: 'delete', resource: 'pods' });

    const out: string[] = [];
    const code = await runReplayCommand(
      ['--journal', `${world.stateDir}/journal.jsonl`, '--state-dir', world.stateDir],
      { stdout: (text) => out.push(text), stderr: (text) => out.push(text), isTTY: false },
    );
    expect(code).toBe(0);
    expect(out.join('')).toMatch(/re-injected \d+ trigger/);
    await world.quiet();
    // Anything the replay got wrong would show within a pod's start-up time.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await world.quiet();

    expect(podsOn(world, NODE)).toEqual(before);
    expect(world.placement()).toEqual(everywhere);
    expect(world.sim.counters.total({ verb: 'delete', resource: 'pods' })).toBe(deletes);
  });
});
