/**
 * The node gate property's cluster changes (test/e2e/node-gates-property.test.ts): nodes joining
 * with the gate taints, gating pods deleted, failed or briefly unready, nodes NotReady, labels, other
 * controllers' taints, gating images that never become ready, and duplicated and reordered work —
 * messages sent straight to the work queue, and windows of the journal replayed.
 */
import fc from 'fast-check';
import { replayJournal } from '../../lib/local/local-pipeline-replay.ts';
import type { WorkMessage } from '../../lib/messages/work-message.ts';
import { readJournal } from '../../lib/queue/journal.ts';
import { sqsWorkSender } from '../../lib/queue/sqs-senders.ts';
import type { GateTimeline } from './gate-timeline.ts';
import {
  BOOTSTRAP_KEY,
  CONTINUOUS_KEY,
  GATING,
  type GatingSpec,
  gatingPods,
  OTHER_TAINT,
} from './node-gates-model.ts';
import type { PipelineWorld } from './pipeline-harness.ts';

/** One change to the cluster, or to the delivery of work. */
export type Change =
  | { type: 'join'; ssd: boolean; continuous: boolean; bootstrap: boolean; other: boolean }
  | { type: 'deletePod'; pick: number }
  | { type: 'failPod'; pick: number }
  | { type: 'flipReady'; pick: number }
  | { type: 'nodeReady'; pick: number; ready: boolean }
  | { type: 'label'; pick: number; ssd: boolean }
  | { type: 'otherTaint'; pick: number }
  | { type: 'image'; pick: number; ready: boolean }
  | { type: 'inject'; picks: number[]; duplicate: boolean }
  | { type: 'replay'; from: number; length: number };

/**
 * A node joining: labelled disk=ssd or not, registering with the gate taints of either key, and
 * with another controller's taint or not.
 */
export const joinArb = fc.record({
  type: fc.constant('join' as const),
  ssd: fc.boolean(),
  continuous: fc.boolean(),
  bootstrap: fc.boolean(),
  other: fc.boolean(),
});

export const changeArb: fc.Arbitrary<Change> = fc.oneof(
  { weight: 2, arbitrary: joinArb },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('deletePod' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('failPod' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('flipReady' as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({ type: fc.constant('nodeReady' as const), pick: fc.nat(), ready: fc.boolean() }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ type: fc.constant('label' as const), pick: fc.nat(), ssd: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('otherTaint' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({ type: fc.constant('image' as const), pick: fc.nat(), ready: fc.boolean() }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      type: fc.constant('inject' as const),
      picks: fc.array(fc.nat(), { minLength: 1, maxLength: 6 }),
      duplicate: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ type: fc.constant('replay' as const), from: fc.nat(), length: fc.nat() }),
  },
);

/** A run's scenario. */
export type Scenario = typeof scenarioArb extends fc.Arbitrary<infer S> ? S : never;

/**
 * A run: which gating DaemonSets start with an image that never becomes ready, the nodes that join
 * first, then changes, each followed by a settle and a check or not (the last one always is).
 */
export const scenarioArb = fc.record({
  unready: fc.subarray(GATING.map((g) => g.name)),
  joins: fc.array(joinArb, { minLength: 1, maxLength: 3 }),
  changes: fc.array(fc.tuple(changeArb, fc.boolean()), { minLength: 1, maxLength: 4 }),
});

/** The state of one property run. */
export interface Run {
  readonly world: PipelineWorld;
  readonly timeline: GateTimeline;
  readonly random: () => number;
  /** Nodes that registered with the BootstrapOnly key. */
  readonly bootstrapped: Set<string>;
  joined: number;
  others: number;
  replays: number;
  injected: number;
  images: number;
}

const pick = <T>(items: readonly T[], index: number): T | undefined =>
  items.length === 0 ? undefined : items[index % items.length];

/** Every live gating pod, by name, sorted. */
export function liveGatingPods(run: Run) {
  const names = run.world.sim.nodes.names();
  return GATING.flatMap((g) => names.flatMap((node) => gatingPods(run.world.sim, g.name, node)))
    .filter((pod) => pod.metadata?.deletionTimestamp === undefined)
    .sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
}

function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

/** Applies one change. */
export async function apply(run: Run, change: Change): Promise<void> {
  const { sim } = run.world;
  const nodes = sim.nodes.names();
  const node = 'pick' in change ? pick(nodes, change.pick) : undefined;
  switch (change.type) {
    case 'join': {
      const name = `joined-${++run.joined}`;
      const keys = [
        ...(change.continuous ? [CONTINUOUS_KEY] : []),
        ...(change.bootstrap ? [BOOTSTRAP_KEY] : []),
      ];
      if (change.bootstrap) run.bootstrapped.add(name);
      const other = { key: `${OTHER_TAINT}-${++run.others}`, value: 'x', effect: 'PreferNoSchedule' };
      sim.nodes.add(name, {
        labels: change.ssd ? { disk: 'ssd' } : {},
        taints: [...keys.map((key) => ({ key, effect: 'NoSchedule' })), ...(change.other ? [other] : [])],
      });
      return;
    }
    case 'deletePod': {
      const pod = pick(liveGatingPods(run), change.pick);
      if (pod) sim.store.delete('pods', 'default', pod.metadata?.name ?? '');
      return;
    }
    case 'failPod':
    case 'flipReady': {
      const pod = pick(liveGatingPods(run), change.pick);
      if (!pod) return;
      // Written as a kubelet would: a container that failed for good, or a readiness probe failing
      // once (the kubelet reports its own view again at its next sync).
      sim.store.mutate(
        'pods',
        'default',
        pod.metadata?.name ?? '',
        (obj) => {
          const status = { ...(obj.status as Record<string, unknown>) } as {
            phase?: string;
            conditions?: Array<{ type: string; status: string }>;
          };
          if (change.type === 'failPod') status.phase = 'Failed';
          status.conditions = (status.conditions ?? []).map((c) =>
            c.type === 'Ready' || c.type === 'ContainersReady' ? { ...c, status: 'False' } : c,
          );
          obj.status = status;
        },
        { subresource: 'status' },
      );
      return;
    }
    case 'nodeReady':
      if (node) sim.nodes.setReady(node, change.ready);
      return;
    case 'label':
      if (node) sim.nodes.label(node, { disk: change.ssd ? 'ssd' : null });
      return;
    case 'otherTaint':
      if (node)
        sim.nodes.taint(node, {
          key: `${OTHER_TAINT}-${++run.others}`,
          value: 'x',
          effect: 'PreferNoSchedule',
        });
      return;
    case 'image': {
      const spec = pick(GATING, change.pick);
      if (spec) setImage(run, spec.name, change.ready);
      return;
    }
    case 'inject':
      await inject(run, change.picks, change.duplicate);
      return;
    case 'replay':
      await replay(run, change.from, change.length);
      return;
  }
}

/** An image whose containers become ready, or one whose containers never do (`unready` sim marker). */
export const imageFor = (ready: boolean, tag: number) =>
  ready ? `busybox:1.${tag}` : `everynode.dev/sim:unready-${tag}`;
const isReadyImage = (image: string) => !image.startsWith('everynode.dev/sim:unready');

/**
 * Rolls the gating DaemonSet `name` to a new image: one that becomes ready, or one that never does
 * (a readiness probe that never passes), which keeps its pods unavailable on the nodes it reaches.
 */
export function setImage(run: Run, name: string, ready: boolean): void {
  const { store } = run.world.sim;
  const ds = store.get('everynode.dev/daemonsets', 'default', name);
  if (!ds) return;
  const spec = ds.spec as { template: { spec: { containers: Array<{ image: string }> } } };
  const container = spec.template.spec.containers[0];
  if (container === undefined || isReadyImage(container.image) === ready) return;
  container.image = imageFor(ready, ++run.images);
  store.update('everynode.dev/daemonsets', ds);
}

/**
 * Sends a node message and a pair message for each picked node straight to the work queue,
 * duplicated or not, shuffled, without hints, each with a cause of its own (a replay, so that SQS
 * does not drop it as a duplicate).
 */
async function inject(run: Run, picks: readonly number[], duplicate: boolean): Promise<void> {
  const nodes = run.world.sim.nodes.names();
  const targets: Array<{ node: string; spec: GatingSpec | undefined }> = picks.map((p) => ({
    node: pick(nodes, p) ?? '',
    spec: pick(GATING, p),
  }));
  const twice = duplicate ? [...targets, ...targets] : targets;
  const messages = shuffle(twice, run.random).flatMap(({ node, spec }): WorkMessage[] => {
    const cause = () => ({
      type: 'replay' as const,
      replayName: 'gate-property',
      eventId: `inject-${++run.injected}`,
    });
    const ds = spec && run.world.sim.store.get('everynode.dev/daemonsets', 'default', spec.name);
    const daemonSet = { namespace: 'default', name: spec?.name ?? '', uid: ds?.metadata.uid ?? '' };
    return [
      { v: 1, kind: 'node', cause: cause(), node: { name: node } },
      ...(ds
        ? [{ v: 1 as const, kind: 'pair' as const, cause: cause(), daemonSet, node: { name: node } }]
        : []),
    ];
  });
  const work = sqsWorkSender(run.world.pipeline.queues.sqs, run.world.pipeline.queues.urls.work);
  await work.send(messages.map((message) => ({ message })));
}

/** Replays a window of the journal: every trigger in it once more, in order, as a replay. */
async function replay(run: Run, from: number, length: number): Promise<void> {
  const times: number[] = [];
  for await (const entry of readJournal(run.world.pipeline.journalPath)) {
    const at = Date.parse(entry.time);
    if (times.at(-1) !== at) times.push(at);
  }
  if (times.length === 0) return;
  const start = from % times.length;
  const end = Math.min(times.length, start + 1 + (length % times.length));
  await replayJournal({
    journalPath: run.world.pipeline.journalPath,
    window: {
      since: new Date(times[start] as number),
      ...(end < times.length ? { until: new Date(times[end] as number) } : {}),
    },
    replayName: `gate-property-${++run.replays}`,
    deliver: (envelopes) => run.world.pipeline.bus.deliver(envelopes),
  });
}
