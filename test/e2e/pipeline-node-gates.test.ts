/**
 * Node readiness gates through the whole local pipeline (relay → bus → router → work queue →
 * reconcile) under least privilege, with kubectl as the user's client: nodes join tainted, the
 * gating `everynode.dev/v1` DaemonSets' pods land and become ready, and the taint goes — or stays,
 * or comes back — as docs/design.md, 26. Node readiness gates, says. Times come from the store's
 * change feed (gate-timeline.ts); what the user sees is read with kubectl.
 */
import type { CoreV1Event, V1Node, V1Pod, V1Taint } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { droppedTaints, type GateTimeline, taintText, watchGates } from '../support/gate-timeline.ts';
import { kubectlBinary, type PipelineWorld, startPipelineWorld } from '../support/pipeline-harness.ts';

const NAMESPACE = 'gates';
const POOL = 'gates.example/pool';
const DEFAULT_KEY = 'everynode.dev/not-ready';
const CNI_KEY = 'example.com/cni-not-ready';
const SEC_KEY = 'example.com/sec-not-ready';
const DRY_KEY = 'example.com/dry-not-ready';

interface Gate {
  readonly mode: 'BootstrapOnly' | 'Continuous';
  readonly taintKey?: string;
  readonly timeoutSeconds?: number;
  readonly dryRun?: boolean;
}

/** How the gating DaemonSet's pods run: their image (sim markers) and grace period. */
interface PodRun {
  readonly image?: string;
  readonly gracePeriodSeconds?: number;
}

/** A gating everynode.dev/v1 DaemonSet on the nodes of `pool`. */
function gatingDaemonSet(name: string, pool: string, nodeReadiness: Gate, run: PodRun = {}) {
  return {
    apiVersion: 'everynode.dev/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace: NAMESPACE },
    spec: {
      selector: { matchLabels: { app: name } },
      nodeReadiness,
      template: {
        metadata: { labels: { app: name } },
        spec: {
          nodeSelector: { [POOL]: pool },
          terminationGracePeriodSeconds: run.gracePeriodSeconds ?? 1,
          containers: [{ name, image: run.image ?? 'busybox:1.36' }],
        },
      },
    },
  };
}

/** An application pod without tolerations that can only go to `node`. */
function appPod(name: string, node: string) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NAMESPACE },
    spec: {
      nodeSelector: { 'kubernetes.io/hostname': node },
      containers: [{ name: 'app', image: 'nginx:1.27' }],
    },
  };
}

/** A node registering with the NoSchedule taints `keys`, in `pool`. */
function joiningNode(name: string, pool: string, keys: readonly string[]) {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: { 'kubernetes.io/os': 'linux', 'kubernetes.io/hostname': name, [POOL]: pool },
    },
    spec: { taints: keys.map((key) => ({ key, effect: 'NoSchedule' })) },
  };
}

describe.runIf(kubectlBinary)('node readiness gates through the local pipeline, with kubectl', () => {
  let world: PipelineWorld;
  let timeline: GateTimeline;

  const apply = (object: unknown) => world.kubectl(['apply', '-f', '-'], JSON.stringify(object));
  const getNode = async (name: string) =>
    JSON.parse(await world.kubectl(['get', 'node', name, '-o', 'json'])) as V1Node;
  const getPod = async (name: string) =>
    JSON.parse(await world.kubectl(['-n', NAMESPACE, 'get', 'pod', name, '-o', 'json'])) as V1Pod;
  /** The node's taints as `kubectl get node -o jsonpath='{.spec.taints}'` prints them. */
  const taintsOf = async (name: string) => {
    const text = await world.kubectl(['get', 'node', name, '-o', 'jsonpath={.spec.taints}']);
    return text.trim() === '' ? [] : (JSON.parse(text) as V1Taint[]);
  };
  const gateTaintsOf = async (name: string) => (await taintsOf(name)).map(taintText);
  const conditionOf = async (name: string) =>
    (await getNode(name)).status?.conditions?.find((c) => c.type === 'everynode.dev/DaemonSetsReady');
  /** The Events about the node, as `kubectl get events` lists them. */
  const eventsOf = async (name: string, reason: string) => {
    const list = JSON.parse(await world.kubectl(['get', 'events', '-A', '-o', 'json'])) as {
      items: CoreV1Event[];
    };
    return list.items.filter(
      (e) => e.involvedObject.kind === 'Node' && e.involvedObject.name === name && e.reason === reason,
    );
  };
  /** The live pod of the gating DaemonSet `owner` on `node`, from the store. */
  const gatingPodOn = (node: string, owner: string) =>
    world.pods(NAMESPACE).find((p) => p.owner === owner && p.node === node);
  const storeNode = (name: string) => world.sim.nodes.get(name);
  const hasTaint = (name: string, key: string) =>
    (storeNode(name)?.spec?.taints ?? []).some((t) => t.key === key && t.effect === 'NoSchedule');

  beforeAll(async () => {
    world = await startPipelineWorld({ managedKind: 'everynode.dev/v1', secured: true, nodes: 2 });
    timeline = watchGates(world.sim);
    await world.kubectl(['create', 'namespace', NAMESPACE]);
    await Promise.all([
      apply(gatingDaemonSet('agent', 'bootstrap', { mode: 'BootstrapOnly' })),
      // Its pods ignore SIGTERM: a deleted one stays Terminating for its grace period (5 s here),
      // and its replacement waits for it, so the restored gate can be looked at with kubectl.
      apply(
        gatingDaemonSet(
          'cni',
          'continuous',
          { mode: 'Continuous', taintKey: CNI_KEY },
          { image: 'everynode.dev/sim:ignore-sigterm', gracePeriodSeconds: 50 },
        ),
      ),
      apply(
        gatingDaemonSet(
          'sec',
          'crash',
          { mode: 'BootstrapOnly', taintKey: SEC_KEY, timeoutSeconds: 2 },
          { image: 'everynode.dev/sim:crashloop' },
        ),
      ),
      apply(gatingDaemonSet('dry', 'dry', { mode: 'BootstrapOnly', taintKey: DRY_KEY, dryRun: true })),
    ]);
    await world.quiet();
  }, 60_000);
  afterAll(async () => {
    timeline?.stop();
    await world?.stop();
  });

  it('keeps a joining node from workloads until its gating pod is ready, then lifts the gate at once', async () => {
    // The application pod waits for its node first: it can only go to gate-1.
    await apply(appPod('app-gated', 'gate-1'));
    await apply(joiningNode('gate-1', 'bootstrap', [DEFAULT_KEY]));
    await world.until('the gate of gate-1 is lifted', () => !hasTaint('gate-1', DEFAULT_KEY));
    await world.until(
      'app-gated runs on gate-1',
      async () => (await getPod('app-gated')).status?.phase === 'Running',
    );

    expect(await gateTaintsOf('gate-1')).not.toContain(`${DEFAULT_KEY}:NoSchedule`);
    expect(await conditionOf('gate-1')).toMatchObject({ status: 'True', reason: 'DaemonSetsReady' });
    const lifted = await eventsOf('gate-1', 'NodeReadinessGateLifted');
    expect(lifted.map((e) => e.message)).toEqual([
      `Lifted taint ${DEFAULT_KEY}:NoSchedule: every gating DaemonSet that should run here has an available pod: ${NAMESPACE}/agent`,
    ]);
    const app = await getPod('app-gated');
    expect(app.spec?.nodeName).toBe('gate-1');

    // The story in order: the node joined tainted; the application pod was refused for the taint;
    // the gating pod became ready; the taint went; only then was the application pod bound.
    const joinedAt = timeline.joinedAt('gate-1') ?? Number.NaN;
    const [liftAt, ...moreLifts] = timeline.liftedAt('gate-1', DEFAULT_KEY);
    const agent = timeline.podsOn('gate-1').find((p) => p.owner === 'agent');
    const readyAt = agent?.readyAt[0] ?? Number.NaN;
    const appMoments = timeline.pod(NAMESPACE, 'app-gated');
    expect(timeline.taintVersions('gate-1')[0]?.taints).toEqual([`${DEFAULT_KEY}:NoSchedule`]);
    expect(appMoments?.unschedulable.some((m) => m.includes(`untolerated taint {${DEFAULT_KEY}: }`))).toBe(
      true,
    );
    expect(moreLifts).toEqual([]);
    expect(liftAt).toBeGreaterThanOrEqual(readyAt);
    expect(appMoments?.boundAt).toBeGreaterThanOrEqual(liftAt ?? Number.NaN);
    const readyToLift = (liftAt ?? Number.NaN) - readyAt;
    console.log(
      `node-gates: gating pod ready → taint removed ${readyToLift} ms; node created → gate lifted ${(liftAt ?? Number.NaN) - joinedAt} ms; gate lifted → application pod bound ${(appMoments?.boundAt ?? Number.NaN) - (liftAt ?? Number.NaN)} ms`,
    );
    expect(readyToLift).toBeLessThan(2_000);
  });

  it('releases at once a node that no gating DaemonSet wants', async () => {
    await apply(joiningNode('idle-1', 'nobody', [DEFAULT_KEY]));
    await world.until('the gate of idle-1 is lifted', () => !hasTaint('idle-1', DEFAULT_KEY));
    const joinedAt = timeline.joinedAt('idle-1') ?? Number.NaN;
    const [liftAt] = timeline.liftedAt('idle-1', DEFAULT_KEY);
    console.log(
      `node-gates: node no gating DaemonSet wants created → gate lifted ${(liftAt ?? 0) - joinedAt} ms`,
    );
    expect((liftAt ?? Number.NaN) - joinedAt).toBeLessThan(3_000);
    expect(await gateTaintsOf('idle-1')).toEqual([]);
    expect(await conditionOf('idle-1')).toMatchObject({ status: 'True' });
    const lifted = await eventsOf('idle-1', 'NodeReadinessGateLifted');
    expect(lifted.map((e) => e.message)).toEqual([
      `Lifted taint ${DEFAULT_KEY}:NoSchedule: no gating DaemonSet should run here`,
    ]);
    expect(world.pods(NAMESPACE).filter((p) => p.node === 'idle-1')).toEqual([]);
  });

  it('Continuous: re-taints a node whose gating pod is deleted, keeps its running pods, and releases it when the replacement is ready; other taints survive every write', async () => {
    await apply(joiningNode('cont-1', 'continuous', [CNI_KEY]));
    // Another controller taints the node while everynode gates it: kubectl taint reads the node and
    // patches the whole list back without a precondition, so when its read precedes the lift, its
    // write brings the gate taint back, and everynode lifts it again.
    await world.kubectl(['taint', 'node', 'cont-1', 'example.com/other=a:PreferNoSchedule']);
    await world.quiet();
    await world.until('the gate of cont-1 is lifted', () => !hasTaint('cont-1', CNI_KEY));
    await apply(appPod('app-continuous', 'cont-1'));
    await world.until(
      'app-continuous runs',
      () => timeline.pod(NAMESPACE, 'app-continuous')?.readyAt.length === 1,
    );
    const appUid = (await getPod('app-continuous')).metadata?.uid;
    const cni = gatingPodOn('cont-1', 'cni');
    expect(cni).toBeDefined();

    // The agent goes down: its pod stays Terminating for its grace period (5 s here).
    await world.kubectl(['-n', NAMESPACE, 'delete', 'pod', cni?.name ?? '', '--wait=false']);
    const deletingAt = timeline.podsOn('cont-1').find((p) => p.uid === cni?.uid)?.deletingAt ?? Number.NaN;
    const restoreAfter = () => timeline.restoredAt('cont-1', CNI_KEY).find((t) => t >= deletingAt);
    await world.until('the gate of cont-1 is restored', () => restoreAfter() !== undefined);
    expect(await gateTaintsOf('cont-1')).toContain(`${CNI_KEY}:NoSchedule`);
    const waiting = await conditionOf('cont-1');
    expect(waiting).toMatchObject({ status: 'False', reason: 'WaitingForDaemonSets' });
    expect(waiting?.message).toContain(`${NAMESPACE}/cni (${CNI_KEY})`);
    const restored = await eventsOf('cont-1', 'NodeReadinessGateRestored');
    // (At least one: a restore decided from stale pod hints may have flapped the gate earlier; the
    // property test judges every write, this one the story.)
    expect(restored.length).toBeGreaterThan(0);
    expect(new Set(restored.map((e) => e.message))).toEqual(
      new Set([`Restored taint ${CNI_KEY}:NoSchedule: waiting for an available pod of ${NAMESPACE}/cni`]),
    );
    // NoSchedule: what runs there stays.
    const during = await getPod('app-continuous');
    expect(during.metadata?.uid).toBe(appUid);
    expect(during.status?.phase).toBe('Running');
    expect(gatingPodOn('cont-1', 'cni')).toBeUndefined();
    // Another controller's taint arrives while the node is gated again.
    await world.kubectl(['taint', 'node', 'cont-1', 'example.com/maintenance=b:PreferNoSchedule']);

    const restoreAt = restoreAfter() ?? Number.NaN;
    const liftAfter = () => timeline.liftedAt('cont-1', CNI_KEY).find((t) => t > restoreAt);
    await world.until('the gate of cont-1 is lifted again', () => liftAfter() !== undefined, 15_000);
    await world.quiet();
    const relift = liftAfter() ?? Number.NaN;
    const replacement = timeline.podsOn('cont-1').find((p) => p.owner === 'cni' && p.uid !== cni?.uid);
    const replacementReady = replacement?.readyAt[0] ?? Number.NaN;
    expect(restoreAt).toBeLessThan(replacementReady);
    expect(relift).toBeGreaterThanOrEqual(replacementReady);
    console.log(
      `node-gates: Continuous gating pod deleted → gate restored ${restoreAt - deletingAt} ms; replacement ready → lifted again ${relift - replacementReady} ms`,
    );

    const app = await getPod('app-continuous');
    expect(app.metadata?.uid).toBe(appUid);
    expect(app.status?.phase).toBe('Running');
    const taints = await gateTaintsOf('cont-1');
    expect(taints).toEqual(
      expect.arrayContaining([
        'example.com/other=a:PreferNoSchedule',
        'example.com/maintenance=b:PreferNoSchedule',
      ]),
    );
    expect(taints).not.toContain(`${CNI_KEY}:NoSchedule`);
    const others = (t: string) =>
      t.startsWith('example.com/other') || t.startsWith('example.com/maintenance');
    expect(droppedTaints(timeline, 'cont-1', others)).toEqual([]);
    expect(await conditionOf('cont-1')).toMatchObject({ status: 'True' });
  });

  it('BootstrapOnly: a released node is not re-tainted when its gating pod is deleted', async () => {
    const agent = gatingPodOn('gate-1', 'agent');
    expect(agent).toBeDefined();
    await world.kubectl(['-n', NAMESPACE, 'delete', 'pod', agent?.name ?? '', '--wait=false']);
    await world.until('the replacement agent is ready', () =>
      timeline
        .podsOn('gate-1')
        .some((p) => p.owner === 'agent' && p.uid !== agent?.uid && p.readyAt.length > 0),
    );
    await world.quiet();
    expect(timeline.restoredAt('gate-1', DEFAULT_KEY)).toEqual([]);
    expect(await gateTaintsOf('gate-1')).toEqual([]);
    const node = await getNode('gate-1');
    const marker = JSON.parse(node.metadata?.annotations?.['everynode.dev/node-readiness-released'] ?? '{}');
    expect(Object.keys(marker)).toEqual([DEFAULT_KEY]);
    expect(await eventsOf('gate-1', 'NodeReadinessGateRestored')).toEqual([]);
  });

  it('keeps the gate of a node whose gating pod crash-loops, and warns once its timeout passes', async () => {
    await apply(joiningNode('crash-1', 'crash', [SEC_KEY]));
    await apply(appPod('app-crash', 'crash-1'));
    await world.until(
      'the timeout Warning is recorded',
      () =>
        world.sim.store
          .list('events', { namespace: 'default' })
          .some((e) => (e as unknown as CoreV1Event).reason === 'NodeReadinessGateTimeout'),
      15_000,
    );
    const [warning, ...more] = await eventsOf('crash-1', 'NodeReadinessGateTimeout');
    expect(more).toEqual([]);
    expect(warning?.type).toBe('Warning');
    expect(warning?.message).toMatch(
      new RegExp(
        `^Node gated by taint ${SEC_KEY}:NoSchedule for \\d+s, past its timeout: waiting for an available pod of ${NAMESPACE}/sec$`,
      ),
    );
    const warnedAt = Date.parse(String(warning?.firstTimestamp ?? warning?.eventTime ?? ''));
    const joinedAt = timeline.joinedAt('crash-1') ?? Number.NaN;
    console.log(
      `node-gates: crash-looping gating pod, node created → timeout Warning ${warnedAt - joinedAt} ms (timeoutSeconds 2)`,
    );
    // creationTimestamp has whole seconds, so the clock may start up to a second before the join.
    expect(warnedAt - joinedAt).toBeGreaterThanOrEqual(1_000);

    const sec = gatingPodOn('crash-1', 'sec');
    expect(sec).toBeDefined();
    const crashing = await getPod(sec?.name ?? '');
    expect(crashing.status?.containerStatuses?.[0]?.restartCount ?? 0).toBeGreaterThan(0);
    expect(await gateTaintsOf('crash-1')).toEqual([`${SEC_KEY}:NoSchedule`]);
    const condition = await conditionOf('crash-1');
    expect(condition).toMatchObject({ status: 'False', reason: 'WaitingForDaemonSets' });
    expect(condition?.message).toContain(`${NAMESPACE}/sec (${SEC_KEY})`);
    const app = await getPod('app-crash');
    expect(app.status?.phase).toBe('Pending');
    expect(app.spec?.nodeName).toBeUndefined();
    expect(timeline.liftedAt('crash-1', SEC_KEY)).toEqual([]);
  });

  it('dryRun: says what it would do and changes no taint', async () => {
    await apply(joiningNode('dry-1', 'dry', [DRY_KEY]));
    await world.until('the dry gating pod is ready', () =>
      timeline.podsOn('dry-1').some((p) => p.owner === 'dry' && p.readyAt.length > 0),
    );
    await world.until(
      'the dry run verdict is recorded',
      async () => (await eventsOf('dry-1', 'NodeReadinessGateLifted')).length > 0,
    );
    await world.quiet();
    const [wouldLift, ...more] = await eventsOf('dry-1', 'NodeReadinessGateLifted');
    expect(more).toEqual([]);
    expect(wouldLift?.message).toBe(
      `Would lift taint ${DRY_KEY}:NoSchedule (dry run): every gating DaemonSet that should run here has an available pod: ${NAMESPACE}/dry`,
    );
    // The verdict came once the gating pod was ready, not before.
    const dryReadyAt = timeline.podsOn('dry-1').find((p) => p.owner === 'dry')?.readyAt[0] ?? Number.NaN;
    const verdicts = timeline.eventsOn('dry-1').filter((e) => e.reason === 'NodeReadinessGateLifted');
    expect(verdicts.map((e) => e.at >= dryReadyAt)).toEqual([true]);
    expect(await gateTaintsOf('dry-1')).toEqual([`${DRY_KEY}:NoSchedule`]);
    expect(timeline.liftedAt('dry-1', DRY_KEY)).toEqual([]);
    // The condition says the node would be released: True, though the taint stays.
    expect(await conditionOf('dry-1')).toMatchObject({
      status: 'True',
      reason: 'DaemonSetsReady',
      message: 'every gating DaemonSet that should run here has an available pod',
    });
    expect(timeline.conditionChanges('dry-1').map((c) => c.status)).not.toContain('False');
  });
});
