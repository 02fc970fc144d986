/**
 * An in-place resize the node cannot take falls back to a recreate, through the local pipeline and
 * driven with kubectl, for both kinds (docs/design.md, 31. In-place updates): the kubelet reports
 * it `Infeasible` (requests beyond the node's allocatable) and the pod is recreated at once, or
 * `Deferred` (the node's other pods leave too little) and the pod is recreated once the condition
 * has held for the deadline — here 2 seconds, set through the pipeline's `resizeDeferredSeconds`
 * (`EVERYNODE_RESIZE_DEFERRED_SECONDS` of the reconcile function). Each time the pod gets a new
 * UID, a Warning event names the reason, and the reason's metric counts it.
 */
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagedKind } from '../../lib/kube/managed-kind.ts';
import { inPlaceMetrics } from '../../lib/reconcile/effects/in-place-update-metrics.ts';
import { aDaemonSet, creatableDaemonSet } from '../support/builders.ts';
import { kubectlBinary, type PipelineWorld, startPipelineWorld } from '../support/pipeline-harness.ts';

const NAMESPACE = 'agents';
/** The simulated cluster's seed nodes: four, of which the control-plane node runs no daemon pod. */
const SEED_NODES = 4;
const NODES = 3;
const DEFERRED_SECONDS = 2;

describe.runIf(kubectlBinary).each<ManagedKind>(['everynode.dev/v1', 'apps/v1'])(
  'in-place resizes that fall back to a recreate, %s',
  (kind) => {
    let world: PipelineWorld;
    /** The least cpu (millicores) a worker node offers pods. */
    let allocatableCpu = 0;
    const resource = kind === 'apps/v1' ? 'ds' : 'eds';

    /** The DaemonSet `name` asking `cpu` per pod, updated in place when `inPlace`, one node at a time. */
    function daemonSet(name: string, cpu: string, inPlace: boolean) {
      const rollingUpdate = {
        maxUnavailable: 1,
        ...(inPlace && kind !== 'apps/v1' ? { inPlace: 'IfPossible' } : {}),
      };
      const ds = aDaemonSet(name, {
        namespace: NAMESPACE,
        ...(inPlace && kind === 'apps/v1' ? { annotations: { 'everynode.dev/in-place': 'IfPossible' } } : {}),
        updateStrategy: { type: 'RollingUpdate', rollingUpdate },
        podSpec: {
          terminationGracePeriodSeconds: 1,
          containers: [{ name: 'agent', image: 'busybox:1.36', resources: { requests: { cpu } } }],
        },
      });
      return JSON.stringify(creatableDaemonSet(ds, kind));
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
    const resizeCpu = (name: string, cpu: string) =>
      world.kubectl([
        'patch',
        resource,
        name,
        '-n',
        NAMESPACE,
        '--type=json',
        '-p',
        JSON.stringify([
          { op: 'replace', path: '/spec/template/spec/containers/0/resources', value: { requests: { cpu } } },
        ]),
      ]);
    const allReady = (name: string) =>
      world.until(
        `every ${name} pod is ready`,
        async () => (await pods(name)).filter(ready).length === NODES,
      );
    /** The type and message of the first Event of `reason`, as `Warning <message>`, once there is one. */
    async function firstEvent(reason: string): Promise<string> {
      const jsonpath = 'jsonpath={.items[0].type} {.items[0].message}';
      const args = ['get', 'events', '-n', NAMESPACE, '--field-selector', `reason=${reason}`, '-o', jsonpath];
      let text = '';
      await world.until(`a ${reason} event is written`, async () => {
        text = (await world.kubectl(args).catch(() => '')).trim();
        return text !== '';
      });
      return text;
    }

    /**
     * Resizes `name` to `cpu` and waits for a pod to be recreated; resolves to the recreated pod's
     * node, the UID it had, and the replacement.
     */
    async function resizeUntilRecreated(name: string, cpu: string) {
      const before = new Map((await pods(name)).map((p) => [p.spec?.nodeName ?? '', p.metadata?.uid]));
      await resizeCpu(name, cpu);
      let replaced: V1Pod | undefined;
      await world.until(
        `a ${name} pod is recreated`,
        async () => {
          replaced = (await pods(name)).find(
            (p) =>
              p.metadata?.deletionTimestamp === undefined &&
              before.has(p.spec?.nodeName ?? targetNode(p)) &&
              before.get(p.spec?.nodeName ?? targetNode(p)) !== p.metadata?.uid,
          );
          return replaced !== undefined;
        },
        60_000,
      );
      const node = replaced?.spec?.nodeName ?? targetNode(replaced as V1Pod);
      return { node, oldUid: before.get(node), replaced: replaced as V1Pod };
    }

    beforeAll(async () => {
      world = await startPipelineWorld({
        managedKind: kind,
        secured: true,
        nodes: SEED_NODES,
        timeScale: 1,
        resizeDeferredSeconds: DEFERRED_SECONDS,
      });
      await world.kubectl(['create', 'namespace', NAMESPACE]);
      const nodes = JSON.parse(await world.kubectl(['get', 'nodes', '-o', 'json'])) as { items: V1Node[] };
      const workers = nodes.items.filter(
        (n) => !(n.spec?.taints ?? []).some((t) => t.key === 'node-role.kubernetes.io/control-plane'),
      );
      allocatableCpu = Math.min(...workers.map((n) => milli(n.status?.allocatable?.cpu ?? '0')));
      expect(allocatableCpu).toBeGreaterThan(500);
    }, 60_000);
    afterAll(async () => world?.stop());

    it('recreates a pod whose resize asks for more cpu than its node has (Infeasible)', async () => {
      await world.kubectl(['apply', '-f', '-'], daemonSet('huge', '100m', true));
      await allReady('huge');
      const { node, oldUid, replaced } = await resizeUntilRecreated('huge', `${allocatableCpu * 4}m`);
      expect(replaced.metadata?.uid).not.toBe(oldUid);
      // The replacement is of the new revision: the scheduler, not the kubelet, judges it now.
      expect(replaced.spec?.containers[0]?.resources?.requests?.cpu).toBe(`${allocatableCpu * 4}m`);
      const message = await firstEvent('ResizeInfeasible');
      expect(message).toMatch(
        /^Warning Resize of pod agents\/huge-\S+ on node \S+ to revision \S+ is infeasible: /,
      );
      expect(message).toContain(node);
      expect(message).toContain("Node didn't have enough capacity: cpu");
      expect(world.pipeline.counters.get(inPlaceMetrics.resizeFallbacksInfeasible)).toBeGreaterThanOrEqual(1);
      expect(world.pipeline.counters.get(inPlaceMetrics.resizedInPlace)).toBeGreaterThanOrEqual(1);
      expect(world.pipeline.counters.get(inPlaceMetrics.resizeFallbacksDeferred)).toBe(0);
      // Within maxUnavailable 1: the other nodes keep their pods, still of the old resources.
      const others = (await pods('huge')).filter((p) => p.metadata?.uid !== replaced.metadata?.uid);
      expect(others.filter(ready)).toHaveLength(NODES - 1);
      await world.kubectl(['delete', resource, 'huge', '-n', NAMESPACE]);
    }, 120_000);

    it('recreates a pod whose resize stays Deferred past the deadline', async () => {
      // The filler takes 60% of each node's cpu: a resize to 60% fits the node but not beside it.
      const share = `${Math.floor(allocatableCpu * 0.6)}m`;
      await world.kubectl(['apply', '-f', '-'], daemonSet('filler', share, false));
      await world.kubectl(['apply', '-f', '-'], daemonSet('roomy', '100m', true));
      await allReady('filler');
      await allReady('roomy');
      // When each roomy pod was first reported Deferred, and when its delete came.
      const deferredAt = new Map<string, number>();
      const deletedAt = new Map<string, number>();
      const stop = world.sim.store.subscribe((event) => {
        const pod = event.object as unknown as V1Pod;
        const uid = pod.metadata?.uid ?? '';
        if (event.key !== 'pods' || pod.metadata?.labels?.app !== 'roomy') return;
        const pending = pod.status?.conditions?.find((c) => c.type === 'PodResizePending');
        if (pending?.reason === 'Deferred' && !deferredAt.has(uid)) deferredAt.set(uid, Date.now());
        if (pod.metadata?.deletionTimestamp && !deletedAt.has(uid)) deletedAt.set(uid, Date.now());
      });
      const { oldUid, replaced } = await resizeUntilRecreated('roomy', share);
      stop();
      // Recreated once the deadline passed (lastTransitionTime has whole seconds), and soon after:
      // the step asked to run again at the deadline, nothing else brought it.
      const waited = (deletedAt.get(oldUid ?? '') ?? 0) - (deferredAt.get(oldUid ?? '') ?? 0);
      expect(deferredAt.has(oldUid ?? '')).toBe(true);
      expect(waited).toBeGreaterThanOrEqual((DEFERRED_SECONDS - 1) * 1000);
      expect(waited).toBeLessThan((DEFERRED_SECONDS + 5) * 1000);
      expect(replaced.metadata?.uid).not.toBe(oldUid);
      const message = await firstEvent('ResizeDeferred');
      expect(message).toMatch(
        /^Warning Resize of pod agents\/roomy-\S+ on node \S+ to revision \S+ stayed deferred: /,
      );
      expect(message).toContain(`the limit is ${DEFERRED_SECONDS}s`);
      expect(world.pipeline.counters.get(inPlaceMetrics.resizeFallbacksDeferred)).toBeGreaterThanOrEqual(1);
    }, 120_000);
  },
);

/** A cpu quantity in millicores (`4`, `3920m`). */
function milli(cpu: string): number {
  return cpu.endsWith('m') ? Number(cpu.slice(0, -1)) : Math.round(Number(cpu) * 1000);
}

/** The node a pod not yet bound is pinned to by its node affinity (the DaemonSet controller's). */
function targetNode(pod: Readonly<V1Pod>): string {
  const terms =
    pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  return terms?.[0]?.matchFields?.[0]?.values?.[0] ?? '';
}
