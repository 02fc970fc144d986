/**
 * A halted rollout stays halted through replays (docs/design.md, 30. Rollouts that stop themselves;
 * 21. Replay, redrive and resync): with a crash-looping revision halted by its health rules on the
 * apps/v1 annotation record, replaying any window of the journal, any number of times, overlapping
 * or not, with stale requests on the DaemonSet (a retry naming a wrong halt or another revision, a
 * resume of any step), leaves the same halt stored, gives the bad revision to no further node, and
 * records no RolloutHalted event again.
 */
import type { CoreV1Event, V1DaemonSet } from '@kubernetes/client-node';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aDaemonSet, aNode, creatableDaemonSet } from '../support/builders.ts';
import { journalTimes, replayWindow } from '../support/journal-replays.ts';
import { type PipelineWorld, startPipelineWorld } from '../support/pipeline-harness.ts';

const NAME = 'sensor';
const GOOD = 'busybox:1.36';
const BAD = 'everynode.dev/sim:crashloop';
const NODES = ['n1', 'n2', 'n3', 'n4', 'n5'];
const RESUME = 'everynode.dev/rollout-resume';
const RETRY = 'everynode.dev/rollout-retry';

interface RolloutStatus {
  revision?: string;
  phase?: string;
  haltedAt?: string;
  retried?: string;
  failedNodes?: { node: string }[];
}

const stored = (world: PipelineWorld) =>
  world.sim.store.get('apps/daemonsets', 'default', NAME) as unknown as V1DaemonSet;
const recordOf = (world: PipelineWorld): RolloutStatus =>
  JSON.parse(stored(world).metadata?.annotations?.['everynode.dev/rollout-status'] ?? '{}') as RolloutStatus;
/** The nodes running (or starting) a pod of `image`. */
const nodesOn = (world: PipelineWorld, image: string) =>
  world
    .pods('default')
    .filter((p) => p.owner === NAME && p.image === image)
    .map((p) => p.node)
    .sort();
const haltedEvents = (world: PipelineWorld) =>
  (world.sim.store.list('events') as unknown as CoreV1Event[])
    .filter((e) => e.involvedObject.name === NAME && e.reason === 'RolloutHalted')
    .reduce((sum, e) => sum + (e.count ?? 1), 0);
const annotate = (world: PipelineWorld, annotations: { [key: string]: string | null }) =>
  world.sim.store.patch('apps/daemonsets', 'default', NAME, 'merge', { metadata: { annotations } });

/** A stale request written before the replays: none of them names the stored halt. */
const requestArb = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  fc.record({ kind: fc.constant('wrongHalt' as const), seconds: fc.integer({ min: 1, max: 3600 }) }),
  fc.constant({ kind: 'otherRevision' as const }),
  fc.record({ kind: fc.constant('resume' as const), step: fc.integer({ min: 0, max: 3 }) }),
);
const scenarioArb = fc.record({
  from: fc.nat(),
  length: fc.nat(),
  times: fc.integer({ min: 1, max: 3 }),
  overlap: fc.boolean(),
  request: requestArb,
});

describe('replaying the journal while a safe rollout is halted', () => {
  let world: PipelineWorld;
  let halt: RolloutStatus;
  let frozen: string[];
  let stableRevision: string;
  let replays = 0;

  beforeAll(async () => {
    world = await startPipelineWorld({
      managedKind: 'apps/v1',
      nodes: NODES.map((name) => aNode(name)),
      timeScale: 0.05,
    });
    const ds = aDaemonSet(NAME, {
      image: GOOD,
      podSpec: { terminationGracePeriodSeconds: 0 },
      annotations: {
        'everynode.dev/rollout-steps': JSON.stringify([{ nodes: 2 }]),
        'everynode.dev/rollout-health': JSON.stringify({ podReadySeconds: 3, maxFailedNodes: 0 }),
      },
    });
    world.sim.store.create('apps/daemonsets', creatableDaemonSet(ds, 'apps/v1'));
    await world.until('the first rollout is complete', () => recordOf(world).phase === 'Complete', 30_000);
    stableRevision = recordOf(world).revision ?? '';
    world.sim.store.patch('apps/daemonsets', 'default', NAME, 'json', [
      { op: 'replace', path: '/spec/template/spec/containers/0/image', value: BAD },
    ]);
    await world.until('the rollout halts', () => recordOf(world).phase === 'Halted', 30_000);
    await world.quiet();
    halt = recordOf(world);
    frozen = nodesOn(world, BAD);
  }, 90_000);
  afterAll(async () => world?.stop());

  it('keeps the halt and the nodes it reached, whatever is replayed and requested', async () => {
    // The step of two nodes bounds the halted revision (no node was in flight once quiet).
    expect(frozen.length).toBeGreaterThan(0);
    expect(frozen.length).toBeLessThanOrEqual(2);
    expect(nodesOn(world, GOOD)).toHaveLength(NODES.length - frozen.length);
    const events = haltedEvents(world);
    expect(events).toBeGreaterThan(0);
    const journal = await journalTimes(world);
    await fc.assert(
      fc.asyncProperty(scenarioArb, async ({ from, length, times, overlap, request }) => {
        const revision = halt.revision ?? '';
        if (request.kind === 'wrongHalt') {
          const wrong = new Date(Date.parse(halt.haltedAt ?? '') - request.seconds * 1000);
          annotate(world, { [RETRY]: `${revision}/${wrong.toISOString().replace(/\.\d{3}Z$/, 'Z')}` });
        }
        if (request.kind === 'otherRevision')
          annotate(world, { [RETRY]: `${stableRevision}/${halt.haltedAt}` });
        if (request.kind === 'resume') annotate(world, { [RESUME]: `${revision}/${request.step}` });
        await replayWindow(world, journal, { from, length, times, overlap }, () => `halted-${++replays}`);
        const record = recordOf(world);
        expect(record).toMatchObject({ revision, phase: 'Halted', haltedAt: halt.haltedAt });
        expect(record.retried).toBe(halt.retried);
        expect(nodesOn(world, BAD)).toEqual(frozen);
        expect(haltedEvents(world)).toBe(events);
        annotate(world, { [RETRY]: null, [RESUME]: null });
      }),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 12), endOnFailure: true },
    );
  }, 120_000);
});
