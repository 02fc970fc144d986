/**
 * The reconciler under random cluster changes interleaved with duplicated, reordered and replayed
 * messages and concurrent handler invocations: it always ends in the same, correct state and never
 * takes more than maxUnavailable available old pods away at once on the way.
 */
import type { V1DaemonSet, V1Node } from '@kubernetes/client-node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { targetNodeName } from '../../lib/core/daemon-pod.ts';
import type { WorkMessage } from '../../lib/messages/work-message.ts';
import { mulberry32 } from '../../lib/sim/faults.ts';
import { aDaemonSet, aNode } from '../support/builders.ts';
import {
  createDaemonSet,
  daemonSetMessage,
  isReady,
  nodeMessage,
  podsOf,
  storedDaemonSet,
} from '../support/reconcile-cluster.ts';
import { startReconcileHarness } from '../support/reconcile-harness.ts';
import { apply, changeArb, type Run } from './reconcile-property-changes.ts';
import {
  DAEMON_SETS,
  hasTaint,
  imageOf,
  livePods,
  problems,
  watchBudget,
} from './reconcile-property-model.ts';

/** How each batch of messages is mangled before it is sent. */
const deliveryArb: fc.Arbitrary<Delivery> = fc.record({
  duplicate: fc.boolean(),
  shuffle: fc.boolean(),
  replay: fc.nat({ max: 3 }),
  holdBack: fc.boolean(),
  pauseMs: fc.nat({ max: 120 }),
});

/** How one batch is mangled. */
interface Delivery {
  readonly duplicate: boolean;
  readonly shuffle: boolean;
  readonly replay: number;
  readonly holdBack: boolean;
  readonly pauseMs: number;
}

const scenarioArb = fc.array(fc.tuple(changeArb, deliveryArb), { minLength: 2, maxLength: 6 });

/** Sends `messages` duplicated, shuffled, with replays of older messages, or holds them back. */
async function deliver(run: Run, messages: WorkMessage[], delivery: Delivery, random: () => number) {
  run.history.push(...messages);
  if (delivery.holdBack) {
    run.held.push(...messages);
    return;
  }
  const batch = [...run.held.splice(0), ...messages, ...(delivery.duplicate ? messages : [])];
  for (let i = 0; i < delivery.replay && run.history.length > 0; i++) {
    batch.push(run.history[Math.floor(random() * run.history.length)] as WorkMessage);
  }
  if (delivery.shuffle) {
    for (let i = batch.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [batch[i], batch[j]] = [batch[j] as WorkMessage, batch[i] as WorkMessage];
    }
  }
  // Replays and duplicates get causes of their own, or SQS would drop them as duplicates.
  await run.harness.send(
    ...batch.map(
      (message, i) =>
        ({
          ...message,
          cause: { type: 'replay', replayName: 'property', eventId: `${Date.now()}-${i}` },
        }) as WorkMessage,
    ),
  );
}

/**
 * Heals the cluster as an operator would, then waits for the right state. An unavailable pod on a
 * node that holds it counts against maxUnavailable (upstream rollingUpdate counts every node with a
 * pod), so with maxUnavailable 1 two situations rightly stall a rollout, as upstream's would: a
 * NotReady node (made Ready here), and a pod created from a fresh-enough view just before its node
 * got a NoSchedule taint, which the scheduler never binds and the controller keeps
 * (shouldContinueRunning; deleted here, as `kubectl delete pod` would).
 */
async function converge(run: Run): Promise<string[]> {
  const { harness } = run;
  for (const name of harness.sim.nodes.names()) harness.sim.nodes.setReady(name, true);
  for (const name of DAEMON_SETS) {
    const ds = storedDaemonSet(harness, 'default', name) as V1DaemonSet;
    for (const pod of livePods(harness, ds)) {
      const node = harness.sim.nodes.get(targetNodeName(pod) ?? '');
      if (pod.spec?.nodeName || !node || !hasTaint(node, 'dedicated')) continue;
      harness.sim.store.delete('pods', 'default', pod.metadata?.name ?? '');
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  let found: string[] = [];
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    await run.harness.quiet(30_000);
    found = problems(run.harness);
    if (found.length === 0) return found;
    // What the relay and router would send as the cluster settles: the nodes and the DaemonSets.
    const daemonSets = DAEMON_SETS.map((ds) => storedDaemonSet(run.harness, 'default', ds) as V1DaemonSet);
    const nodes = run.harness.sim.nodes.names().map((n) => nodeMessage(n));
    await run.harness.send(...nodes, ...daemonSets.map((ds) => daemonSetMessage(ds)));
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  return found;
}

describe('the reconciler under random changes and message chaos', () => {
  it('always converges to one up-to-date pod per eligible node with the status right, within the budget', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, fc.integer(), async (scenario, seed) => {
        const harness = await startReconcileHarness({
          nodes: [aNode('n1'), aNode('n2', { labels: { disk: 'ssd' } }), aNode('n3')],
          concurrency: 4,
          batchSize: 3,
          podDeletions: true,
        });
        try {
          const run: Run = {
            harness,
            history: [],
            held: [],
            deletedByTest: new Set(),
            version: 36,
            added: 0,
          };
          const podSpec = { terminationGracePeriodSeconds: 0 };
          const all = createDaemonSet(
            harness,
            aDaemonSet('all', {
              podSpec,
              updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
            }),
          );
          const ssd = createDaemonSet(harness, aDaemonSet('ssd', { podSpec, nodeSelector: { disk: 'ssd' } }));
          await harness.send(daemonSetMessage(all), daemonSetMessage(ssd));
          await harness.quiet();
          const budget = watchBudget(harness, run.deletedByTest);
          const random = mulberry32(seed);
          for (const [change, delivery] of scenario) {
            await deliver(run, apply(run, change), delivery, random);
            await new Promise((resolve) => setTimeout(resolve, delivery.pauseMs));
          }
          await deliver(
            run,
            [],
            { duplicate: false, shuffle: false, replay: 0, holdBack: false, pauseMs: 0 },
            random,
          );
          const left = await converge(run);
          if (process.env.PROPERTY_DEBUG && left.length > 0) {
            for (const node of harness.sim.store.list('nodes') as unknown as V1Node[])
              console.log(
                'NODE',
                node.metadata?.name,
                JSON.stringify(node.spec?.taints ?? []),
                JSON.stringify(node.metadata?.labels?.disk),
              );
            for (const ds of DAEMON_SETS) {
              const d = storedDaemonSet(harness, 'default', ds) as V1DaemonSet;
              for (const pod of podsOf(harness, d.metadata?.uid ?? ''))
                console.log(
                  'POD',
                  ds,
                  targetNodeName(pod),
                  imageOf(pod),
                  isReady(pod),
                  pod.metadata?.deletionTimestamp,
                  pod.status?.phase,
                );
            }
          }
          expect(left).toEqual([]);
          const worst = budget.stop();
          if (process.env.PROPERTY_DEBUG)
            console.log('worst', worst, JSON.stringify(scenario.map(([c]) => c.type)));
          expect(worst).toBeLessThanOrEqual(1);
        } finally {
          await harness.stop();
        }
      }),
      {
        numRuns: Number(process.env.PROPERTY_RUNS ?? 8),
        endOnFailure: true,
        ...(process.env.PROPERTY_SEED
          ? { seed: Number(process.env.PROPERTY_SEED), path: process.env.PROPERTY_PATH ?? '0' }
          : {}),
      },
    );
  }, 120_000);
});
