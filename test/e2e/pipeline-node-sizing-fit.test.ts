/**
 * Node sizing meets the scheduler's NodeResourcesFit through the local pipeline, driven with
 * kubectl, for both kinds: a node too small for even the rules' `min` leaves its daemon pod Pending
 * with the scheduler's reason, and the DaemonSet says so (its PodsUnschedulable condition, one
 * FailedPlacement Warning naming the node, the count in `kubectl everynode rollout status`, the
 * DaemonPodsUnschedulable metric); `kubectl get eds -o wide` and `rollout plan` show the range of
 * sizes; invalid rules pass the API server and give ReplicaFailure and an InvalidSpec Warning.
 */
import type { ChildProcess } from 'node:child_process';
import type { CoreV1Event, V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagedKind } from '../../lib/kube/managed-kind.ts';
import { placementMetrics } from '../../lib/reconcile/effects/placement-metrics.ts';
import { generatedNode } from '../../lib/sim/sim-nodes.ts';
import { kubectlStarter, pluginBinIn } from '../kubectl-plugin/plugin-kubectl.ts';
import { inPlaceDaemonSet } from '../support/in-place-daemon-set.ts';
import { kubectlBinary, type PipelineWorld, startPipelineWorld } from '../support/pipeline-harness.ts';

const NAMESPACE = 'sized';
/** node-00001 is an m6i.large (about 7 GiB allocatable), node-00002 an m6i.2xlarge (about 30 GiB). */
const SMALL = 'node-00001';
const BIG = 'node-00002';
const SIZING = 'everynode.dev/node-sizing';

/** Half the node's memory, at least 8Gi: more than the small node has. */
const TOO_BIG_FOR_SMALL = [
  { container: 'agent', perAllocatable: { memory: '50%' }, min: { memory: '8Gi' }, max: { memory: '20Gi' } },
];

describe.runIf(kubectlBinary).each<ManagedKind>(['everynode.dev/v1', 'apps/v1'])(
  'node sizing and room on the node, %s',
  (kind) => {
    let world: PipelineWorld;
    let plugin: ReturnType<typeof kubectlStarter>;
    const children = new Set<ChildProcess>();
    const resource = kind === 'apps/v1' ? 'ds' : 'eds';

    /** The in-place tests' DaemonSet with `rules` where the kind holds them. */
    function daemonSet(name: string, rules: unknown): string {
      const manifest = JSON.parse(inPlaceDaemonSet({ kind, namespace: NAMESPACE, name })) as V1DaemonSet;
      if (kind === 'apps/v1')
        manifest.metadata = { ...manifest.metadata, annotations: { [SIZING]: JSON.stringify(rules) } };
      else Object.assign(manifest.spec ?? {}, { nodeSizing: rules });
      return JSON.stringify(manifest);
    }

    const json = async <T>(args: readonly string[]): Promise<T> =>
      JSON.parse(await world.kubectl([...args, '-n', NAMESPACE, '-o', 'json'])) as T;
    const pods = async (app: string) =>
      (await json<{ items: V1Pod[] }>(['get', 'pods', '-l', `app=${app}`])).items;
    const events = async (reason: string, name: string) =>
      (
        await json<{ items: CoreV1Event[] }>(['get', 'events', '--field-selector', `reason=${reason}`])
      ).items.filter((e) => e.involvedObject.name === name);
    const conditionOf = async (name: string, type: string) =>
      (await json<V1DaemonSet>(['get', resource, name])).status?.conditions?.find((c) => c.type === type);
    const everynode = async (args: readonly string[]) => {
      const result = await plugin(['everynode', '-n', NAMESPACE, ...args]).done;
      if (result.code !== 0) throw new Error(`kubectl everynode ${args.join(' ')}: ${result.stderr}`);
      return result.stdout;
    };

    beforeAll(async () => {
      world = await startPipelineWorld({
        managedKind: kind,
        secured: true,
        nodes: [generatedNode(1), generatedNode(2)],
      });
      plugin = kubectlStarter(world.kubeconfigPath, world.stateDir, pluginBinIn(world.stateDir), children);
      await world.kubectl(['create', 'namespace', NAMESPACE]);
    });
    afterAll(async () => {
      for (const child of children) if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      await world?.stop();
    });

    it('shows a pod the small node has no room for: Pending, Warning, pending count, metric', async () => {
      await world.kubectl(['apply', '-f', '-'], daemonSet('agent', TOO_BIG_FOR_SMALL));
      let stuck: V1Pod | undefined;
      await world.until('the big node runs its pod, the small one has none bound', async () => {
        const list = await pods('agent');
        stuck = list.find((p) => !p.spec?.nodeName);
        const running = list.find((p) => p.spec?.nodeName === BIG && p.status?.phase === 'Running');
        return (
          running !== undefined && stuck?.status?.conditions?.some((c) => c.type === 'PodScheduled') === true
        );
      });
      expect(stuck?.status?.phase).toBe('Pending');
      expect(stuck?.status?.conditions?.find((c) => c.type === 'PodScheduled')).toMatchObject({
        status: 'False',
        reason: 'Unschedulable',
        message: expect.stringMatching(/^0\/2 nodes are available: 1 Insufficient memory, /),
      });
      expect(stuck?.spec?.containers[0]?.resources?.requests?.memory).toBe('8Gi');

      await world.until(
        'the DaemonSet says a pod is pending',
        async () => (await conditionOf('agent', 'PodsUnschedulable'))?.status === 'True',
      );
      expect(await conditionOf('agent', 'PodsUnschedulable')).toMatchObject({
        reason: 'Unschedulable',
        message: `1 pending: Insufficient memory on ${SMALL}`,
      });
      await world.until(
        'a FailedPlacement Warning',
        async () => (await events('FailedPlacement', 'agent')).length > 0,
      );
      // The other node's pod turns available on its own time: wait for the line, then check it whole.
      const waiting = `Waiting for daemon set "agent" rollout to finish: 1 of 2 updated pods are available (1 pending: Insufficient memory on ${SMALL})...\n`;
      const status = () => everynode(['rollout', 'status', `${resource}/agent`, '--watch=false']);
      await world.until('rollout status to name the pending pod', async () => (await status()) === waiting);
      expect(await status()).toBe(waiting);
      // The steps that follow (status refreshes, the node recount) record no second event.
      await world.quiet(30_000, { delayed: true });
      const warnings = await events('FailedPlacement', 'agent');
      expect(warnings.map((e) => [e.type, e.message, e.involvedObject.kind])).toEqual([
        ['Warning', `failed to place pod on "${SMALL}": Insufficient memory`, 'DaemonSet'],
      ]);
      expect(world.pipeline.counters.get(placementMetrics.unschedulablePods)).toBe(1);

      // The range of sizes: the column of `-o wide` on everynode.dev/v1, and the rollout plan on both.
      const plan = await everynode(['rollout', 'plan', `${resource}/agent`]);
      const range = /^node sizing: (agent memory 8Gi-\d+(?:Mi|Gi))$/m.exec(plan)?.[1];
      expect(range).toBeDefined();
      if (kind === 'everynode.dev/v1') {
        const wide = await world.kubectl(['get', 'eds', 'agent', '-n', NAMESPACE, '-o', 'wide']);
        const [header, row] = wide.trimEnd().split('\n');
        expect(header).toMatch(/\bNODE SIZING$/);
        expect(row?.endsWith(range ?? '?')).toBe(true);
        expect(await world.kubectl(['get', 'eds', 'agent', '-n', NAMESPACE])).not.toMatch(/NODE SIZING/);
      }

      // Smaller rules let the pod fit: the condition goes and the rollout finishes.
      const fits = [{ ...TOO_BIG_FOR_SMALL[0], min: { memory: '1Gi' } }];
      await world.kubectl(['apply', '-f', '-'], daemonSet('agent', fits));
      expect(await everynode(['rollout', 'status', `${resource}/agent`, '--timeout=60s'])).toMatch(
        /daemon set "agent" successfully rolled out\n$/,
      );
      await world.until(
        'the condition is gone',
        async () => (await conditionOf('agent', 'PodsUnschedulable')) === undefined,
      );
    }, 120_000);

    it.each([
      [
        'an unknown container',
        [{ container: 'agnet', requests: { cpu: '100m' } }],
        '[0].container: must name a container of the template (agent)',
      ],
      [
        'a bad quantity',
        [{ container: 'agent', requests: { memory: '1 Gi' } }],
        '[0].requests.memory: must be a non-negative quantity',
      ],
      [
        'min above max',
        [{ container: 'agent', perAllocatable: { cpu: '1%' }, min: { cpu: '2' }, max: { cpu: '1500m' } }],
        '[0].min.cpu: must not be above max (1500m)',
      ],
    ])(
      'takes rules with %s, and reports them invalid',
      async (_, rules, message) => {
        const name = `bad-${children.size}-${Math.random().toString(36).slice(2, 7)}`;
        await world.kubectl(['apply', '-f', '-'], daemonSet(name, rules));
        await world.until(
          'ReplicaFailure',
          async () => (await conditionOf(name, 'ReplicaFailure'))?.status === 'True',
        );
        const condition = await conditionOf(name, 'ReplicaFailure');
        expect(condition?.reason).toBe('InvalidSpec');
        expect(condition?.message).toContain(message);
        await world.until(
          'an InvalidSpec Warning',
          async () => (await events('InvalidSpec', name)).length > 0,
        );
        const [warning] = await events('InvalidSpec', name);
        expect(warning?.type).toBe('Warning');
        expect(warning?.message).toContain(message);
        expect(await pods(name)).toEqual([]);
      },
      60_000,
    );
  },
);
