/**
 * In-place updates through the local pipeline, driven with kubectl, for both kinds (docs/design.md,
 * 31. In-place updates): with `inPlace: IfPossible` an image rollout patches every daemon pod — its
 * UID and IP stay, its container restarts once with the new image — and never has more pods
 * unavailable than `maxUnavailable`; with the default (`Never`) the same rollout recreates them.
 */
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

const NAMESPACE = 'agents';
/** The simulated cluster's seed nodes: four, of which the control-plane node runs no daemon pod. */
const SEED_NODES = 4;
const NODES = 3;

describe.runIf(kubectlBinary).each<ManagedKind>(['everynode.dev/v1', 'apps/v1'])(
  'in-place updates of %s',
  (kind) => {
    let world: PipelineWorld;
    const resource = kind === 'apps/v1' ? 'ds' : 'eds';

    function daemonSet(name: string, inPlace: 'IfPossible' | undefined, resources?: object) {
      const rollingUpdate: Record<string, unknown> = { maxUnavailable: 1 };
      const annotations: Record<string, string> = {};
      if (inPlace && kind === 'everynode.dev/v1') rollingUpdate.inPlace = inPlace;
      if (inPlace && kind === 'apps/v1') annotations['everynode.dev/in-place'] = inPlace;
      return JSON.stringify({
        apiVersion: kind,
        kind: 'DaemonSet',
        metadata: { name, namespace: NAMESPACE, annotations },
        spec: {
          selector: { matchLabels: { app: name } },
          updateStrategy: { type: 'RollingUpdate', rollingUpdate },
          template: {
            metadata: { labels: { app: name } },
            spec: {
              terminationGracePeriodSeconds: 1,
              containers: [{ name: 'agent', image: 'busybox:1.36', ...(resources ? { resources } : {}) }],
            },
          },
        },
      });
    }

    const pods = async (name: string): Promise<V1Pod[]> =>
      (
        JSON.parse(
          await world.kubectl(['get', 'pods', '-n', NAMESPACE, '-l', `app=${name}`, '-o', 'json']),
        ) as { items: V1Pod[] }
      ).items;
    const ready = (p: V1Pod) =>
      p.metadata?.deletionTimestamp === undefined &&
      (p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false);
    const readyOn = (list: readonly V1Pod[], image: string) =>
      list.filter(
        (p) =>
          ready(p) &&
          p.spec?.containers[0]?.image === image &&
          (p.status?.containerStatuses?.[0]?.image ?? '').endsWith(image),
      );
    const setImage = (name: string, image: string) =>
      setDaemonSetImage(world, resource, NAMESPACE, name, image);

    /**
     * Rolls `name` to busybox:1.37; resolves to the pods before and after, and the most nodes at once,
     * from the cluster's own change feed, without a ready daemon pod that runs the image its spec
     * names (a pod patched but not yet restarted counts: it runs the old image).
     */
    async function rollOut(name: string) {
      await world.until(
        'every pod runs busybox:1.36',
        async () => readyOn(await pods(name), 'busybox:1.36').length === NODES,
      );
      const before = await pods(name);
      const serving = new Map<string, boolean>(
        before.map((p) => [`${p.spec?.nodeName}/${p.metadata?.uid}`, ready(p)]),
      );
      let mostUnavailable = 0;
      const stop = world.sim.store.subscribe((event) => {
        if (event.key !== 'pods') return;
        const pod = event.object as unknown as V1Pod;
        if (pod.metadata?.labels?.app !== name || !pod.spec?.nodeName) return;
        const running = pod.status?.containerStatuses?.[0]?.image ?? '';
        const wanted = pod.spec.containers[0]?.image ?? '';
        const ok = event.type !== 'DELETED' && ready(pod) && running.endsWith(wanted);
        serving.set(`${pod.spec.nodeName}/${pod.metadata?.uid}`, ok);
        const up = new Set([...serving].filter(([, on]) => on).map(([key]) => key.split('/')[0]));
        mostUnavailable = Math.max(mostUnavailable, NODES - up.size);
      });
      await setImage(name, 'busybox:1.37');
      await world.until(
        'every pod runs busybox:1.37, ready',
        async () => {
          const now = await pods(name);
          const live = now.filter((p) => p.metadata?.deletionTimestamp === undefined);
          return readyOn(now, 'busybox:1.37').length === NODES && live.length === NODES;
        },
        60_000,
      );
      stop();
      return { before, after: await pods(name), mostUnavailable };
    }
    const byNode = (list: readonly V1Pod[]) => Object.fromEntries(list.map((p) => [p.spec?.nodeName, p]));

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

    it('rolls a new image in place: same UIDs and IPs, one restart each, within maxUnavailable', async () => {
      await world.kubectl(['apply', '-f', '-'], daemonSet('agent', 'IfPossible'));
      const { before, after, mostUnavailable } = await rollOut('agent');
      const was = byNode(before);
      for (const pod of after) {
        const old = was[pod.spec?.nodeName ?? ''];
        expect(pod.metadata?.uid).toBe(old?.metadata?.uid);
        expect(pod.status?.podIP).toBe(old?.status?.podIP);
        expect(pod.status?.containerStatuses?.[0]?.restartCount).toBe(1);
        expect(pod.spec?.containers[0]?.image).toBe('busybox:1.37');
        expect(pod.status?.containerStatuses?.[0]?.image).toMatch(/busybox:1\.37$/);
      }
      expect(mostUnavailable).toBeLessThanOrEqual(1);
      const events = await eventNames(world, NAMESPACE, 'UpdatedInPlace');
      expect(events.trim().split('\n')).toHaveLength(NODES);
      const status = JSON.parse(
        await world.kubectl(['get', resource, 'agent', '-n', NAMESPACE, '-o', 'json']),
      ) as {
        status: { updatedNumberScheduled?: number; numberAvailable?: number };
      };
      expect(status.status).toMatchObject({ updatedNumberScheduled: NODES, numberAvailable: NODES });
    }, 120_000);

    it('resizes a memory-only change in place: no restart, the new resources in the status', async () => {
      const memory = (mi: number) => ({ requests: { memory: `${mi}Mi` }, limits: { memory: `${mi}Mi` } });
      await world.kubectl(['apply', '-f', '-'], daemonSet('sized', 'IfPossible', memory(64)));
      await world.until(
        'every sized pod runs',
        async () => readyOn(await pods('sized'), 'busybox:1.36').length === NODES,
      );
      const before = byNode(await pods('sized'));
      await world.kubectl([
        'patch',
        resource,
        'sized',
        '-n',
        NAMESPACE,
        '--type=json',
        '-p',
        JSON.stringify([
          { op: 'replace', path: '/spec/template/spec/containers/0/resources', value: memory(96) },
        ]),
      ]);
      const resized = (p: V1Pod) =>
        ready(p) && p.status?.containerStatuses?.[0]?.resources?.limits?.memory === '96Mi';
      await world.until(
        'every pod runs with 96Mi',
        async () => (await pods('sized')).filter(resized).length === NODES,
        60_000,
      );
      for (const pod of await pods('sized')) {
        expect(pod.metadata?.uid).toBe(before[pod.spec?.nodeName ?? '']?.metadata?.uid);
        expect(pod.status?.containerStatuses?.[0]?.restartCount).toBe(0);
        expect(pod.spec?.containers[0]?.resources?.requests?.memory).toBe('96Mi');
      }
      const events = await eventNames(world, NAMESPACE, 'Resized');
      expect(events.trim().split('\n')).toHaveLength(NODES);
    }, 120_000);

    it('recreates the pods without inPlace, as before', async () => {
      await world.kubectl(['apply', '-f', '-'], daemonSet('recreated', undefined));
      const { before, after } = await rollOut('recreated');
      const uids = new Set(before.map((p) => p.metadata?.uid));
      expect(after.filter((p) => uids.has(p.metadata?.uid))).toEqual([]);
    }, 120_000);
  },
);
