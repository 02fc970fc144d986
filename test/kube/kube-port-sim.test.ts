/**
 * The real adapter against the simulated cluster (lib/sim) over HTTP: the requests the pipeline
 * makes, and the guards it relies on, as a real API server answers them.
 */
import type { V1DaemonSet } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonPodFor } from '../../lib/core/daemon-pod.ts';
import { DAEMONSET_UID_LABEL } from '../../lib/core/daemon-set.ts';
import { connectionFromKubeConfig, loadKubeConfig } from '../../lib/kube/connection/kubeconfig-connection.ts';
import { AlreadyExistsError, ConflictError, NotFoundError } from '../../lib/kube/errors/kube-api-errors.ts';
import type { KubePort, WatchedObjects, WatchedResource } from '../../lib/kube/kube-port.ts';
import type { ManagedKind } from '../../lib/kube/managed-kind.ts';
import { createKubePort } from '../../lib/kube/operations/create-kube-port.ts';
import { eventFor } from '../../lib/kube/operations/event-for.ts';
import { RequestBudget } from '../../lib/kube/requests/request-budget.ts';
import { RequestCounter } from '../../lib/kube/requests/request-counter.ts';
import { type SimCluster, startSimCluster } from '../../lib/sim/start-sim-cluster.ts';
import type { KubeObject } from '../../lib/sim/storage/store.ts';
import { aDaemonSet } from '../support/builders.ts';

let cluster: SimCluster;
const counter = new RequestCounter();

beforeAll(async () => {
  cluster = await startSimCluster({ nodes: 2, timing: { timeScale: 0.001 } });
});
afterAll(() => cluster.stop());

function portFor(managedKind: ManagedKind): KubePort {
  const connection = connectionFromKubeConfig(loadKubeConfig({ yaml: cluster.kubeconfig }));
  const budget = new RequestBudget({ requestsPerSecond: 500, burst: 500 });
  return createKubePort({ connection, managedKind, counter, budget, userAgent: 'everynode/sim-test' });
}

/** Creates a DaemonSet in the cluster the way a user would (test setup, not through the port). */
function seedDaemonSet(ds: V1DaemonSet, key: 'apps/daemonsets' | 'everynode.dev/daemonsets'): void {
  const json = JSON.parse(JSON.stringify(ds)) as KubeObject;
  const { uid: _uid, resourceVersion: _rv, creationTimestamp: _created, ...metadata } = json.metadata;
  cluster.store.create(key, { ...json, metadata });
}

async function loaded(port: KubePort, name: string) {
  const ds = await port.getDaemonSet('default', name);
  if (!ds) throw new Error(`DaemonSet ${name} is missing`);
  return ds;
}

describe('KubePort against the simulated cluster', () => {
  it('creates a daemon pod once, and guards deletes and owner patches with uid and resourceVersion', async () => {
    const port = portFor('apps/v1');
    seedDaemonSet(aDaemonSet('agent'), 'apps/daemonsets');
    const ds = await loaded(port, 'agent');
    const [node] = (await port.listNodes({ allowStale: true })).items;
    const pod = daemonPodFor(ds, node?.metadata?.name ?? '', 'rev1');
    const created = await port.createPod(pod);
    await expect(port.createPod(pod)).rejects.toBeInstanceOf(AlreadyExistsError);

    const selector = `${DAEMONSET_UID_LABEL}=${ds.metadata?.uid}`;
    const listed = await port.listPods({ namespace: 'default', labelSelector: selector });
    expect(listed.items.map((p) => p.metadata?.name)).toEqual([pod.metadata?.name]);

    const target = { namespace: 'default', name: pod.metadata?.name ?? '', uid: created.metadata?.uid ?? '' };
    // The scheduler and kubelet keep changing the pod, so read its version right before patching.
    const release = async () => {
      for (let attempt = 0; ; attempt += 1) {
        const [current] = (await port.listPods({ namespace: 'default', labelSelector: selector })).items;
        const patch = { ...target, resourceVersion: current?.metadata?.resourceVersion, ownerReferences: [] };
        try {
          return await port.patchPodOwnerReferences(patch);
        } catch (error) {
          if (!(error instanceof ConflictError) || attempt >= 10) throw error;
        }
      }
    };
    const released = await release();
    expect(released.metadata?.ownerReferences ?? []).toEqual([]);
    await expect(
      port.patchPodOwnerReferences({
        ...target,
        resourceVersion: created.metadata?.resourceVersion,
        ownerReferences: [],
      }),
    ).rejects.toBeInstanceOf(ConflictError);

    await expect(port.deletePod({ ...target, uid: 'someone-else' })).rejects.toBeInstanceOf(ConflictError);
    await expect(
      port.deletePod({ ...target, resourceVersion: created.metadata?.resourceVersion }),
    ).rejects.toBeInstanceOf(ConflictError);
    await port.deletePod(target, { gracePeriodSeconds: 0 });
    await expect(port.deletePod({ ...target, name: 'never-existed' })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('writes DaemonSet status only at the version it read, keeping everynode.dev/v1 extension fields', async () => {
    const port = portFor('everynode.dev/v1');
    const eds = aDaemonSet('edge', {
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
    });
    const rollingUpdate = { maxUnavailable: 1, partition: 1, paused: true };
    seedDaemonSet(
      {
        ...eds,
        apiVersion: 'everynode.dev/v1',
        spec: { ...eds.spec, updateStrategy: { type: 'RollingUpdate', rollingUpdate } },
      } as V1DaemonSet,
      'everynode.dev/daemonsets',
    );
    const ds = await loaded(port, 'edge');
    expect(ds.apiVersion).toBe('everynode.dev/v1');
    expect(ds.spec?.updateStrategy?.rollingUpdate).toMatchObject(rollingUpdate);
    const status = {
      currentNumberScheduled: 0,
      desiredNumberScheduled: 2,
      numberMisscheduled: 0,
      numberReady: 0,
      observedGeneration: 1,
    };
    const written = await port.updateDaemonSetStatus({ ...ds, status });
    expect(written.status).toMatchObject(status);
    expect(written.spec?.updateStrategy?.rollingUpdate).toMatchObject(rollingUpdate);
    await expect(
      port.updateDaemonSetStatus({ ...ds, status: { ...status, numberReady: 1 } }),
    ).rejects.toBeInstanceOf(ConflictError);
    expect((await port.listDaemonSets()).items.map((d) => d.metadata?.name)).toEqual(['edge']);
  });

  it('keeps ControllerRevisions and records Events', async () => {
    const port = portFor('apps/v1');
    const ds = await loaded(port, 'agent');
    const revision = {
      metadata: { name: 'agent-rev1', namespace: 'default', labels: { app: 'agent' } },
      data: { spec: { template: { $patch: 'replace' } } },
      revision: 1,
    };
    const created = await port.createControllerRevision(revision);
    await expect(port.createControllerRevision(revision)).rejects.toBeInstanceOf(AlreadyExistsError);
    const updated = await port.updateControllerRevision({ ...created, revision: 3 });
    await expect(port.updateControllerRevision({ ...created, revision: 4 })).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect(
      (await port.listControllerRevisions('default', { labelSelector: 'app=agent' })).items.map(
        (r) => r.revision,
      ),
    ).toEqual([3]);
    await port.deleteControllerRevision({
      namespace: 'default',
      name: 'agent-rev1',
      uid: updated.metadata?.uid ?? '',
    });
    expect((await port.listControllerRevisions('default')).items).toEqual([]);

    const involvedObject = {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      namespace: 'default',
      name: 'agent',
      uid: ds.metadata?.uid ?? '',
    };
    await port.createEvent(
      eventFor({
        involvedObject,
        type: 'Normal',
        reason: 'SuccessfulCreate',
        message: 'Created pod: x',
        now: new Date(),
      }),
    );
    expect(cluster.store.list('events', { namespace: 'default' }).map((e) => e.reason)).toContain(
      'SuccessfulCreate',
    );
  });

  /** The first ADDED event of `resource` watched from `resourceVersion`. */
  async function firstAdded<R extends WatchedResource>(
    port: KubePort,
    resource: R,
    resourceVersion: string,
  ): Promise<WatchedObjects[R] | undefined> {
    const controller = new AbortController();
    for await (const event of port.watch(resource, {
      resourceVersion,
      timeoutSeconds: 5,
      signal: controller.signal,
    })) {
      if (event.type === 'ADDED') {
        controller.abort();
        return event.object;
      }
    }
    return undefined;
  }

  it('watches from a list resourceVersion', async () => {
    const port = portFor('apps/v1');
    const { resourceVersion } = await port.listNodes();
    cluster.nodes.add('late-node');
    expect((await firstAdded(port, 'nodes', resourceVersion))?.metadata?.name).toBe('late-node');
  });

  it('lists ControllerRevisions in every namespace and watches them', async () => {
    const port = portFor('apps/v1');
    const { resourceVersion } = await port.listControllerRevisions(undefined);
    cluster.store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } });
    const revision = {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: { name: 'elsewhere-rev1', namespace: 'other' },
      data: {},
      revision: 1,
    };
    await port.createControllerRevision(revision);
    const all = await port.listControllerRevisions(undefined);
    expect(all.items.map((r) => `${r.metadata?.namespace}/${r.metadata?.name}`)).toContain(
      'other/elsewhere-rev1',
    );
    expect(all.items[0]?.kind).toBe('ControllerRevision');
    const added = await firstAdded(port, 'controllerrevisions', resourceVersion);
    expect(added?.metadata?.name).toBe('elsewhere-rev1');
    expect(added?.apiVersion).toBe('apps/v1');
  });

  it('counts exactly the requests the API server saw from it', () => {
    expect(counter.total()).toBe(cluster.counters.total({ userAgent: 'everynode/sim-test' }));
    expect(counter.snapshot().watch).toBe(
      cluster.counters.total({ userAgent: 'everynode/sim-test', verb: 'watch' }),
    );
  });
});
