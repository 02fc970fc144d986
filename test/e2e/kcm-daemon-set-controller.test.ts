/**
 * The kube-controller-manager DaemonSet controller the tests play
 * (test/support/kcm-daemon-set-controller.ts) against the simulated cluster, driven and read with
 * the real kubectl: one pod per node kcm would place one on, one revision holding getPatch's exact
 * bytes, a rolling update, adoption after an orphaning delete without creating or deleting
 * anything, and Match comparing bytes, not content (a revision with the same template in another
 * key order is not the current one; under the name kcm wants, it is a hash collision).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DAEMON_TOLERATIONS,
  type KcmController,
  kcmGetPatch,
  startKcmDaemonSetController,
} from '../support/kcm-daemon-set-controller.ts';
import { type KcmDaemonSet, type KcmPod, kcmComputeHash } from '../support/kcm-daemon-set-history.ts';
import { findKubectl, tableRows, useKubectlSim } from '../support/kubectl-harness.ts';

const binary = findKubectl();
const NAMESPACE = 'kcm';
const HASH = 'controller-revision-hash';
const dir = mkdtempSync(join(tmpdir(), 'everynode-kcm-'));
const kubeconfig = join(dir, 'kubeconfig');
/** The seed nodes kcm places a daemon pod on: the cordoned one too (the pod tolerates the cordon), no tainted or not-ready one. */
const PLACEMENT = ['cordoned-1', 'worker-1', 'worker-ssd'];
/** A DaemonSet `name` of `image` in `namespace`, as a user applies it. */
function daemonSet(name: string, image: string, namespace = NAMESPACE): string {
  const labels = { app: name };
  const spec = { containers: [{ name: 'agent', image }] };
  const template = { metadata: { labels }, spec };
  const metadata = { name, namespace };
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata,
    spec: { selector: { matchLabels: labels }, template },
  });
}

/** `value` with the keys of every object in reverse byte order: the same content, other bytes. */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value).sort().reverse();
  return Object.fromEntries(keys.map((key) => [key, reordered((value as Record<string, unknown>)[key])]));
}

/** A revision as the tests read it: its data's text as served. */
interface RevisionView {
  readonly name: string;
  readonly revision: number;
  readonly hash?: string;
  readonly owner?: string;
  readonly data: string;
}

describe.runIf(binary)('the kube-controller-manager DaemonSet controller the tests play', () => {
  const sim = useKubectlSim(binary, { kubeconfigPath: kubeconfig, timing: { timeScale: 0.1 } });
  const errors: unknown[] = [];
  let player: KcmController;

  const get = async <T>(path: string, init?: RequestInit): Promise<T> => {
    const response = await fetch(`${sim.cluster.url}${path}`, init);
    const text = await response.text();
    if (!response.ok) throw new Error(`${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  };
  const served = (name: string, namespace = NAMESPACE) =>
    get<KcmDaemonSet>(`/apis/apps/v1/namespaces/${namespace}/daemonsets/${name}`);
  const pods = async (app: string, namespace = NAMESPACE) =>
    (
      await get<{ items: KcmPod[] }>(`/api/v1/namespaces/${namespace}/pods?labelSelector=app%3D${app}`)
    ).items.filter((pod) => !pod.metadata.deletionTimestamp);
  const revisions = async (namespace = NAMESPACE): Promise<RevisionView[]> => {
    const list = await get<{ items: (KcmDaemonSet & { data: unknown; revision: number })[] }>(
      `/apis/apps/v1/namespaces/${namespace}/controllerrevisions`,
    );
    return list.items
      .map(({ metadata, data, revision }) => ({
        name: metadata.name,
        revision,
        hash: metadata.labels?.[HASH],
        owner: metadata.ownerReferences?.find((ref) => ref.controller)?.uid,
        data: JSON.stringify(data),
      }))
      .sort((a, b) => a.revision - b.revision);
  };
  const until = async (what: string, check: () => Promise<boolean>) => {
    for (const deadline = Date.now() + 20_000; !(await check()); ) {
      if (Date.now() > deadline)
        throw new Error(`timed out until ${what}; player errors: ${errors.join('; ')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const rolledOut = async (name: string) =>
    expect(await sim.ok(['rollout', 'status', `ds/${name}`, '-n', NAMESPACE, '--timeout=30s'])).toContain(
      `daemon set "${name}" successfully rolled out`,
    );

  beforeAll(async () => {
    await sim.ok(['create', 'namespace', NAMESPACE]);
    player = startKcmDaemonSetController({
      kubeconfig,
      namespace: NAMESPACE,
      onError: (e) => errors.push(e),
    });
  });
  afterAll(async () => {
    await player?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs a pod on every node kcm would and records getPatch’s exact bytes as revision 1', async () => {
    await sim.ok(['apply', '-f', '-'], daemonSet('agent', 'busybox:1.36'));
    await rolledOut('agent');
    const ds = await served('agent');
    const [revision, ...more] = await revisions();
    expect(more).toEqual([]);
    expect(revision).toEqual({
      name: `agent-${revision?.hash}`,
      revision: 1,
      hash: revision?.hash,
      owner: ds.metadata.uid,
      data: kcmGetPatch(ds),
    });
    const running = await pods('agent');
    expect(running.map((pod) => pod.spec.nodeName).sort()).toEqual(PLACEMENT);
    for (const pod of running) {
      expect(pod.metadata.labels).toEqual({
        app: 'agent',
        [HASH]: revision?.hash,
        'pod-template-generation': '1',
      });
      expect(pod.spec.tolerations).toEqual(expect.arrayContaining(DAEMON_TOLERATIONS));
      expect(pod.metadata.ownerReferences).toEqual([
        expect.objectContaining({ uid: ds.metadata.uid, controller: true }),
      ]);
    }
    expect(player.counters).toEqual({
      podsCreated: 3,
      podsDeleted: 0,
      revisionsCreated: 1,
      podsAdopted: 0,
      revisionsAdopted: 0,
    });
  });

  it('rolls every pod to a new image under revision 2 and keeps revision 1', async () => {
    let [fewestReady, rolling] = [PLACEMENT.length, true];
    const watching = (async () => {
      for (; rolling; await new Promise((resolve) => setTimeout(resolve, 20))) {
        const ready = (await pods('agent')).filter((pod) =>
          pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        );
        fewestReady = Math.min(fewestReady, ready.length);
      }
    })();
    await sim.ok(['set', 'image', 'ds/agent', 'agent=busybox:1.37', '-n', NAMESPACE]);
    await rolledOut('agent');
    rolling = false;
    await watching;
    expect(fewestReady, 'maxUnavailable 1: one pod down at a time').toBe(PLACEMENT.length - 1);
    const ds = await served('agent');
    const [first, second] = await revisions();
    expect([first?.revision, second?.revision]).toEqual([1, 2]);
    expect(second?.data).toBe(kcmGetPatch(ds));
    expect(first?.data).toContain('busybox:1.36');
    const running = await pods('agent');
    expect(running.map((pod) => [pod.spec.nodeName, pod.spec.containers[0]?.image]).sort()).toEqual(
      PLACEMENT.map((node) => [node, 'busybox:1.37']),
    );
    for (const pod of running) expect(pod.metadata.labels?.[HASH]).toBe(second?.hash);
    expect(player.counters).toMatchObject({ podsCreated: 6, podsDeleted: 3, revisionsCreated: 2 });
    const history = tableRows(await sim.ok(['rollout', 'history', 'ds/agent', '-n', NAMESPACE]));
    expect(history.slice(2).map((row) => row[0])).toEqual(['1', '2']);
  });

  it('adopts the pods and revisions an orphaning delete left, creating and deleting nothing', async () => {
    const before = { ...player.counters };
    const uids = (await pods('agent')).map((pod) => pod.metadata.uid).sort();
    await sim.ok(['delete', 'ds', 'agent', '-n', NAMESPACE, '--cascade=orphan']);
    const orphaned = async () =>
      (await pods('agent')).every((pod) => !pod.metadata.ownerReferences?.length) &&
      (await revisions()).every((revision) => revision.owner === undefined);
    await until('garbage collection orphaned the pods and revisions', orphaned);
    await sim.ok(['apply', '-f', '-'], daemonSet('agent', 'busybox:1.37'));
    const ds = await served('agent');
    await until('the new DaemonSet owns every pod and revision', async () => {
      const owned = (await pods('agent')).every(
        (pod) => pod.metadata.ownerReferences?.[0]?.uid === ds.metadata.uid,
      );
      return owned && (await revisions()).every((revision) => revision.owner === ds.metadata.uid);
    });
    await rolledOut('agent');
    expect((await pods('agent')).map((pod) => pod.metadata.uid).sort()).toEqual(uids);
    expect((await revisions()).map((r) => r.revision)).toEqual([1, 2]);
    expect(player.counters).toEqual({
      ...before,
      podsAdopted: before.podsAdopted + 3,
      revisionsAdopted: before.revisionsAdopted + 2,
    });
  });

  it('does not match a revision of the same template in another key order: a collision, then a new name', async () => {
    const namespace = 'kcm-order';
    await sim.ok(['create', 'namespace', namespace]);
    const manual = startKcmDaemonSetController({ kubeconfig, namespace, intervalMs: 3_600_000 });
    try {
      await sim.ok(['apply', '-f', '-'], daemonSet('probe', 'busybox:1.36', namespace));
      const ds = await served('probe', namespace);
      const patch = kcmGetPatch(ds);
      const text = JSON.stringify(reordered(JSON.parse(patch)));
      expect(JSON.parse(text)).toEqual(JSON.parse(patch));
      expect(text).not.toBe(patch);
      const name = `probe-${kcmComputeHash(patch)}`;
      const body = `{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"${name}","labels":{"app":"probe"}},"data":${text},"revision":1}`;
      const init = { method: 'POST', headers: { 'Content-Type': 'application/json' }, body };
      await get(`/apis/apps/v1/namespaces/${namespace}/controllerrevisions`, init);

      // As upstream, the hash label goes onto the revision as listed, which the adoption changed.
      await expect(manual.syncOnce()).rejects.toThrow(/the object has been modified/);
      await expect(manual.syncOnce()).rejects.toThrow(/already exists/);
      expect((await served('probe', namespace)).status?.collisionCount).toBe(1);
      await manual.syncOnce();
      const [taken, current, ...more] = await revisions(namespace);
      expect(more).toEqual([]);
      expect(taken).toEqual({ name, revision: 1, hash: name, owner: ds.metadata.uid, data: text });
      const hash = kcmComputeHash(patch, 1);
      expect(current).toEqual({
        name: `probe-${hash}`,
        revision: 2,
        hash,
        owner: ds.metadata.uid,
        data: patch,
      });
      expect((await pods('probe', namespace)).map((pod) => pod.metadata.labels?.[HASH])).toEqual([
        hash,
        hash,
        hash,
      ]);
      expect(manual.counters).toEqual({
        podsCreated: 3,
        podsDeleted: 0,
        revisionsCreated: 1,
        podsAdopted: 0,
        revisionsAdopted: 1,
      });
    } finally {
      await manual.stop();
    }
  });
});
