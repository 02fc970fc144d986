/**
 * The reconciler under random cluster changes interleaved with duplicated, reordered and replayed
 * messages and concurrent handler invocations: it always ends in the same, correct state and never
 * takes more than maxUnavailable available old pods away at once on the way.
 */
import type { V1DaemonSet, V1Node, V1Pod } from '@kubernetes/client-node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { targetNodeName } from '../../lib/core/daemon-pod.ts';
import type { WorkMessage } from '../../lib/messages/work-message.ts';
import { aDaemonSet, aNode } from '../builders.ts';
import {
  createDaemonSet,
  daemonSetMessage,
  isReady,
  nodeMessage,
  pairMessage,
  podsOf,
  storedDaemonSet,
  updateDaemonSet,
} from './reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from './reconcile-harness.ts';

type Change =
  | { type: 'addNode' }
  | { type: 'removeNode'; pick: number }
  | { type: 'label'; pick: number; ssd: boolean }
  | { type: 'taint'; pick: number; effect: 'NoSchedule' | 'NoExecute' | null }
  | { type: 'ready'; pick: number; ready: boolean }
  | { type: 'image' }
  | { type: 'deletePod'; pick: number };

const changeArb: fc.Arbitrary<Change> = fc.oneof(
  fc.constant<Change>({ type: 'addNode' }),
  fc.record({ type: fc.constant('removeNode' as const), pick: fc.nat() }),
  fc.record({ type: fc.constant('label' as const), pick: fc.nat(), ssd: fc.boolean() }),
  fc.record({
    type: fc.constant('taint' as const),
    pick: fc.nat(),
    effect: fc.constantFrom('NoSchedule' as const, 'NoExecute' as const, null),
  }),
  fc.record({ type: fc.constant('ready' as const), pick: fc.nat(), ready: fc.boolean() }),
  fc.constant<Change>({ type: 'image' }),
  fc.record({ type: fc.constant('deletePod' as const), pick: fc.nat() }),
);

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

const DAEMON_SETS = ['all', 'ssd'] as const;
const hasTaint = (node: V1Node, key: string, effect?: string) =>
  (node.spec?.taints ?? []).some((t) => t.key === key && (effect === undefined || t.effect === effect));

/** The expected placement, written independently of lib/core: shouldRun and shouldContinueRunning. */
function expected(ds: string, node: V1Node): { run: boolean; keep: boolean } {
  const selected = ds === 'all' || node.metadata?.labels?.disk === 'ssd';
  const noExecute = hasTaint(node, 'dedicated', 'NoExecute');
  const blocked =
    noExecute || hasTaint(node, 'dedicated', 'NoSchedule') || hasTaint(node, 'node.kubernetes.io/not-ready');
  return { run: selected && !blocked, keep: selected && !noExecute };
}

const imageOf = (pod: Readonly<V1Pod>) => pod.spec?.containers[0]?.image;
const livePods = (harness: Harness, ds: V1DaemonSet) =>
  podsOf(harness, ds.metadata?.uid ?? '').filter((pod) => !pod.metadata?.deletionTimestamp);

/** Violations of the final state: placement, revision and readiness per node, and status. */
function problems(harness: Harness): string[] {
  const found: string[] = [];
  const nodes = harness.sim.store.list('nodes') as unknown as V1Node[];
  for (const name of DAEMON_SETS) {
    const ds = storedDaemonSet(harness, 'default', name) as V1DaemonSet;
    const image = ds.spec?.template.spec?.containers[0]?.image;
    const pods = livePods(harness, ds);
    let desired = 0;
    for (const node of nodes) {
      const here = pods.filter((pod) => targetNodeName(pod) === node.metadata?.name);
      const { run, keep } = expected(name, node);
      if (run) desired++;
      if (run && (here.length !== 1 || imageOf(here[0] as V1Pod) !== image || !isReady(here[0] as V1Pod)))
        found.push(`${name} on ${node.metadata?.name}: ${here.map(imageOf)} (ready: ${here.map(isReady)})`);
      if (!run && here.length > (keep ? 1 : 0))
        found.push(`${name} on ${node.metadata?.name}: ${here.length} pods`);
    }
    const orphaned = pods.filter((pod) => !nodes.some((node) => node.metadata?.name === targetNodeName(pod)));
    if (orphaned.length > 0)
      found.push(
        `${name}: pods on vanished nodes ${orphaned.map((pod) => `${pod.metadata?.name}@${targetNodeName(pod)}`)}`,
      );
    const status = ds.status;
    if (
      status?.desiredNumberScheduled !== desired ||
      status.updatedNumberScheduled !== desired ||
      status.numberReady !== desired
    )
      found.push(`${name} status ${JSON.stringify(status)} != desired ${desired}`);
  }
  return found;
}

/**
 * The most nodes at once whose available old-revision pod the controller took away while no
 * available new pod replaced it yet (pods the test deleted, and nodes removed, tainted NoExecute or
 * NotReady, do not count).
 */
function watchBudget(harness: Harness, deletedByTest: Set<string>): { stop: () => number } {
  const replacing = new Set<string>();
  const seen = new Map<string, V1Pod>();
  let worst = 0;
  const unsubscribe = harness.sim.store.subscribe((event) => {
    if (event.key !== 'pods') return;
    const pod = event.object as unknown as V1Pod;
    const uid = pod.metadata?.uid ?? '';
    const before = seen.get(uid);
    const ds = storedDaemonSet(harness, 'default', 'all');
    const owner = pod.metadata?.ownerReferences?.find((ref) => ref.controller)?.uid;
    if (ds === undefined || owner !== ds.metadata?.uid) return;
    const node = harness.sim.nodes.get(targetNodeName(pod) ?? '');
    const gone = event.type === 'DELETED' || Boolean(pod.metadata?.deletionTimestamp);
    const current = ds.spec?.template.spec?.containers[0]?.image;
    seen.set(uid, pod);
    if (gone && before && isReady(before) && imageOf(before) !== current && !deletedByTest.has(uid) && node) {
      if (expected('all', node).keep && !hasTaint(node, 'node.kubernetes.io/not-ready'))
        replacing.add(node.metadata?.name ?? '');
    }
    for (const name of [...replacing]) {
      const at = harness.sim.nodes.get(name);
      const settled = livePods(harness, ds).some(
        (p) => targetNodeName(p) === name && isReady(p) && imageOf(p) === current,
      );
      if (!at || settled || !expected('all', at).run) replacing.delete(name);
    }
    worst = Math.max(worst, replacing.size);
  });
  return {
    stop: () => {
      unsubscribe();
      return worst;
    },
  };
}

interface Run {
  readonly harness: Harness;
  readonly history: WorkMessage[];
  readonly held: WorkMessage[];
  readonly deletedByTest: Set<string>;
  version: number;
  added: number;
}

/** A small seeded PRNG (mulberry32), so a failing run replays exactly. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(items: readonly T[], index: number): T | undefined =>
  items[index % Math.max(1, items.length)];

/** Applies one change to the cluster and returns the work messages the router would send for it. */
function apply(run: Run, change: Change): WorkMessage[] {
  const { harness } = run;
  const names = harness.sim.nodes.names();
  const name = 'pick' in change ? pick(names, change.pick) : undefined;
  const daemonSets = DAEMON_SETS.map((ds) => storedDaemonSet(harness, 'default', ds) as V1DaemonSet);
  switch (change.type) {
    case 'addNode': {
      const added = `extra-${++run.added}`;
      harness.sim.nodes.add(added);
      return [nodeMessage(added)];
    }
    case 'removeNode':
      if (!name || names.length <= 2) return [];
      harness.sim.nodes.remove(name);
      return [nodeMessage(name)];
    case 'label':
      if (!name) return [];
      harness.sim.nodes.label(name, { disk: change.ssd ? 'ssd' : null });
      return [nodeMessage(name)];
    case 'taint':
      if (!name) return [];
      if (change.effect === null) harness.sim.nodes.untaint(name, 'dedicated');
      else harness.sim.nodes.taint(name, { key: 'dedicated', value: 'x', effect: change.effect });
      return [nodeMessage(name)];
    case 'ready':
      if (!name) return [];
      harness.sim.nodes.setReady(name, change.ready);
      return [nodeMessage(name)];
    case 'image': {
      run.version++;
      const ds = updateDaemonSet(harness, 'default', 'all', (stored) => {
        const container = stored.spec?.template.spec?.containers[0];
        if (container) container.image = `busybox:1.${run.version}`;
      });
      return [daemonSetMessage(ds)];
    }
    case 'deletePod': {
      const pods = daemonSets.flatMap((ds) => livePods(harness, ds));
      const victim = pick(pods, change.pick);
      if (!victim) return [];
      run.deletedByTest.add(victim.metadata?.uid ?? '');
      harness.sim.store.delete('pods', 'default', victim.metadata?.name ?? '');
      const owner = daemonSets.find((ds) => ds.metadata?.uid === victim.metadata?.ownerReferences?.[0]?.uid);
      return owner ? [pairMessage(owner, targetNodeName(victim) ?? ''), daemonSetMessage(owner)] : [];
    }
  }
}

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
          const random = seededRandom(seed);
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
