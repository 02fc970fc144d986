/**
 * Per-node sizing through the local pipeline, driven with kubectl, for both kinds: pods on nodes of
 * three sizes get three sizes from a proportional rule, a fixed entry for one instance type
 * overrides it, and a change of the rules resizes each pod to what its own node calls for — in
 * place with `inPlace: IfPossible` (same UIDs, no restart, the new size in the container status),
 * by recreating the pods without it; a node whose allocatable grows (`kubectl patch node
 * --subresource=status`) has its pod alone resized, through the relay's node trigger. The status
 * counts agree with a recount of the pods. The tests of a kind run in order on one cluster.
 */
import type { V1ControllerRevision, V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagedKind } from '../../lib/kube/managed-kind.ts';
import { generatedNode } from '../../lib/sim/sim-nodes.ts';
import { inPlaceDaemonSet } from '../support/in-place-daemon-set.ts';
import {
  eventNames,
  kubectlBinary,
  type PipelineWorld,
  startPipelineWorld,
} from '../support/pipeline-harness.ts';

const NAMESPACE = 'sizing';
const SIZING = 'everynode.dev/node-sizing';
/** node-00001 is an m6i.large (1930m allocatable), node-00002 an m6i.2xlarge (7910m), node-00005 an m6i.8xlarge (31850m). */
const NODES = [generatedNode(1), generatedNode(2), generatedNode(5)];
const [LARGE, XL2, XL8] = ['node-00001', 'node-00002', 'node-00005'];

/** A share of each node's cpu, and a fixed 500m on m6i.8xlarge nodes (the later entry wins). */
const rules = (share: string) => [
  { container: 'agent', perAllocatable: { cpu: share } },
  {
    container: 'agent',
    nodeSelector: { matchLabels: { 'node.kubernetes.io/instance-type': 'm6i.8xlarge' } },
    requests: { cpu: '500m' },
  },
];
/** 1% of 1930m, 7910m: 19.3m and 79.1m, rounded up; 500m fixed. */
const ONE_PERCENT = { [LARGE]: '20m', [XL2]: '80m', [XL8]: '500m' };
/** 2%: 38.6m and 158.2m, rounded up; the fixed entry still 500m. */
const TWO_PERCENT = { [LARGE]: '39m', [XL2]: '159m', [XL8]: '500m' };
/** Once node-00001 reports 3930m (the tests run in order): 1% is 39.3m, 2% 78.6m, rounded up. */
const GROWN_ONE_PERCENT = { ...ONE_PERCENT, [LARGE]: '40m' };
const GROWN_TWO_PERCENT = { ...TWO_PERCENT, [LARGE]: '79m' };

describe.runIf(kubectlBinary).each<ManagedKind>(['everynode.dev/v1', 'apps/v1'])(
  'node sizing of %s',
  (kind) => {
    let world: PipelineWorld;
    const resource = kind === 'apps/v1' ? 'ds' : 'eds';

    /** The in-place tests' DaemonSet with `sizing` where the kind holds it. */
    function daemonSet(name: string, inPlace: 'IfPossible' | 'Never', sizing: unknown): string {
      const container = { resources: { requests: { cpu: '10m', memory: '32Mi' } } };
      const manifest = JSON.parse(
        inPlaceDaemonSet({ kind, namespace: NAMESPACE, name, inPlace, container }),
      ) as V1DaemonSet;
      if (kind === 'apps/v1')
        manifest.metadata = {
          ...manifest.metadata,
          annotations: { ...manifest.metadata?.annotations, [SIZING]: JSON.stringify(sizing) },
        };
      else Object.assign(manifest.spec ?? {}, { nodeSizing: sizing });
      return JSON.stringify(manifest);
    }
    const json = async <T>(args: readonly string[]): Promise<T> =>
      JSON.parse(await world.kubectl([...args, '-n', NAMESPACE, '-o', 'json'])) as T;
    const pods = async (app: string) =>
      (await json<{ items: V1Pod[] }>(['get', 'pods', '-l', `app=${app}`])).items.filter(
        (p) => p.metadata?.deletionTimestamp === undefined,
      );
    const ready = (p: V1Pod) =>
      p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
    /** cpu request by node: what the spec asks for, and what the kubelet reports it runs with. */
    const cpuByNode = (list: readonly V1Pod[], from: 'spec' | 'status') =>
      Object.fromEntries(
        list.map((p) => [
          p.spec?.nodeName ?? '',
          from === 'spec'
            ? p.spec?.containers[0]?.resources?.requests?.cpu
            : p.status?.containerStatuses?.[0]?.resources?.requests?.cpu,
        ]),
      );
    /** Resolves when every node runs one ready pod of `app` running with `sizes`. */
    const runningWith = (app: string, sizes: Record<string, string>) =>
      world.until(
        `every ${app} pod runs with ${JSON.stringify(sizes)}`,
        async () => {
          const list = await pods(app);
          return (
            list.length === NODES.length &&
            list.every(ready) &&
            JSON.stringify(cpuByNode(list, 'status')) === JSON.stringify(cpuByNode(list, 'spec')) &&
            Object.entries(sizes).every(([node, cpu]) => cpuByNode(list, 'spec')[node] === cpu)
          );
        },
        60_000,
      );
    const setRules = (name: string, sizing: unknown) =>
      kind === 'apps/v1'
        ? world.kubectl([
            'annotate',
            'ds',
            name,
            '-n',
            NAMESPACE,
            '--overwrite',
            `${SIZING}=${JSON.stringify(sizing)}`,
          ])
        : world.kubectl([
            'patch',
            'eds',
            name,
            '-n',
            NAMESPACE,
            '--type=merge',
            '-p',
            JSON.stringify({ spec: { nodeSizing: sizing } }),
          ]);

    /** The status once it observed the latest generation and counts every pod current; and a recount. */
    /** The current revision's hash: the newest ControllerRevision of the DaemonSet. */
    async function currentHash(ds: V1DaemonSet): Promise<string | undefined> {
      const revisions = (await json<{ items: V1ControllerRevision[] }>(['get', 'controllerrevisions'])).items
        .filter((r) => r.metadata?.ownerReferences?.some((o) => o.uid === ds.metadata?.uid))
        .sort((a, b) => b.revision - a.revision);
      return revisions[0]?.metadata?.labels?.['controller-revision-hash'];
    }

    /**
     * Resolves once the status counts every pod updated and available and a recount of the pods
     * agrees: of the newest revision, with `sizes`, ready. The status, the recount, and the ready pods.
     */
    async function statusAndRecount(name: string, sizes: Record<string, string>) {
      let last: { status?: V1DaemonSet['status']; recount: number; available: number } = {
        recount: -1,
        available: -1,
      };
      await world
        .until(
          `${name}'s status and a recount agree that every pod is updated`,
          async () => {
            const ds = await json<V1DaemonSet>(['get', resource, name]);
            const current = await currentHash(ds);
            const list = await pods(name);
            const recount = list.filter(
              (p) =>
                p.metadata?.labels?.['controller-revision-hash'] === current &&
                p.spec?.containers[0]?.resources?.requests?.cpu === sizes[p.spec?.nodeName ?? ''],
            ).length;
            last = { status: ds.status, recount, available: list.filter(ready).length };
            return (
              ds.status?.observedGeneration === ds.metadata?.generation &&
              ds.status?.updatedNumberScheduled === recount &&
              ds.status?.numberAvailable === last.available &&
              recount === NODES.length
            );
          },
          30_000,
        )
        .catch((error: Error) => {
          throw new Error(`${error.message}: ${JSON.stringify(last)}`);
        });
      return last;
    }

    beforeAll(async () => {
      world = await startPipelineWorld({ managedKind: kind, secured: true, nodes: NODES });
      await world.kubectl(['create', 'namespace', NAMESPACE]);
    });
    afterAll(async () => world?.stop());

    it('gives pods on nodes of three sizes three sizes, the fixed entry winning on its instance type', async () => {
      await world.kubectl(['apply', '-f', '-'], daemonSet('agent', 'IfPossible', rules('1%')));
      await runningWith('agent', ONE_PERCENT);
      // Only cpu is sized: the memory request stays the template's.
      for (const pod of await pods('agent'))
        expect(pod.spec?.containers[0]?.resources?.requests?.memory).toBe('32Mi');
      const { status, recount } = await statusAndRecount('agent', ONE_PERCENT);
      expect(status).toMatchObject({
        desiredNumberScheduled: 3,
        currentNumberScheduled: 3,
        updatedNumberScheduled: 3,
      });
      expect(recount).toBe(3);
    }, 120_000);

    it('resizes in place on a rule change: same pods, no restart, each node its own new size', async () => {
      const before = await pods('agent');
      const uids = Object.fromEntries(before.map((p) => [p.spec?.nodeName, p.metadata?.uid]));
      await setRules('agent', rules('2%'));
      await runningWith('agent', TWO_PERCENT);
      for (const pod of await pods('agent')) {
        expect(pod.metadata?.uid).toBe(uids[pod.spec?.nodeName ?? '']);
        expect(pod.status?.containerStatuses?.[0]?.restartCount).toBe(0);
      }
      expect(cpuByNode(await pods('agent'), 'status')).toEqual(TWO_PERCENT);
      // Two pods change size; the 8xlarge one keeps its fixed 500m and only moves its revision label.
      const resized = await eventNames(world, NAMESPACE, 'Resized');
      expect(resized.trim().split('\n')).toHaveLength(2);
      const { status, recount, available } = await statusAndRecount('agent', TWO_PERCENT);
      expect([status?.updatedNumberScheduled, status?.numberAvailable]).toEqual([recount, available]);
      expect(recount).toBe(3);
      if (kind === 'apps/v1')
        expect(
          await world.kubectl(['rollout', 'status', 'ds/agent', '-n', NAMESPACE, '--timeout=30s']),
        ).toMatch(/daemon set "agent" successfully rolled out/);
    }, 120_000);

    it('resizes in place the pod of a node whose allocatable grew, and only it', async () => {
      const before = await pods('agent');
      const versions = Object.fromEntries(before.map((p) => [p.spec?.nodeName, p.metadata?.resourceVersion]));
      const uid = before.find((p) => p.spec?.nodeName === LARGE)?.metadata?.uid;
      // The node's kubelet now reports 3930m.
      const grown = GROWN_TWO_PERCENT;
      await world.kubectl([
        'patch',
        'node',
        LARGE,
        '--subresource=status',
        '--type=merge',
        '-p',
        JSON.stringify({ status: { allocatable: { cpu: '3930m' } } }),
      ]);
      await runningWith('agent', grown);
      const after = await pods('agent');
      const onLarge = after.find((p) => p.spec?.nodeName === LARGE);
      expect(onLarge?.metadata?.uid).toBe(uid);
      expect(onLarge?.status?.containerStatuses?.[0]?.restartCount).toBe(0);
      for (const node of [XL2, XL8])
        expect(after.find((p) => p.spec?.nodeName === node)?.metadata?.resourceVersion).toBe(versions[node]);
      const { status, recount } = await statusAndRecount('agent', grown);
      expect([status?.updatedNumberScheduled, recount]).toEqual([3, 3]);
    }, 120_000);

    it('recreates the pods on a rule change without inPlace, each sized at creation', async () => {
      await world.kubectl(['apply', '-f', '-'], daemonSet('recreated', 'Never', rules('1%')));
      await runningWith('recreated', GROWN_ONE_PERCENT);
      const uids = new Set((await pods('recreated')).map((p) => p.metadata?.uid));
      await setRules('recreated', rules('2%'));
      // The 8xlarge pod keeps its size but is of the old revision: it is recreated too.
      await world.until(
        'every pod is a new one',
        async () => (await pods('recreated')).every((p) => !uids.has(p.metadata?.uid)),
        60_000,
      );
      await runningWith('recreated', GROWN_TWO_PERCENT);
      const after = await pods('recreated');
      expect(after.filter((p) => uids.has(p.metadata?.uid))).toEqual([]);
      const { status, recount } = await statusAndRecount('recreated', GROWN_TWO_PERCENT);
      expect(status?.updatedNumberScheduled).toBe(recount);
      expect(recount).toBe(3);
    }, 120_000);
  },
);
