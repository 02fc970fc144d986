/**
 * The steps of upstream's DaemonSet e2e tests (test/e2e/apps/daemon_set.go) that talk to the
 * cluster — every write through kubectl as a user would, the reads behind them and behind the
 * polled conditions as plain GETs (see e2e-framework.ts) — and the `Daemon set [Serial]` block's
 * BeforeEach and AfterEach around each test: node labels of earlier tests cleared before, every
 * DaemonSet of the namespace deleted and its pods waited out after.
 */
import type { V1ControllerRevision, V1DaemonSet, V1Node, V1Pod, V1PodSpec } from '@kubernetes/client-node';
import { expect } from 'vitest';
import {
  DAEMONSET_NAME_LABEL,
  daemonPodsOnNodes,
  readySchedulableNodes,
  schedulableNodes,
  separateDaemonSetNodeLabels,
} from './daemon-set-checks.ts';
import { type Framework, poll, useFramework } from './e2e-framework.ts';

/** upstream WebserverImage (imageutils.Httpd). */
export const WEBSERVER_IMAGE = 'registry.k8s.io/e2e-test-images/httpd:2.4.38-4';
/** upstream AgnhostImage (imageutils.Agnhost). */
export const AGNHOST_IMAGE = 'registry.k8s.io/e2e-test-images/agnhost:2.52';
/** upstream dsName. */
export const DS_NAME = 'daemon-set';
/** upstream's `label` of every test: `daemonset-name: daemon-set`. */
export const DS_LABEL: Readonly<Record<string, string>> = { [DAEMONSET_NAME_LABEL]: DS_NAME };

interface List<T> {
  readonly items: T[];
}

const selectorOf = (label: Readonly<Record<string, string>>) =>
  Object.entries(label)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');

/**
 * upstream newDaemonSetWithLabel (e2edaemonset.NewDaemonSet): selector and pod labels `label`, one
 * container `app` of `image` with port 9376 and empty security contexts; labelled `label` itself.
 */
export function newDaemonSetWithLabel(
  name: string,
  image: string,
  label: Readonly<Record<string, string>>,
): V1DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, labels: { ...label } },
    spec: {
      selector: { matchLabels: { ...label } },
      template: {
        metadata: { labels: { ...label } },
        spec: {
          containers: [{ name: 'app', image, ports: [{ containerPort: 9376 }], securityContext: {} }],
          securityContext: {},
        },
      },
    },
  };
}

/** upstream newDaemonSet: newDaemonSetWithLabel without labels on the DaemonSet itself. */
export function newDaemonSet(
  name: string,
  image: string,
  label: Readonly<Record<string, string>>,
): V1DaemonSet {
  const ds = newDaemonSetWithLabel(name, image, label);
  return { ...ds, metadata: { name } };
}

/** The pod template spec of `ds` (one newDaemonSet built), for a test to change as upstream's do. */
export function templateSpecOf(ds: V1DaemonSet): V1PodSpec {
  const spec = ds.spec?.template.spec;
  if (!spec) throw new Error(`DaemonSet ${ds.metadata?.name} has no pod template spec`);
  return spec;
}

/** upstream getDaemonSetImagePatch: a strategic merge patch of one container's image. */
export function getDaemonSetImagePatch(containerName: string, image: string): string {
  return JSON.stringify({ spec: { template: { spec: { containers: [{ name: containerName, image }] } } } });
}

/** Creates `ds` in the test's namespace; resolves with the created object. */
export function createDaemonSet(f: Framework, ds: Readonly<V1DaemonSet>): Promise<V1DaemonSet> {
  return f.json(['create', '-n', f.namespace, '-o', 'json', '-f', '-'], JSON.stringify(ds));
}

/** Where the API server serves the test namespace's `resource` of group `apps` or the core group. */
function pathOf(
  f: Framework,
  resource: string,
  options: { name?: string; label?: Record<string, string> } = {},
) {
  const group = resource === 'pods' ? '/api/v1' : '/apis/apps/v1';
  const name = options.name === undefined ? '' : `/${options.name}`;
  const query = options.label ? `?labelSelector=${encodeURIComponent(selectorOf(options.label))}` : '';
  return `${group}/namespaces/${f.namespace}/${resource}${name}${query}`;
}

/** The DaemonSet `name` of the test's namespace. */
export function getDaemonSet(f: Framework, name: string): Promise<V1DaemonSet> {
  return f.get(pathOf(f, 'daemonsets', { name }));
}

/** Applies a strategic merge patch to DaemonSet `name`; resolves with the patched object. */
export function patchDaemonSet(f: Framework, name: string, patch: string): Promise<V1DaemonSet> {
  const args = ['patch', 'daemonset', name, '-n', f.namespace, '--type=strategic', '-p', patch, '-o', 'json'];
  return f.json(args);
}

/**
 * upstream updateDaemonSetWithRetries: get, change, update (a PUT carrying the resourceVersion read),
 * again on a conflict until it succeeds.
 */
export async function updateDaemonSetWithRetries(
  f: Framework,
  name: string,
  applyUpdate: (ds: V1DaemonSet) => void,
): Promise<V1DaemonSet> {
  let updated: V1DaemonSet | undefined;
  await poll(`updating DaemonSet ${name}`, async () => {
    const ds = await getDaemonSet(f, name);
    applyUpdate(ds);
    const result = await f.kubectl(
      ['replace', '-n', f.namespace, '-o', 'json', '-f', '-'],
      JSON.stringify(ds),
    );
    if (result.code !== 0) return result.stderr.trim();
    updated = JSON.parse(result.stdout) as V1DaemonSet;
    return true;
  });
  return updated as V1DaemonSet;
}

/** upstream listDaemonPods: the pods of the namespace with `label`; there must be some. */
export async function listDaemonPods(
  f: Framework,
  label: Readonly<Record<string, string>>,
): Promise<V1Pod[]> {
  const list = await f.get<List<V1Pod>>(pathOf(f, 'pods', { label }));
  expect(list.items.length, `pods labelled ${selectorOf(label)}`).toBeGreaterThan(0);
  return list.items;
}

/** The nodes, and the pods of the test's namespace. */
export async function nodesAndPods(f: Framework): Promise<{ nodes: V1Node[]; pods: V1Pod[] }> {
  const [nodes, pods] = await Promise.all([
    f.get<List<V1Node>>('/api/v1/nodes'),
    f.get<List<V1Pod>>(pathOf(f, 'pods')),
  ]);
  return { nodes: nodes.items, pods: pods.items };
}

/** upstream e2edaemonset.CheckDaemonPodOnNodes: a condition for poll. */
export function checkDaemonPodOnNodes(f: Framework, ds: Readonly<V1DaemonSet>, nodeNames: readonly string[]) {
  return async (): Promise<true | string> =>
    daemonPodsOnNodes((await nodesAndPods(f)).pods, ds, nodeNames, new Date());
}

/** upstream checkRunningOnAllNodes: one available daemon pod on every node that should run `ds`. */
export function checkRunningOnAllNodes(f: Framework, ds: Readonly<V1DaemonSet>) {
  return async (): Promise<true | string> => {
    const { nodes, pods } = await nodesAndPods(f);
    return daemonPodsOnNodes(pods, ds, schedulableNodes(nodes, ds), new Date());
  };
}

/** upstream checkRunningOnNoNodes. */
export function checkRunningOnNoNodes(f: Framework, ds: Readonly<V1DaemonSet>) {
  return checkDaemonPodOnNodes(f, ds, []);
}

/**
 * upstream e2edaemonset.CheckDaemonStatus: eventually (within the pod start timeout, 5 minutes on
 * a real cluster) desiredNumberScheduled = currentNumberScheduled = numberReady.
 */
export function checkDaemonStatus(f: Framework, name: string): Promise<void> {
  return poll(`until DaemonSet ${name} has all desired pods scheduled and ready`, async () => {
    const status = (await getDaemonSet(f, name)).status;
    const [desired, scheduled, ready] = [
      status?.desiredNumberScheduled,
      status?.currentNumberScheduled,
      status?.numberReady,
    ];
    return desired === scheduled && scheduled === ready
      ? true
      : `DesiredScheduled: ${desired}, CurrentScheduled: ${scheduled}, Ready: ${ready}`;
  });
}

/** The ready schedulable nodes (upstream e2enode.GetReadySchedulableNodes). */
export async function getReadySchedulableNodes(f: Framework): Promise<V1Node[]> {
  return readySchedulableNodes((await f.get<List<V1Node>>('/api/v1/nodes')).items);
}

/**
 * upstream setDaemonSetNodeLabels: replaces the test's own labels of node `nodeName` (prefix
 * `daemonset-`) by `labels` with an update, again on a conflict; resolves with the updated node.
 */
export async function setDaemonSetNodeLabels(
  f: Framework,
  nodeName: string,
  labels: Readonly<Record<string, string>>,
): Promise<V1Node> {
  let newNode: V1Node | undefined;
  await poll(`setting the labels of node ${nodeName}`, async () => {
    const node = await f.get<V1Node>(`/api/v1/nodes/${nodeName}`);
    const [daemonSetLabels, otherLabels] = separateDaemonSetNodeLabels(node.metadata?.labels);
    if (JSON.stringify(daemonSetLabels) === JSON.stringify(labels)) {
      newNode = node;
      return true;
    }
    node.metadata = { ...node.metadata, labels: { ...otherLabels, ...labels } };
    const result = await f.kubectl(['replace', '-o', 'json', '-f', '-'], JSON.stringify(node));
    if (result.code === 0) {
      newNode = JSON.parse(result.stdout) as V1Node;
      return true;
    }
    // Only a conflict is tried again, as upstream does.
    if (!/Conflict|the object has been modified/.test(result.stderr)) throw new Error(result.stderr);
    return result.stderr.trim();
  });
  const [newLabels] = separateDaemonSetNodeLabels(newNode?.metadata?.labels);
  expect(Object.keys(newLabels), 'could not set daemon set test labels as expected').toHaveLength(
    Object.keys(labels).length,
  );
  return newNode as V1Node;
}

/**
 * upstream clearDaemonSetNodeLabels: no `daemonset-` label left on any ready schedulable node. A
 * node without one is not read again (setDaemonSetNodeLabels would only find nothing to change).
 */
export async function clearDaemonSetNodeLabels(f: Framework): Promise<void> {
  for (const node of await getReadySchedulableNodes(f)) {
    const [daemonSetLabels] = separateDaemonSetNodeLabels(node.metadata?.labels);
    if (Object.keys(daemonSetLabels).length > 0)
      await setDaemonSetNodeLabels(f, node.metadata?.name ?? '', {});
  }
}

/** upstream listDaemonHistories: the ControllerRevisions labelled `label`; there must be some. */
export async function listDaemonHistories(
  f: Framework,
  label: Readonly<Record<string, string>>,
): Promise<V1ControllerRevision[]> {
  const list = await f.get<List<V1ControllerRevision>>(pathOf(f, 'controllerrevisions', { label }));
  expect(list.items.length).toBeGreaterThan(0);
  return list.items;
}

/** upstream waitForHistoryCreated: waits until exactly `numHistory` ControllerRevisions are labelled `label`. */
export function waitForHistoryCreated(
  f: Framework,
  label: Readonly<Record<string, string>>,
  numHistory: number,
) {
  return poll(`until ${numHistory} controllerrevisions exist`, async () => {
    const list = await f.get<List<V1ControllerRevision>>(pathOf(f, 'controllerrevisions', { label }));
    const count = list.items.length;
    return count === numHistory ? true : `${count}/${numHistory} controllerrevisions created`;
  });
}

/**
 * upstream's AfterEach: the DaemonSets of the namespace deleted and their pods waited out
 * (e2eresource.DeleteResourceAndWaitForGC, then checkRunningOnNoNodes: the namespace holds nothing
 * but daemon pods, so that is no pod left in it), then the node labels cleared.
 */
async function deleteDaemonSets(f: Framework): Promise<void> {
  await f.ok(['delete', 'daemonsets', '--all', '-n', f.namespace]);
  await poll('until the daemon pods are gone', async () => {
    const left = await f.get<List<V1Pod>>(pathOf(f, 'pods'));
    return left.items.length === 0 ? true : `${left.items.map((p) => p.metadata?.name).join(', ')} left`;
  });
  await clearDaemonSetNodeLabels(f);
}

/**
 * The `[sig-apps] Daemon set [Serial]` block for the enclosing describe: `everynode run` on the
 * simulated cluster with the first `simNodes` seed nodes, and upstream's BeforeEach (node-selector
 * annotation of the namespace emptied, node labels cleared) and AfterEach around each test.
 */
export function useDaemonSetSuite(simNodes: number): Framework {
  return useFramework({
    simNodes,
    // upstream patchNamespaceAnnotations: no default node selector for the namespace's pods.
    namespaceAnnotations: { 'scheduler.alpha.kubernetes.io/node-selector': '' },
    beforeEach: clearDaemonSetNodeLabels,
    afterEach: deleteDaemonSets,
  });
}
