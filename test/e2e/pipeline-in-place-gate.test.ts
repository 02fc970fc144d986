/**
 * The in-place readiness gate, a mixed change and `rollout undo`, through the local pipeline and
 * kubectl, for both kinds (docs/design.md, 31. In-place updates): pods of an `inPlace: IfPossible`
 * DaemonSet carry the gate `everynode.dev/InPlaceUpdateReady`, True once created; an image update
 * closes it (the pod's Ready turns False with it) before the container restarts and opens it once
 * the new container is ready; a change of image and env together recreates the pods; undoing an
 * image rollout is itself an in-place update.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { CoreV1Event, V1Pod, V1PodCondition } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagedKind } from '../../lib/kube/managed-kind.ts';
import { inPlaceDaemonSet } from '../support/in-place-daemon-set.ts';
import {
  kubectlBinary,
  type PipelineWorld,
  setDaemonSetImage,
  startPipelineWorld,
} from '../support/pipeline-harness.ts';

const NAMESPACE = 'gated';
const GATE = 'everynode.dev/InPlaceUpdateReady';
/** The simulated cluster's seed nodes: three, of which the control-plane node runs no daemon pod. */
const SEED_NODES = 3;
const NODES = 2;
const PLUGIN = fileURLToPath(new URL('../../bin/kubectl-everynode.js', import.meta.url));

const conditionOf = (pod: V1Pod, type: string): V1PodCondition | undefined =>
  pod.status?.conditions?.find((c) => c.type === type);
const isTrue = (pod: V1Pod, type: string) => conditionOf(pod, type)?.status === 'True';
const restarts = (pod: V1Pod) => pod.status?.containerStatuses?.[0]?.restartCount ?? 0;

describe.runIf(kubectlBinary).each<ManagedKind>(['everynode.dev/v1', 'apps/v1'])(
  'the in-place readiness gate of %s',
  (kind) => {
    let world: PipelineWorld;
    const resource = kind === 'apps/v1' ? 'ds' : 'eds';

    const daemonSet = (name: string) =>
      inPlaceDaemonSet({ kind, namespace: NAMESPACE, name, inPlace: 'IfPossible' });

    const pods = async (name: string): Promise<V1Pod[]> =>
      (
        JSON.parse(
          await world.kubectl(['get', 'pods', '-n', NAMESPACE, '-l', `app=${name}`, '-o', 'json']),
        ) as { items: V1Pod[] }
      ).items;
    /** The live pods, once every node has one that is ready and runs `image`; undefined before. */
    async function readyOn(name: string, image: string): Promise<V1Pod[] | undefined> {
      const live = (await pods(name)).filter((p) => p.metadata?.deletionTimestamp === undefined);
      const running = live.filter(
        (p) =>
          isTrue(p, 'Ready') &&
          p.spec?.containers[0]?.image === image &&
          (p.status?.containerStatuses?.[0]?.image ?? '').endsWith(image),
      );
      return running.length === NODES && live.length === NODES ? live : undefined;
    }
    async function untilReadyOn(name: string, image: string): Promise<V1Pod[]> {
      let found: V1Pod[] | undefined;
      await world.until(
        `every ${name} pod runs ${image}, ready`,
        async () => {
          found = await readyOn(name, image);
          return found !== undefined;
        },
        60_000,
      );
      return found ?? [];
    }
    /** The Events of `reason` about DaemonSet `name`. */
    async function events(name: string, reason: string): Promise<CoreV1Event[]> {
      const list = JSON.parse(
        await world.kubectl([
          'get',
          'events',
          '-n',
          NAMESPACE,
          '--field-selector',
          `reason=${reason}`,
          '-o',
          'json',
        ]),
      ) as { items: CoreV1Event[] };
      return list.items.filter((e) => e.involvedObject.name === name);
    }
    const uids = (list: readonly V1Pod[]) => list.map((p) => p.metadata?.uid).sort();
    /** Every state the cluster stores of `name`'s pods, in order, until the returned stop is called. */
    function record(name: string) {
      const seen: V1Pod[] = [];
      const stop = world.sim.store.subscribe((event) => {
        const pod = event.object as unknown as V1Pod;
        if (event.key === 'pods' && pod.metadata?.labels?.app === name) seen.push(structuredClone(pod));
      });
      return { seen, stop };
    }

    /** `kubectl everynode ARGS` as kubectl runs the plugin. */
    const plugin = (args: readonly string[]) =>
      new Promise<string>((resolve, reject) => {
        const env = { ...process.env, KUBECONFIG: world.kubeconfigPath, HOME: world.stateDir };
        execFile(
          process.execPath,
          [PLUGIN, '-n', NAMESPACE, ...args],
          { env, timeout: 60_000 },
          (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out)),
        );
      });

    beforeAll(async () => {
      world = await startPipelineWorld({
        managedKind: kind,
        secured: true,
        nodes: SEED_NODES,
        timeScale: 0.2,
      });
      await world.kubectl(['create', 'namespace', NAMESPACE]);
    });
    afterAll(async () => world?.stop());

    it('closes the gate around the restart of an image update in place, and opens it after', async () => {
      await world.kubectl(['apply', '-f', '-'], daemonSet('gated'));
      const before = await untilReadyOn('gated', 'busybox:1.36');
      for (const pod of before) {
        expect(pod.spec?.readinessGates).toEqual([{ conditionType: GATE }]);
        expect(conditionOf(pod, GATE)?.status).toBe('True');
      }
      const { seen, stop } = record('gated');
      await setDaemonSetImage(world, resource, NAMESPACE, 'gated', 'busybox:1.37');
      const after = await untilReadyOn('gated', 'busybox:1.37');
      stop();
      expect(uids(after)).toEqual(uids(before));
      for (const pod of after) {
        const uid = pod.metadata?.uid;
        const states = seen.filter((p) => p.metadata?.uid === uid);
        // The gate closed with the pod's Ready, in the kubelet's words, before the container restarted.
        const closed = states.findIndex((p) => conditionOf(p, GATE)?.status === 'False');
        const restarted = states.findIndex((p) => restarts(p) === 1);
        expect(closed).toBeGreaterThanOrEqual(0);
        expect(closed).toBeLessThan(restarted);
        expect(conditionOf(states[closed] as V1Pod, GATE)?.reason).toBe('StartInPlaceUpdate');
        expect(conditionOf(states[closed] as V1Pod, 'Ready')).toMatchObject({
          status: 'False',
          reason: 'ReadinessGatesNotReady',
          message: `the status of pod readiness gate "${GATE}" is not "True", but False`,
        });
        // While the new container ran ready behind the closed gate, the pod stayed not ready.
        const behindGate = states.filter(
          (p) => restarts(p) === 1 && conditionOf(p, GATE)?.status === 'False',
        );
        expect(behindGate.every((p) => !isTrue(p, 'Ready'))).toBe(true);
        expect(restarts(pod)).toBe(1);
        expect([conditionOf(pod, GATE)?.status, conditionOf(pod, 'Ready')?.status]).toEqual(['True', 'True']);
      }
      expect(await events('gated', 'UpdatedInPlace')).toHaveLength(NODES);
    }, 120_000);

    it('recreates the pods for an image and an env change together, with no update in place', async () => {
      await world.kubectl(['apply', '-f', '-'], daemonSet('mixed'));
      const before = await untilReadyOn('mixed', 'busybox:1.36');
      await world.kubectl([
        'patch',
        resource,
        'mixed',
        '-n',
        NAMESPACE,
        '--type=json',
        '-p',
        JSON.stringify([
          { op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'busybox:1.37' },
          { op: 'add', path: '/spec/template/spec/containers/0/env', value: [{ name: 'MODE', value: 'b' }] },
        ]),
      ]);
      const after = await untilReadyOn('mixed', 'busybox:1.37');
      const old = new Set(uids(before));
      expect(after.filter((p) => old.has(p.metadata?.uid))).toEqual([]);
      for (const pod of after) {
        expect(restarts(pod)).toBe(0);
        expect(pod.spec?.containers[0]?.env).toEqual([{ name: 'MODE', value: 'b' }]);
        expect(pod.spec?.readinessGates).toEqual([{ conditionType: GATE }]);
      }
      expect(await events('mixed', 'UpdatedInPlace')).toEqual([]);
    }, 120_000);

    it('undoes an image rollout in place: the same pods, restarted again on the old image', async () => {
      await world.kubectl(['apply', '-f', '-'], daemonSet('undone'));
      const before = await untilReadyOn('undone', 'busybox:1.36');
      await setDaemonSetImage(world, resource, NAMESPACE, 'undone', 'busybox:1.37');
      const rolled = await untilReadyOn('undone', 'busybox:1.37');
      expect(rolled.map(restarts)).toEqual([1, 1]);
      if (kind === 'apps/v1') await world.kubectl(['rollout', 'undo', 'ds/undone', '-n', NAMESPACE]);
      else await plugin(['rollout', 'undo', 'eds/undone']);
      const undone = await untilReadyOn('undone', 'busybox:1.36');
      expect(uids(undone)).toEqual(uids(before));
      expect(undone.map(restarts)).toEqual([2, 2]);
      for (const pod of undone) {
        expect(pod.status?.containerStatuses?.[0]?.image).toMatch(/busybox:1\.36$/);
        expect(conditionOf(pod, GATE)?.status).toBe('True');
      }
      expect(await events('undone', 'UpdatedInPlace')).toHaveLength(2 * NODES);
    }, 120_000);
  },
);
