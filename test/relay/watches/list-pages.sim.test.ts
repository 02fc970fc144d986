/**
 * The relay's LISTs against the simulated cluster through the real client: pages of 500 from one
 * snapshot (the watch cache would answer whole), taken into the cache and the context page by page,
 * the unlisted forgotten at the commit, nodes handed on slimmed, and a LIST whose snapshot expired
 * while it paged started over.
 */
import type { V1Node } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAEMONSET_UID_LABEL } from '../../../lib/core/daemon-set.ts';
import {
  connectionFromKubeConfig,
  loadKubeConfig,
} from '../../../lib/kube/connection/kubeconfig-connection.ts';
import type { KubePort } from '../../../lib/kube/kube-port.ts';
import { createKubePort } from '../../../lib/kube/operations/create-kube-port.ts';
import { nodeHintOf, podHintOf } from '../../../lib/messages/pair-hints.ts';
import { facetsOf } from '../../../lib/relay/cluster-view/decision-facets.ts';
import { RelayObjectCache } from '../../../lib/relay/cluster-view/facet-cache.ts';
import { RelayNodeContext } from '../../../lib/relay/cluster-view/node-context.ts';
import { LIST_PAGE_SIZE, listForSeeding } from '../../../lib/relay/watches/list-pages.ts';
import { WATCHED_POD_SELECTOR } from '../../../lib/relay/watches/resource-watch.ts';
import { type SimCluster, startSimCluster } from '../../../lib/sim/start-sim-cluster.ts';
import { aDaemonSet, aPod } from '../../support/builders.ts';
import { newPod } from '../../support/store-test-helpers.ts';

const PODS = 1_234;
const USER_AGENT = 'everynode/relay-list-test';
const agent = aDaemonSet('agent', { uid: 'ds-agent' });

describe('the relay lists page by page', () => {
  let sim: SimCluster;
  let kube: KubePort;
  let nodes: string[];

  beforeAll(async () => {
    // No kubelet runs the pods (their nodes do not exist): the LISTs alone are under test.
    sim = await startSimCluster({ nodes: 3, watchWindow: 200, timing: { podGcQuarantineSeconds: 3600 } });
    nodes = sim.nodes.names();
    for (let i = 0; i < PODS; i++) {
      const pod = newPod(`agent-${String(i).padStart(4, '0')}`, {
        owner: agent,
        nodeName: `absent-${i % 7}`,
        labels: { [DAEMONSET_UID_LABEL]: 'ds-agent' },
      });
      sim.store.create('pods', pod);
    }
    sim.store.create('pods', newPod('not-ours', { nodeName: 'absent-0' }));
    kube = createKubePort({
      connection: connectionFromKubeConfig(loadKubeConfig({ yaml: sim.kubeconfig })),
      managedKind: 'apps/v1',
      userAgent: USER_AGENT,
    });
  });
  afterAll(async () => {
    await sim.stop();
  });

  const podLists = () => sim.counters.largestList({ verb: 'list', resource: 'pods', userAgent: USER_AGENT });

  it('takes the pods in pages of 500 into the cache and the context, which forget the unlisted at the commit', async () => {
    const cache = new RelayObjectCache('pods');
    const context = new RelayNodeContext();
    const gone = aPod('gone', { owner: agent, nodeName: 'absent-0', uid: 'p-gone' });
    context.seed('pods', [gone]);
    cache.seed([gone]);
    sim.counters.reset();

    const list = await listForSeeding(kube, 'pods', WATCHED_POD_SELECTOR, cache, context);
    expect(podLists()).toMatchObject({ lists: Math.ceil(PODS / LIST_PAGE_SIZE), items: LIST_PAGE_SIZE });
    expect(list.count).toBe(PODS);
    expect(list.kept).toEqual([]);
    // Each pod held once as its page came; the one the list does not show is still known.
    expect(cache.size).toBe(PODS + 1);
    expect(context.podsOn('absent-0').map((p) => p.name)).toContain('gone');

    list.commit();
    expect(cache.size).toBe(PODS);
    const listed = (await kube.listPods({ labelSelector: WATCHED_POD_SELECTOR })).items;
    for (let node = 0; node < 7; node++) {
      const on = listed.filter((pod) => pod.spec?.nodeName === `absent-${node}`);
      expect(JSON.stringify(context.podsOn(`absent-${node}`))).toBe(JSON.stringify(on.map(podHintOf)));
    }
  });

  it('hands on the listed nodes slimmed, with the facets and hints of the nodes as listed', async () => {
    const context = new RelayNodeContext();
    const cache = new RelayObjectCache('nodes');
    const list = await listForSeeding(kube, 'nodes', WATCHED_POD_SELECTOR, cache, context);
    list.commit();
    const whole = (await kube.listNodes()).items;
    expect(list.kept.map((node) => node.metadata?.name).sort()).toEqual([...nodes].sort());
    for (const slim of list.kept) {
      const node = whole.find((n) => n.metadata?.name === slim.metadata?.name) as V1Node;
      expect(facetsOf('nodes', slim)).toEqual(facetsOf('nodes', node));
      expect(JSON.stringify(nodeHintOf(slim))).toBe(JSON.stringify(nodeHintOf(node)));
      expect(context.node(slim.metadata?.name ?? '')).toEqual(nodeHintOf(node));
      expect(JSON.stringify(slim)).not.toMatch(/images|lastHeartbeatTime|addresses|capacity/);
    }
    expect(JSON.stringify(whole)).toMatch(/lastHeartbeatTime/);
  });

  it('starts over when the snapshot it pages expires between two pages, and lists each pod once', async () => {
    sim.counters.reset();
    let expired = false;
    const expiring: KubePort = Object.create(kube);
    expiring.listPods = async (options) => {
      if (options?.continue !== undefined && !expired) {
        expired = true;
        // The server's paged snapshots move on (it keeps 16), and its history (at most 2 × 200 changes) past it.
        for (let i = 0; i < 17; i++) await kube.listPods({ labelSelector: `app=other-${i}`, limit: 1 });
        for (let i = 0; i < 450; i++)
          sim.store.mutate('pods', 'default', 'not-ours', (pod) => {
            pod.metadata.annotations = { turn: String(i) };
          });
        sim.store.create(
          'pods',
          newPod('agent-late', {
            owner: agent,
            nodeName: 'absent-0',
            labels: { [DAEMONSET_UID_LABEL]: 'ds-agent' },
          }),
        );
      }
      return kube.listPods(options);
    };
    const context = new RelayNodeContext();
    const list = await listForSeeding(expiring, 'pods', WATCHED_POD_SELECTOR, undefined, context);
    list.commit();
    expect(expired).toBe(true);
    expect(list.count).toBe(PODS + 1);
    const names = Array.from({ length: 7 }, (_, node) => context.podsOn(`absent-${node}`)).flat();
    expect(new Set(names.map((pod) => pod.name)).size).toBe(PODS + 1);
    // The first page, its expired continuation, then the whole list again.
    expect(podLists()?.lists).toBe(1 + 17 + Math.ceil((PODS + 1) / LIST_PAGE_SIZE));
    expect(sim.counters.total({ verb: 'list', resource: 'pods', userAgent: USER_AGENT })).toBe(
      1 + 17 + 1 + Math.ceil((PODS + 1) / LIST_PAGE_SIZE),
    );
  });

  it('rejects a page that fails otherwise, forgetting nothing', async () => {
    const context = new RelayNodeContext();
    const known = aPod('known', { owner: agent, nodeName: 'absent-0', uid: 'p-known' });
    context.seed('pods', [known]);
    const failing: KubePort = Object.create(kube);
    failing.listPods = (options) =>
      kube.listPods({ ...options, ...(options?.continue ? { continue: 'not-a-token' } : {}) });
    await expect(listForSeeding(failing, 'pods', WATCHED_POD_SELECTOR, undefined, context)).rejects.toThrow();
    expect(context.podsOn('absent-0').map((pod) => pod.name)).toContain('known');
  });
});
