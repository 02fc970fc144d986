/**
 * The test plays DaemonSet controller (the simulator has none): through @kubernetes/client-node it
 * creates the ControllerRevision and the daemon pods lib/core says a DaemonSet should have, and
 * writes the status lib/core computes — so kubectl's rollout commands have something real to read.
 */
import {
  AppsV1Api,
  CoreV1Api,
  KubeConfig,
  type V1DaemonSet,
  type V1Node,
  type V1Pod,
} from '@kubernetes/client-node';
import { controllerRevisionFor } from '../../lib/core/controller-revision.ts';
import { daemonPodFor } from '../../lib/core/daemon-pod.ts';
import { computeDaemonSetStatus } from '../../lib/core/daemon-set-status.ts';
import { nodeShouldRunDaemonPod } from '../../lib/core/placement.ts';
import { templateHash } from '../../lib/core/template-hash.ts';

/** Client-node APIs for a kubeconfig. */
export function apisFor(kubeconfig: string): { core: CoreV1Api; apps: AppsV1Api } {
  const config = new KubeConfig();
  config.loadFromString(kubeconfig);
  return { core: config.makeApiClient(CoreV1Api), apps: config.makeApiClient(AppsV1Api) };
}

/** Records the DaemonSet's current template as ControllerRevision number `revision`. */
export async function recordRevision(
  apps: AppsV1Api,
  namespace: string,
  name: string,
  revision: number,
): Promise<string> {
  const ds = await apps.readNamespacedDaemonSet({ namespace, name });
  const body = controllerRevisionFor(ds, revision);
  await apps.createNamespacedControllerRevision({ namespace, body });
  return body.metadata?.name ?? '';
}

/** Creates the daemon pod of the current revision on every node that should run one; returns their names. */
export async function createDaemonPods(
  core: CoreV1Api,
  apps: AppsV1Api,
  namespace: string,
  name: string,
): Promise<string[]> {
  const ds = await apps.readNamespacedDaemonSet({ namespace, name });
  const hash = templateHash(ds.spec?.template ?? {}, ds.status?.collisionCount);
  const nodes = (await core.listNode()).items.filter((n) => nodeShouldRunDaemonPod(n, ds).shouldRun);
  const created: string[] = [];
  for (const node of nodes) {
    const body = daemonPodFor(ds, node.metadata?.name ?? '', hash);
    await core.createNamespacedPod({ namespace, body });
    created.push(body.metadata?.name ?? '');
  }
  return created;
}

/** Computes the DaemonSet's status from the cluster as lib/core does and writes it to /status. */
export async function writeDaemonSetStatus(
  core: CoreV1Api,
  apps: AppsV1Api,
  namespace: string,
  name: string,
): Promise<V1DaemonSet> {
  const ds = await apps.readNamespacedDaemonSet({ namespace, name });
  const nodes: V1Node[] = (await core.listNode()).items;
  const selector = Object.entries(ds.spec?.selector.matchLabels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  const pods = (await core.listNamespacedPod({ namespace, labelSelector: selector })).items;
  const byNode: Record<string, V1Pod[]> = {};
  for (const pod of pods) {
    const node = pod.spec?.nodeName;
    if (node) byNode[node] = [...(byNode[node] ?? []), pod];
  }
  const hash = templateHash(ds.spec?.template ?? {}, ds.status?.collisionCount);
  const status = computeDaemonSetStatus(ds, nodes, byNode, hash, new Date());
  return apps.replaceNamespacedDaemonSetStatus({ namespace, name, body: { ...ds, status } });
}

/** Polls `read` until `accept` holds (or the time is up), returning the last value. */
export async function pollUntil<T>(
  read: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
