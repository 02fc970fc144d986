/**
 * Safe rollouts through the local pipeline, driven with kubectl, for both kinds: canary steps that
 * hold and advance, a pause until resumed, the plan of a running rollout, topology domains rolled in
 * order, and a crash-looping revision halted by the health rules with the nodes it reached no more
 * than its step allowed.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagedKind } from '../../lib/kube/managed-kind.ts';
import {
  eventNames,
  kubectlBinary,
  type PipelineWorld,
  setDaemonSetImage,
  startPipelineWorld,
} from '../support/pipeline-harness.ts';

const NAMESPACE = 'rollout';
/** Generated nodes, all alike: the first three in zone a, the next four in zone b. */
const NODES = Array.from({ length: 7 }, (_, i) => `node-0000${i + 1}`);
const zoneOf = (node: string) => (NODES.indexOf(node) < 3 ? 'a' : 'b');
const PLUGIN = fileURLToPath(new URL('../../bin/kubectl-everynode.js', import.meta.url));

interface Rollout {
  retried?: string;
  revision?: string;
  phase?: string;
  haltedAt?: string;
  revertedAt?: string;
  step?: number;
  domain?: string;
  failedNodes?: { node: string; reason: string }[];
}

describe.runIf(kubectlBinary).each<ManagedKind>(['everynode.dev/v1', 'apps/v1'])(
  'safe rollouts of %s',
  (kind) => {
    let world: PipelineWorld;
    const resource = kind === 'apps/v1' ? 'ds' : 'eds';

    /** The DaemonSet with these safe-rollout settings: fields on everynode.dev/v1, annotations on apps/v1. */
    function daemonSet(name: string, image: string, settings: Record<string, unknown>) {
      const annotations: Record<string, string> = {};
      const rollingUpdate: Record<string, unknown> = { maxUnavailable: 2 };
      for (const [key, value] of Object.entries(settings)) {
        if (kind === 'everynode.dev/v1') rollingUpdate[key] = value;
        else
          annotations[`everynode.dev/rollout-${key === 'topologyKey' ? 'topology-key' : key}`] =
            JSON.stringify(value);
      }
      return {
        apiVersion: kind,
        kind: 'DaemonSet',
        metadata: { name, namespace: NAMESPACE, annotations },
        spec: {
          selector: { matchLabels: { app: name } },
          updateStrategy: { type: 'RollingUpdate', rollingUpdate },
          template: {
            metadata: { labels: { app: name } },
            spec: { containers: [{ name: 'agent', image }], terminationGracePeriodSeconds: 1 },
          },
        },
      };
    }

    const get = async (name: string) =>
      JSON.parse(await world.kubectl(['get', resource, name, '-n', NAMESPACE, '-o', 'json'])) as {
        metadata: { annotations?: Record<string, string> };
        status?: { rollout?: Rollout; conditions?: { type: string; status: string; reason?: string }[] };
      };
    const rolloutOf = async (name: string): Promise<Rollout> => {
      const ds = await get(name);
      const text = ds.metadata.annotations?.['everynode.dev/rollout-status'];
      return ds.status?.rollout ?? (text ? (JSON.parse(text) as Rollout) : {});
    };
    const pods = async (name: string) =>
      (
        JSON.parse(
          await world.kubectl(['get', 'pods', '-n', NAMESPACE, '-l', `app=${name}`, '-o', 'json']),
        ) as {
          items: V1Pod[];
        }
      ).items.filter((p) => !p.metadata?.deletionTimestamp);
    const onImage = async (name: string, image: string) =>
      (await pods(name)).filter((p) => p.spec?.containers[0]?.image === image);
    const setImage = (name: string, image: string) =>
      setDaemonSetImage(world, resource, NAMESPACE, name, image);

    /** `kubectl everynode ARGS` as kubectl runs the plugin: its exit code and output. */
    const plugin = (args: readonly string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        const env = { ...process.env, KUBECONFIG: world.kubeconfigPath, HOME: world.stateDir };
        execFile(
          process.execPath,
          [PLUGIN, '-n', NAMESPACE, ...args],
          { env, timeout: 60_000 },
          (error, stdout, stderr) =>
            resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      });

    beforeAll(async () => {
      world = await startPipelineWorld({ managedKind: kind, secured: true, nodes: NODES.length });
      await world.kubectl(['create', 'namespace', NAMESPACE]);
      for (const node of NODES) await world.kubectl(['label', 'node', node, `zone=${zoneOf(node)}`]);
    });
    afterAll(async () => world?.stop());

    it('holds each step, pauses until resumed, and finishes a zone before the next', async () => {
      const settings = {
        topologyKey: 'zone',
        steps: [{ nodes: 1 }, { pause: {} }, { nodes: 3 }, { pause: { seconds: 2 } }],
      };
      await world.kubectl(['apply', '-f', '-'], JSON.stringify(daemonSet('agent', 'busybox:1.36', settings)));
      await world.until(
        'the first revision runs everywhere',
        async () => (await onImage('agent', 'busybox:1.36')).length === 7,
        30_000,
      );
      await world.until(
        'the first rollout is complete',
        async () => (await rolloutOf('agent')).phase === 'Complete',
      );

      await setImage('agent', 'busybox:1.37');
      await world.until(
        'the canary step is paused',
        async () => (await rolloutOf('agent')).phase === 'Paused',
        30_000,
      );
      await world.quiet();
      const canary = await onImage('agent', 'busybox:1.37');
      expect(canary.map((p) => zoneOf(p.spec?.nodeName ?? ''))).toEqual(['a']);
      const paused = await get('agent');
      expect(paused.status?.conditions?.find((c) => c.type === 'Progressing')).toMatchObject({
        status: 'Unknown',
        reason: 'RolloutPaused',
      });
      const { revision, step } = await rolloutOf('agent');
      expect(step).toBe(1);

      const status = await plugin(['rollout', 'status', `${resource}/agent`, '--timeout=1s']);
      expect(status.stdout).toMatch(/step 2 of 4 \(pause until resumed\), zone a/);
      // The plan of the running rollout, from where the pipeline holds it, changes nothing.
      const before = (await get('agent')).metadata;
      const plan = await plugin(['rollout', 'plan', `${resource}/agent`, '--pod-ready-seconds=2']);
      expect(plan.code, plan.stderr).toBe(0);
      const canaryNode = canary[0]?.spec?.nodeName ?? '';
      const zoneA = NODES.filter((n) => zoneOf(n) === 'a' && n !== canaryNode);
      const zoneB = NODES.filter((n) => zoneOf(n) === 'b');
      expect(plan.stdout.split('\n').slice(1, 6)).toEqual([
        `rollout Paused at step 2 of 4, zone a: 1 of 7 nodes run revision ${revision}; the rest would go as follows:`,
        'step 2: pause until resumed (holds now)',
        `step 3: 2 nodes (zone a): ${zoneA.join(', ')}`,
        'step 4: pause 2s',
        `then zone b: 4 nodes in 2 batches of ≤2: ${zoneB.join(', ')}`,
      ]);
      expect((await get('agent')).metadata).toEqual(before);
      const resumed = await plugin(['rollout', 'resume', `${resource}/agent`]);
      expect(resumed.stdout).toMatch(/agent resumed/);
      expect((await get('agent')).metadata.annotations?.['everynode.dev/rollout-resume']).toBe(
        `${revision}/1`,
      );
      await world.until(
        'the rollout is complete',
        async () => (await rolloutOf('agent')).phase === 'Complete',
        60_000,
      );
      const updated = await onImage('agent', 'busybox:1.37');
      expect(updated).toHaveLength(7);
      const started = (p: V1Pod) => new Date(p.metadata?.creationTimestamp ?? 0).getTime();
      const lastOfA = Math.max(...updated.filter((p) => zoneOf(p.spec?.nodeName ?? '') === 'a').map(started));
      const firstOfB = Math.min(
        ...updated.filter((p) => zoneOf(p.spec?.nodeName ?? '') === 'b').map(started),
      );
      expect(firstOfB).toBeGreaterThanOrEqual(lastOfA);
    }, 120_000);

    it('halts a crash-looping revision on its own, within the first step', async () => {
      const settings = {
        steps: [{ nodes: 2 }],
        health: { podReadySeconds: 4, maxFailedNodes: 0, onFailure: 'Pause' },
      };
      await world.kubectl(
        ['apply', '-f', '-'],
        JSON.stringify(daemonSet('sensor', 'busybox:1.36', settings)),
      );
      await world.until(
        'the sensor runs everywhere',
        async () => (await rolloutOf('sensor')).phase === 'Complete',
        30_000,
      );

      await setImage('sensor', 'everynode.dev/sim:crashloop');
      await world.until(
        'the rollout halts',
        async () => (await rolloutOf('sensor')).phase === 'Halted',
        30_000,
      );
      const halted = await rolloutOf('sensor');
      expect(halted.failedNodes?.map((f) => f.reason)).toContain('PodNotAvailable');
      const ds = await get('sensor');
      expect(ds.status?.conditions?.find((c) => c.type === 'Progressing')).toMatchObject({
        status: 'False',
        reason: 'RolloutHalted',
      });
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      await world.quiet();
      expect((await onImage('sensor', 'everynode.dev/sim:crashloop')).length).toBeLessThanOrEqual(2);
      expect((await onImage('sensor', 'busybox:1.36')).length).toBeGreaterThanOrEqual(5);
      expect((await rolloutOf('sensor')).phase).toBe('Halted');
      const events = await eventNames(world, NAMESPACE, 'RolloutHalted');
      expect(events.trim()).not.toBe('');
      const status = await plugin(['rollout', 'status', `${resource}/sensor`, '--timeout=10s']);
      expect(status.code).toBe(1);
      expect(status.stderr).toMatch(/daemon set "sensor" rollout halted: .*PodNotAvailable/);

      // A retry lifts the halt: the still crash-looping revision halts again, on a new halt.
      const retried = await plugin(['rollout', 'retry', `${resource}/sensor`]);
      expect(retried.stdout).toMatch(/sensor retried/);
      await world.until(
        'the retry is taken',
        async () => (await rolloutOf('sensor')).retried === halted.haltedAt,
        30_000,
      );
      // A fixed template starts a new rollout, which rolls every node.
      await setImage('sensor', 'busybox:1.38');
      await world.until(
        'the fixed revision rolls out',
        async () => (await rolloutOf('sensor')).phase === 'Complete',
        60_000,
      );
      expect(await onImage('sensor', 'busybox:1.38')).toHaveLength(7);
    }, 120_000);

    it('halts a revision that breaks its nodes, and puts every node back on the good one', async () => {
      // The canary's pause gives its agent time to break its node before the rest rolls.
      const settings = {
        steps: [{ nodes: 2 }, { pause: { seconds: 30 } }],
        health: { podReadySeconds: 60, nodeReadySeconds: 10, maxFailedNodes: 0, onFailure: 'Revert' },
      };
      await world.kubectl(['apply', '-f', '-'], JSON.stringify(daemonSet('cni', 'busybox:1.36', settings)));
      await world.until(
        'the cni runs everywhere',
        async () => (await rolloutOf('cni')).phase === 'Complete',
        30_000,
      );

      await setImage('cni', 'everynode.dev/sim:break-node');
      await world.until(
        'the rollout halts',
        async () => (await rolloutOf('cni')).haltedAt !== undefined,
        30_000,
      );
      const broken = await rolloutOf('cni');
      expect(broken.failedNodes?.map((f) => f.reason)).toContain('NodeNotReady');
      await world.until(
        'every node runs the good revision again',
        async () => (await rolloutOf('cni')).revertedAt !== undefined,
        60_000,
      );
      await world.quiet();
      expect(await onImage('cni', 'everynode.dev/sim:break-node')).toEqual([]);
      expect(await onImage('cni', 'busybox:1.36')).toHaveLength(7);
      expect((await rolloutOf('cni')).phase).toBe('Halted');
      const reverted = await eventNames(world, NAMESPACE, 'RolloutReverted');
      expect(reverted.trim()).not.toBe('');
    }, 120_000);

    it('reports invalid steps and health with a condition and a Warning, touching no pod', async () => {
      // Values the CRD's schema lets through (it refuses an unknown onFailure itself).
      const settings = { steps: [{ nodes: 0 }], health: { maxFailedNodes: '150%' } };
      await world.kubectl(['apply', '-f', '-'], JSON.stringify(daemonSet('typo', 'busybox:1.36', settings)));
      await world.until('the DaemonSet is reported invalid', async () =>
        ((await get('typo')).status?.conditions ?? []).some(
          (c) => c.type === 'ReplicaFailure' && c.status === 'True',
        ),
      );
      const condition = (await get('typo')).status?.conditions?.find((c) => c.type === 'ReplicaFailure');
      expect(condition).toMatchObject({ reason: 'InvalidSpec' });
      expect((condition as { message?: string }).message).toMatch(/steps\]?\[0\]\.nodes.*maxFailedNodes/s);
      const events = await world.kubectl([
        'get',
        'events',
        '-n',
        NAMESPACE,
        '--field-selector',
        'reason=InvalidSpec',
        '-o',
        'json',
      ]);
      expect(events).toMatch(/Warning/);
      expect(await pods('typo')).toEqual([]);
    }, 60_000);
  },
);
