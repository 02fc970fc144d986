/**
 * kube-controller-manager's DaemonSet controller, played by a test against the simulated cluster
 * (which runs none): every `intervalMs` it syncs each apps/v1 DaemonSet of a namespace as
 * upstream's syncDaemonSet does — pods and revisions claimed, the history constructed
 * (kcm-daemon-set-history.ts), daemon pods created and pruned (manage), old pods replaced
 * (rollingUpdate, without surge), the status written. Every request is plain JSON over the
 * kubeconfig's connection, so revision data is read with the key order the server keeps.
 */
import type { V1Affinity, V1PodSpec, V1Taint, V1Toleration } from '@kubernetes/client-node';
import { connectionFromKubeConfig, loadKubeConfig } from '../../lib/kube/connection/kubeconfig-connection.ts';
import {
  claimObjects,
  cleanupHistory,
  constructHistory,
  controllerRef,
  HASH_LABEL,
  ignoreCodes,
  KcmApi,
  type KcmCounters,
  type KcmDaemonSet,
  type KcmMeta,
  type KcmPod,
  requirementMatches,
} from './kcm-daemon-set-history.ts';

export { type KcmCounters, kcmGetPatch } from './kcm-daemon-set-history.ts';

/** The running player. */
export interface KcmController {
  readonly counters: KcmCounters;
  /** One sync of every apps/v1 DaemonSet of the namespace; rejects when one of them failed. */
  syncOnce(): Promise<void>;
  /** Stops the loop once the running sync is done. */
  stop(): Promise<void>;
}

/** A node as plain JSON. */
type KcmNode = { metadata: KcmMeta; spec?: { taints?: V1Taint[] } };

/** The tolerations AddOrUpdateDaemonPodTolerations gives every daemon pod. */
export const DAEMON_TOLERATIONS: V1Toleration[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];
const NETWORK_TOLERATION = {
  key: 'node.kubernetes.io/network-unavailable',
  operator: 'Exists',
  effect: 'NoSchedule',
};

/** AddOrUpdateDaemonPodTolerations: `spec`'s tolerations with each daemon one added or replaced (AddOrUpdateTolerationInPodSpec). */
function daemonPodTolerations(spec: V1PodSpec): V1Toleration[] {
  let tolerations = [...(spec.tolerations ?? [])];
  for (const added of [...DAEMON_TOLERATIONS, ...(spec.hostNetwork ? [NETWORK_TOLERATION] : [])]) {
    const same = (t: V1Toleration) =>
      t.key === added.key && t.effect === added.effect && t.operator === added.operator && !t.value;
    tolerations = tolerations.some(same)
      ? tolerations.map((t) => (same(t) ? added : t))
      : [...tolerations, added];
  }
  return tolerations;
}

/** Toleration.ToleratesTaint. */
function toleratesTaint(t: V1Toleration, taint: V1Taint): boolean {
  if ((t.effect && t.effect !== taint.effect) || (t.key && t.key !== taint.key)) return false;
  return (
    t.operator === 'Exists' ||
    ((t.operator ?? 'Equal') === 'Equal' && (t.value ?? '') === (taint.value ?? ''))
  );
}

/** nodeaffinity.GetRequiredNodeAffinity(pod).Match(node): nodeSelector and the required terms. */
function fitsNodeAffinity(spec: V1PodSpec, node: KcmNode): boolean {
  const labels = node.metadata.labels ?? {};
  if (!Object.entries(spec.nodeSelector ?? {}).every(([key, value]) => labels[key] === value)) return false;
  const required = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!required) return true;
  const fields: Record<string, string> = { 'metadata.name': node.metadata.name };
  return required.nodeSelectorTerms.some((term) => {
    const [expressions, matchFields] = [term.matchExpressions ?? [], term.matchFields ?? []];
    return (
      expressions.length + matchFields.length > 0 &&
      expressions.every((e) => requirementMatches(e.operator, labels[e.key], e.values)) &&
      matchFields.every((f) => requirementMatches(f.operator, fields[f.key], f.values))
    );
  });
}

/** NodeShouldRunDaemonPod: whether `ds` should run a pod on `node`, and keep one running there. */
function nodeShouldRunDaemonPod(node: KcmNode, ds: KcmDaemonSet) {
  const spec = ds.spec.template.spec;
  if ((spec.nodeName && spec.nodeName !== node.metadata.name) || !fitsNodeAffinity(spec, node)) {
    return { shouldRun: false, shouldContinueRunning: false };
  }
  const tolerations = daemonPodTolerations(spec);
  const untolerated = (effects: string[]) =>
    (node.spec?.taints ?? []).some(
      (taint) => effects.includes(taint.effect) && !tolerations.some((t) => toleratesTaint(t, taint)),
    );
  if (!untolerated(['NoSchedule', 'NoExecute'])) return { shouldRun: true, shouldContinueRunning: true };
  return { shouldRun: false, shouldContinueRunning: !untolerated(['NoExecute']) };
}

/** GetTargetNodeName: spec.nodeName, or the node the pod's affinity pins it to. */
function targetNodeName(pod: KcmPod): string | undefined {
  if (pod.spec.nodeName) return pod.spec.nodeName;
  const terms = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  const pin = terms?.nodeSelectorTerms
    .flatMap((term) => term.matchFields ?? [])
    .find((f) => f.key === 'metadata.name' && f.operator === 'In');
  return pin?.values?.length === 1 ? pin.values[0] : undefined;
}

/** getNodesToDaemonPods(ds, false): the claimed pods by node, deleted terminal ones left out. */
function nodesToDaemonPods(pods: readonly KcmPod[]): Map<string, KcmPod[]> {
  const byNode = new Map<string, KcmPod[]>();
  for (const pod of pods) {
    const terminal = pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
    const node = targetNodeName(pod);
    if ((pod.metadata.deletionTimestamp && terminal) || node === undefined) continue;
    byNode.set(node, [...(byNode.get(node) ?? []), pod]);
  }
  return byNode;
}

/** podutil.IsPodReady. */
const isPodReady = (pod: KcmPod) =>
  pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');

/** podutil.IsPodAvailable. */
function isPodAvailable(pod: KcmPod, minReadySeconds: number, now: number): boolean {
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'True') return false;
  const since = Date.parse(ready.lastTransitionTime ?? '');
  return minReadySeconds === 0 || since + minReadySeconds * 1000 < now;
}

/** util.GetTemplateGeneration, printed: the deprecated annotation, when it parses. */
function templateGeneration(ds: KcmDaemonSet): string | undefined {
  const annotation = ds.metadata.annotations?.['deprecated.daemonset.template.generation'];
  return annotation !== undefined && /^[-+]?\d+$/.test(annotation) ? String(Number(annotation)) : undefined;
}

/** util.IsPodUpdated: on the current hash, or labelled with the DaemonSet's template generation. */
function isPodUpdated(pod: KcmPod, hash: string, generation: string | undefined): boolean {
  const labels = pod.metadata.labels ?? {};
  const templateMatches = generation !== undefined && labels['pod-template-generation'] === generation;
  return templateMatches || (hash !== '' && labels[HASH_LABEL] === hash);
}

/** podByCreationTimestampAndPhase: scheduled first, then oldest, then by name. */
function byCreationTimestampAndPhase(a: KcmPod, b: KcmPod): number {
  if (Boolean(a.spec.nodeName) !== Boolean(b.spec.nodeName)) return a.spec.nodeName ? -1 : 1;
  const age = Date.parse(a.metadata.creationTimestamp ?? '') - Date.parse(b.metadata.creationTimestamp ?? '');
  if (age !== 0) return age;
  return a.metadata.name < b.metadata.name ? -1 : Number(a.metadata.name > b.metadata.name);
}

/** intstr.GetScaledValueFromIntOrPercent(value, total, true). */
function scaledValue(value: number | string | undefined, total: number): number {
  if (typeof value !== 'string') return value ?? 0;
  const percent = /^(\d+)%$/.exec(value);
  if (!percent) throw new Error(`invalid value for IntOrString: ${value}`);
  return Math.ceil((Number(percent[1]) * total) / 100);
}

/** The pods of `ds`, claimed (getDaemonPods). */
async function daemonPods(api: KcmApi, ds: KcmDaemonSet): Promise<KcmPod[]> {
  const { items } = await api.call<{ items: KcmPod[] }>('GET', api.path('pods'));
  return claimObjects(api, ds, items, 'pods');
}

/** ReplaceDaemonSetPodNodeNameNodeAffinity. */
function pinnedAffinity(affinity: V1Affinity | undefined, node: string): V1Affinity {
  const required = affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  const term = { matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] };
  return {
    ...affinity,
    nodeAffinity: {
      ...affinity?.nodeAffinity,
      requiredDuringSchedulingIgnoredDuringExecution: { ...required, nodeSelectorTerms: [term] },
    },
  };
}

/** The pod CreatePodTemplate, GetPodFromTemplate and the node affinity make for `node`. */
function daemonPod(ds: KcmDaemonSet, node: string, hash: string) {
  const { labels, annotations, finalizers } = ds.spec.template.metadata ?? {};
  const generation = templateGeneration(ds);
  const podLabels = {
    ...labels,
    ...(generation === undefined ? {} : { 'pod-template-generation': generation }),
    ...(hash === '' ? {} : { [HASH_LABEL]: hash }),
  };
  const spec = ds.spec.template.spec;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${ds.metadata.name}-`,
      labels: podLabels,
      annotations,
      finalizers,
      ownerReferences: [controllerRef(ds)],
    },
    spec: { ...spec, tolerations: daemonPodTolerations(spec), affinity: pinnedAffinity(spec.affinity, node) },
  };
}

/** syncNodes: creates in slow-start batches (1, 2, 4, …; burstReplicas 250), then deletes. */
async function syncNodes(
  api: KcmApi,
  ds: KcmDaemonSet,
  toDelete: string[],
  toCreate: string[],
  hash: string,
) {
  const errors: unknown[] = [];
  const creates = toCreate.slice(0, 250);
  for (let pos = 0, batch = 1; pos < creates.length && errors.length === 0; pos += batch, batch *= 2) {
    const results = await Promise.allSettled(
      creates.slice(pos, pos + batch).map(async (node) => {
        await api.call('POST', api.path('pods'), daemonPod(ds, node, hash));
        api.counters.podsCreated += 1;
      }),
    );
    errors.push(...results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : [])));
  }
  await Promise.all(
    toDelete.slice(0, 250).map(async (name) => {
      const deleted = await api.call('DELETE', api.path('pods', name)).then(() => true, ignoreCodes(404));
      if (deleted) api.counters.podsDeleted += 1;
    }),
  ).catch((error: unknown) => errors.push(error));
  if (errors.length > 0)
    throw new AggregateError(errors, `syncing the pods of ${ds.metadata.name}: ${errors.join('; ')}`);
}

/** manage with podsShouldBeOnNode (no surge) and getUnscheduledPodsWithoutNode; whether it changed anything. */
async function manage(api: KcmApi, ds: KcmDaemonSet, nodes: KcmNode[], hash: string, pods: KcmPod[]) {
  const byNode = nodesToDaemonPods(pods);
  const toCreate: string[] = [];
  const toDelete: string[] = [];
  const live = (list: KcmPod[]) => list.filter((pod) => !pod.metadata.deletionTimestamp);
  for (const node of nodes) {
    const { shouldRun, shouldContinueRunning } = nodeShouldRunDaemonPod(node, ds);
    const onNode = byNode.get(node.metadata.name);
    if (shouldRun && !onNode) toCreate.push(node.metadata.name);
    else if (shouldContinueRunning) {
      const done = live(onNode ?? []).filter(
        (p) => p.status?.phase === 'Failed' || p.status?.phase === 'Succeeded',
      );
      const running = live(onNode ?? [])
        .filter((p) => !done.includes(p))
        .sort(byCreationTimestampAndPhase);
      toDelete.push(...[...done, ...running.slice(1)].map((p) => p.metadata.name));
    } else toDelete.push(...live(onNode ?? []).map((p) => p.metadata.name));
  }
  const known = new Set(nodes.map((node) => node.metadata.name));
  for (const [node, onNode] of byNode) {
    if (!known.has(node))
      toDelete.push(...onNode.filter((p) => !p.spec.nodeName).map((p) => p.metadata.name));
  }
  await syncNodes(api, ds, toDelete, toCreate, hash);
  return toCreate.length + toDelete.length > 0;
}

/** rollingUpdate without surge: replaces old pods, no more than maxUnavailable unavailable at once. */
async function rollingUpdate(
  api: KcmApi,
  ds: KcmDaemonSet,
  desired: KcmNode[],
  hash: string,
  pods: KcmPod[],
) {
  const byNode = nodesToDaemonPods(pods);
  for (const node of desired) if (!byNode.has(node.metadata.name)) byNode.set(node.metadata.name, []);
  const scaled = scaledValue(ds.spec.updateStrategy?.rollingUpdate?.maxUnavailable, desired.length);
  const maxUnavailable = scaled === 0 && desired.length > 0 ? 1 : scaled;
  const [generation, minReady, now] = [templateGeneration(ds), ds.spec.minReadySeconds ?? 0, Date.now()];
  const allowed: string[] = [];
  const candidates: string[] = [];
  let numUnavailable = 0;
  for (const [, onNode] of [...byNode].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const live = onNode.filter((pod) => !pod.metadata.deletionTimestamp);
    const [fresh, old] = [
      live.filter((p) => isPodUpdated(p, hash, generation)),
      live.filter((p) => !isPodUpdated(p, hash, generation)),
    ];
    const [newPod, oldPod] = [fresh[0], old[0]];
    if (fresh.length > 1 || old.length > 1 || Boolean(newPod) === Boolean(oldPod)) numUnavailable += 1;
    else if (newPod) numUnavailable += isPodAvailable(newPod, minReady, now) ? 0 : 1;
    else if (oldPod && !isPodAvailable(oldPod, minReady, now)) {
      allowed.push(oldPod.metadata.name);
      numUnavailable += 1;
    } else if (oldPod && numUnavailable < maxUnavailable) candidates.push(oldPod.metadata.name);
  }
  const remaining = Math.max(0, Math.min(maxUnavailable - numUnavailable, candidates.length));
  await syncNodes(api, ds, [...allowed, ...candidates.slice(0, remaining)], [], hash);
}

/** updateDaemonSetStatus and storeDaemonSetStatus: a PUT of /status when a count or the generation moved. */
async function updateDaemonSetStatus(
  api: KcmApi,
  ds: KcmDaemonSet,
  nodes: KcmNode[],
  hash: string,
  pods: KcmPod[],
) {
  const byNode = nodesToDaemonPods(pods);
  const [generation, minReady, now] = [templateGeneration(ds), ds.spec.minReadySeconds ?? 0, Date.now()];
  const counts = {
    desiredNumberScheduled: 0,
    currentNumberScheduled: 0,
    numberMisscheduled: 0,
    numberReady: 0,
    updatedNumberScheduled: 0,
    numberAvailable: 0,
    numberUnavailable: 0,
  };
  for (const node of nodes) {
    const onNode = [...(byNode.get(node.metadata.name) ?? [])].sort(byCreationTimestampAndPhase);
    const pod = onNode[0];
    if (!nodeShouldRunDaemonPod(node, ds).shouldRun) counts.numberMisscheduled += pod ? 1 : 0;
    else {
      counts.desiredNumberScheduled += 1;
      if (!pod) continue;
      counts.currentNumberScheduled += 1;
      counts.numberReady += isPodReady(pod) ? 1 : 0;
      counts.numberAvailable += isPodAvailable(pod, minReady, now) ? 1 : 0;
      counts.updatedNumberScheduled += isPodUpdated(pod, hash, generation) ? 1 : 0;
    }
  }
  counts.numberUnavailable = counts.desiredNumberScheduled - counts.numberAvailable;
  const status = ds.status ?? {};
  const observed = (status.observedGeneration ?? 0) >= (ds.metadata.generation ?? 0);
  if (observed && Object.entries(counts).every(([key, value]) => (status[key] ?? 0) === value)) return;
  const next = { ...status, ...counts, observedGeneration: ds.metadata.generation };
  const body = { ...ds, apiVersion: 'apps/v1', kind: 'DaemonSet', status: next };
  await api.call('PUT', `${api.path('daemonsets', ds.metadata.name)}/status`, body);
}

/** syncDaemonSet for one DaemonSet of the list. */
async function syncDaemonSet(api: KcmApi, ds: KcmDaemonSet, nodes: KcmNode[]): Promise<void> {
  const { matchLabels, matchExpressions } = ds.spec.selector;
  if (
    ds.metadata.deletionTimestamp ||
    (Object.keys(matchLabels ?? {}).length === 0 && !matchExpressions?.length)
  )
    return;
  const desired = nodes.filter((node) => nodeShouldRunDaemonPod(node, ds).shouldRun);
  if (
    ds.spec.updateStrategy?.type === 'RollingUpdate' &&
    scaledValue(ds.spec.updateStrategy.rollingUpdate?.maxSurge, desired.length) > 0
  ) {
    throw new Error(`DaemonSet ${ds.metadata.name}: maxSurge is not ported`);
  }
  const { cur, old } = await constructHistory(api, ds, () => daemonPods(api, ds));
  const hash = cur.metadata.labels?.[HASH_LABEL] ?? '';
  const failure = await (async () => {
    const changed = await manage(api, ds, nodes, hash, await daemonPods(api, ds));
    // Upstream's expectations hold the rolling update back until manage's changes are observed.
    if (!changed && ds.spec.updateStrategy?.type === 'RollingUpdate') {
      await rollingUpdate(api, ds, desired, hash, await daemonPods(api, ds));
    }
    await cleanupHistory(api, ds, old, await daemonPods(api, ds));
  })().then(
    () => undefined,
    (error: unknown) => error ?? new Error('sync failed'),
  );
  await updateDaemonSetStatus(api, ds, nodes, hash, await daemonPods(api, ds));
  if (failure) throw failure;
}

/** One pass over every apps/v1 DaemonSet of the namespace; rejects with every DaemonSet's failure. */
async function syncAll(api: KcmApi): Promise<void> {
  const { items } = await api.call<{ items: KcmDaemonSet[] }>('GET', api.path('daemonsets'));
  const nodes = (await api.call<{ items: KcmNode[] }>('GET', '/api/v1/nodes')).items;
  const errors: unknown[] = [];
  for (const ds of items) await syncDaemonSet(api, ds, nodes).catch((error: unknown) => errors.push(error));
  if (errors.length > 0) throw new AggregateError(errors, errors.map((e) => (e as Error).message).join('; '));
}

/**
 * Starts the player on the namespace (the controller's Run and its worker loop): a sync every
 * `intervalMs` (default 200) after the previous one ended, the first after one interval;
 * `onError` hears a failed sync (upstream requeues the DaemonSet; the next sync retries it).
 */
export function startKcmDaemonSetController(options: {
  kubeconfig: string;
  namespace: string;
  intervalMs?: number;
  onError?: (error: unknown) => void;
}): KcmController {
  const api = new KcmApi(
    connectionFromKubeConfig(loadKubeConfig({ path: options.kubeconfig })),
    options.namespace,
  );
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const syncOnce = () => {
    const pass = running.then(() => syncAll(api));
    running = pass.catch(() => undefined);
    return pass;
  };
  const schedule = () => {
    timer = setTimeout(() => {
      void syncOnce()
        .catch((error: unknown) => options.onError?.(error))
        .finally(() => {
          if (!stopped) schedule();
        });
    }, options.intervalMs ?? 200);
  };
  schedule();
  return {
    counters: api.counters,
    syncOnce,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
