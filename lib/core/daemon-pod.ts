/**
 * The pod a DaemonSet runs on one node (upstream pkg/controller/daemon/util daemonset_util.go
 * CreatePodTemplate, ReplaceDaemonSetPodNodeNameNodeAffinity, GetTargetNodeName, and
 * controller_utils.go GetPodFromTemplate), with a deterministic name instead of generateName.
 */
import type { V1Affinity, V1NodeSelectorTerm, V1Pod, V1PodSpec } from '@kubernetes/client-node';
import { controllerRefFor } from './controller-ref.ts';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  DAEMONSET_UID_LABEL,
  type DaemonSet,
  POD_TEMPLATE_GENERATION_LABEL,
  TEMPLATE_GENERATION_ANNOTATION,
} from './daemon-set.ts';
import { fnv1a64, safeLabelValue } from './safe-label-value.ts';
import { SAFE_ALPHABET, stableJson } from './template-hash.ts';
import { daemonPodTolerations } from './tolerations.ts';

/** The field key node-affinity `matchFields` use to pin a pod to one node (metav1.ObjectNameField). */
export const NODE_NAME_FIELD = 'metadata.name';

/**
 * Label everynode puts on every pod it creates, naming the node the pod is for (see
 * {@link nodeLabelValue}), so the pods of one (DaemonSet, node) pair are one LIST by labels even
 * before the scheduler binds them, when `spec.nodeName` is still empty (beyond upstream).
 */
export const NODE_LABEL = 'everynode.dev/node';

const MAX_NAME = 63;
const SUFFIX_LENGTH = 10;

/** `SUFFIX_LENGTH` characters of the upstream safe alphabet derived from `s` (27^10 ≈ 2·10^14). */
function nameSuffix(s: string): string {
  let value = fnv1a64(s);
  let suffix = '';
  for (let i = 0; i < SUFFIX_LENGTH; i++) {
    suffix += SAFE_ALPHABET[Number(value % 27n)];
    value /= 27n;
  }
  return suffix;
}

/** `s` reduced to DNS-1123 label characters (node and DaemonSet names may contain dots). */
function labelChars(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9-]/g, '-');
}

/**
 * The deterministic name of the daemon pod for (`dsName`, `nodeName`, `revisionHash`, `attempt`):
 * `<ds>-<node>-<suffix>`, a DNS-1123 label of at most 63 characters. The readable parts are
 * truncated when long (the DaemonSet part keeps at least 25 characters and gives the rest to the
 * node) and dots become dashes; `suffix` is 10 characters of FNV-1a 64 over all four inputs, so
 * pods of different nodes, revisions or attempts get different names even when the readable
 * parts are truncated alike.
 *
 * Why: upstream uses generateName, so two controllers (or a retried message) racing on one node
 * create two pods. With this name a second create of the same (DaemonSet, node, revision,
 * attempt) fails with 409 AlreadyExists, which the executor treats as done, so duplicate and
 * concurrent creates are harmless. A replacement for a failed pod uses the next `attempt` so it
 * never waits for the failed pod's name to be freed.
 */
export function daemonPodName(dsName: string, nodeName: string, revisionHash: string, attempt = 0): string {
  const suffix = nameSuffix(stableJson([dsName, nodeName, revisionHash, attempt]));
  const room = MAX_NAME - SUFFIX_LENGTH - 2;
  let dsPart = labelChars(dsName).replace(/^-+/, '');
  let nodePart = labelChars(nodeName);
  if (dsPart.length + nodePart.length > room) {
    dsPart = dsPart.slice(0, Math.max(room - nodePart.length, Math.min(dsPart.length, 25)));
    nodePart = nodePart.slice(0, room - dsPart.length);
  }
  return [dsPart, nodePart, suffix].filter((part) => part !== '').join('-');
}

/**
 * The {@link NODE_LABEL} value for `nodeName` ({@link safeLabelValue}): the name itself when it is a
 * valid label value (a node name is a DNS-1123 subdomain, so when it has at most 63 characters),
 * else `h-` and the 16 hex digits of its FNV-1a 64 hash (a node name may have 253 characters). Every
 * writer and reader of the label (the pod builder, the pair and node steps' LISTs) goes through
 * this function; a collision would only make a LIST return another node's pods, which every reader
 * filters by target node.
 */
export function nodeLabelValue(nodeName: string): string {
  return safeLabelValue(nodeName);
}

/** The single required term that pins a pod to `nodeName`. */
function pinningTerm(nodeName: string): V1NodeSelectorTerm {
  return { matchFields: [{ key: NODE_NAME_FIELD, operator: 'In', values: [nodeName] }] };
}

/**
 * `affinity` with its required node-affinity terms replaced by one term
 * `matchFields metadata.name In [nodeName]`; preferred terms, other required-selector fields and
 * pod (anti-)affinity are kept (upstream ReplaceDaemonSetPodNodeNameNodeAffinity).
 */
export function pinToNode(affinity: Readonly<V1Affinity> | undefined, nodeName: string): V1Affinity {
  const copy: V1Affinity = structuredClone(affinity ?? {}) as V1Affinity;
  const nodeAffinity = copy.nodeAffinity ?? {};
  const required = nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution;
  nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution = {
    ...required,
    nodeSelectorTerms: [pinningTerm(nodeName)],
  };
  copy.nodeAffinity = nodeAffinity;
  return copy;
}

/** Options of {@link daemonPodFor}. */
export interface DaemonPodOptions {
  /** Replacement count for failed pods on this node; part of the name (default 0). */
  attempt?: number;
  /** Annotations added on top of the template's (e.g. the failure-backoff record). */
  annotations?: Record<string, string>;
  /**
   * The node readiness gate keys the pod tolerates (NoSchedule, `Exists`; default none): added here,
   * at creation, never to the template, so the revision hash does not change (docs/design.md,
   * 26. Node readiness gates).
   */
  gateKeys?: readonly string[];
}

/** The pod labels: template labels, pod-template-generation, controller-revision-hash, ds uid, node. */
function daemonPodLabels(
  ds: Readonly<DaemonSet>,
  revisionHash: string,
  nodeName: string,
): Record<string, string> {
  const labels: Record<string, string> = { ...ds.spec?.template.metadata?.labels };
  const generation = ds.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  if (generation !== undefined) labels[POD_TEMPLATE_GENERATION_LABEL] = generation;
  if (revisionHash !== '') labels[CONTROLLER_REVISION_HASH_LABEL] = revisionHash;
  labels[DAEMONSET_UID_LABEL] = ds.metadata?.uid ?? '';
  labels[NODE_LABEL] = nodeLabelValue(nodeName);
  return labels;
}

/**
 * The pod spec: the template's, tolerations completed (the gate keys' included), pinned to
 * `nodeName`, nodeName empty.
 */
function daemonPodSpec(ds: Readonly<DaemonSet>, nodeName: string, gateKeys: readonly string[]): V1PodSpec {
  const spec = structuredClone(ds.spec?.template.spec ?? { containers: [] }) as V1PodSpec;
  spec.tolerations = daemonPodTolerations(spec, gateKeys);
  spec.affinity = pinToNode(spec.affinity, nodeName);
  // The scheduler binds the pod through the pinning term (upstream ScheduleDaemonSetPods).
  delete spec.nodeName;
  return spec;
}

/**
 * The pod `ds` runs on `nodeName` at revision `revisionHash`, ready to create: named by
 * {@link daemonPodName}, in the DaemonSet's namespace, with the template's labels (plus
 * pod-template-generation when the DaemonSet carries the deprecated generation annotation,
 * controller-revision-hash, everynode.dev/daemonset-uid and everynode.dev/node), annotations (plus
 * `options.annotations`) and finalizers, a controller ownerReference with blockOwnerDeletion, and
 * the template spec with the automatic tolerations, a toleration of each of `options.gateKeys`, and
 * the required node affinity replaced by `matchFields metadata.name In [nodeName]` (preferred terms
 * kept, `nodeName` empty).
 */
export function daemonPodFor(
  ds: Readonly<DaemonSet>,
  nodeName: string,
  revisionHash: string,
  options: Readonly<DaemonPodOptions> = {},
): V1Pod {
  const template = ds.spec?.template;
  const annotations = { ...template?.metadata?.annotations, ...options.annotations };
  const finalizers = template?.metadata?.finalizers;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: daemonPodName(ds.metadata?.name ?? '', nodeName, revisionHash, options.attempt ?? 0),
      namespace: ds.metadata?.namespace ?? 'default',
      labels: daemonPodLabels(ds, revisionHash, nodeName),
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      ...(finalizers && finalizers.length > 0 ? { finalizers: [...finalizers] } : {}),
      ownerReferences: [controllerRefFor(ds)],
    },
    spec: daemonPodSpec(ds, nodeName, options.gateKeys ?? []),
  };
}

/**
 * The node `pod` is for: `spec.nodeName` once bound, else the value of the first required
 * node-affinity `matchFields metadata.name In [node]` expression with exactly one value; undefined
 * when neither names a node (upstream util.GetTargetNodeName, which returns an error there).
 */
export function targetNodeName(pod: Readonly<V1Pod>): string | undefined {
  if (pod.spec?.nodeName) return pod.spec.nodeName;
  const terms =
    pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  for (const term of terms ?? []) {
    for (const expression of term.matchFields ?? []) {
      if (expression.key === NODE_NAME_FIELD && expression.operator === 'In') {
        // Upstream treats a non-unique value as an error rather than trying later terms.
        return expression.values?.length === 1 ? expression.values[0] : undefined;
      }
    }
  }
  return undefined;
}
