/**
 * Hints: what the DaemonSet-wide step already read about a pair, or what the relay knew when it
 * saw one of the pair's pods change, carried on the pair message so that a hinted pair costs one
 * API request.
 *
 * Design. The `daemonset` step lists every node and every pod of the DaemonSet once; for each pair
 * that needs work it sends a `pair` message whose hints hold the node's scheduling facts and the
 * DaemonSet's pods targeting that node (their uid, resourceVersion, phase, readiness and the labels
 * and everynode annotations the pair plan reads), plus the DaemonSet's `resourceVersion` and the
 * revision hash it computed. The pair handler then:
 * 1. takes the DaemonSet from a per-process cache keyed by `uid` + `resourceVersion` (an object at a
 *    given resourceVersion never changes, so this cache is exact; a miss costs one GET shared by
 *    every later pair of that DaemonSet in the container);
 * 2. rebuilds the node and pods with {@link nodeFromHint} / {@link podFromHint} instead of reading
 *    them, plans with `lib/core`, and executes — the write is the one request.
 * The relay's hints of a pod event are the same, as of the relay's watches, plus the resourceVersion
 * their pods are as of; their revision hash comes from the ControllerRevisions the relay watches
 * (without it the pair handler takes the hash from its cache, else one LIST of revisions).
 * Stale hints are safe because writes carry their own guards: a create uses the deterministic pod
 * name (409 AlreadyExists = done), a delete carries the hinted `uid` + `resourceVersion`
 * preconditions (409 Conflict = the pod changed). What a pod precondition cannot see is the node:
 * a delete because of the node's facts (taints, labels, the node gone) is planned again on the node
 * as one GET finds it. On a Conflict, when the hints are older than the handler's freshness limit
 * (`observedAt`), or when the message is a replay or a redelivery, the handler drops the hints and
 * reads the pair. Hints are bounded (`hint-caps.ts`): a pod's labels past a cap are left out, its
 * hint marked `capped`, and the handler reads the pair's pods instead.
 */
import type { V1Node, V1OwnerReference, V1Pod } from '@kubernetes/client-node';
import * as z from 'zod';
import { cappedPodMaps } from './hint-caps.ts';
import { nodeGateHintOf, nodeGateHintSchema, withNodeGateHint } from './node-gate-hint.ts';

const isoTime = z.iso.datetime({ offset: true });
const stringMap = z.record(z.string(), z.string());
const conditionHintSchema = z.object({
  type: z.string().min(1),
  status: z.string().min(1),
  lastTransitionTime: isoTime.optional(),
});

/** A pod of the DaemonSet on the pair's node, as the DaemonSet step saw it. */
export const podHintSchema = z.object({
  name: z.string().min(1),
  uid: z.string().min(1),
  resourceVersion: z.string().min(1),
  creationTimestamp: isoTime.optional(),
  deletionTimestamp: isoTime.optional(),
  labels: stringMap.optional(),
  /** Only the `everynode.dev/` annotations (failure backoff), not the user's. */
  annotations: stringMap.optional(),
  controller: z
    .object({ apiVersion: z.string(), kind: z.string(), name: z.string(), uid: z.string() })
    .optional(),
  /** `spec.nodeName` once bound; an unbound pod is pinned by node affinity instead. */
  nodeName: z.string().optional(),
  phase: z.string().optional(),
  ready: z.boolean(),
  conditions: z.array(conditionHintSchema).optional(),
  /**
   * Set when the pod's labels or everynode's annotations were past the caps of `hint-caps.ts`: the
   * hint keeps only the labels everynode sets, and the step reads the pods rather than plan from it.
   */
  capped: z.literal(true).optional(),
});

/** A pod as hinted. */
export type PodHint = z.infer<typeof podHintSchema>;

/**
 * The node's facts placement reads (labels, taints, unschedulable, conditions) and its readiness
 * gate state.
 */
export const nodeHintSchema = z.object({
  name: z.string().min(1),
  uid: z.string().optional(),
  resourceVersion: z.string().min(1),
  creationTimestamp: isoTime.optional(),
  labels: stringMap.optional(),
  taints: z
    .array(
      z.object({
        key: z.string(),
        value: z.string().optional(),
        effect: z.string(),
        timeAdded: isoTime.optional(),
      }),
    )
    .optional(),
  unschedulable: z.boolean().optional(),
  conditions: z.array(conditionHintSchema).optional(),
  /**
   * The node's `status.allocatable` cpu, memory and pods, which node sizing reads; absent from
   * older senders' hints (the step then reads the node when a DaemonSet sizes its pods).
   */
  allocatable: stringMap.optional(),
  /**
   * What the node readiness gate decision reads besides the taints: the released marker and
   * everynode's condition (`node-gate-hint.ts`); absent from older senders' hints (unknown).
   */
  gate: nodeGateHintSchema.optional(),
});

/** A node as hinted. */
export type NodeHint = z.infer<typeof nodeHintSchema>;

/** The hints of a pair message; see the module comment for how the handler uses them. */
export const pairHintsSchema = z.object({
  /** When the DaemonSet step listed the node and pods; hints older than the handler's limit are ignored. */
  observedAt: isoTime,
  daemonSet: z.object({
    resourceVersion: z.string().min(1),
    generation: z.number().int().nonnegative().optional(),
    /**
     * The current revision's hash, as the DaemonSet step's revision history computed it, or the
     * relay from the ControllerRevisions it watches; when absent the pair step takes it from its
     * cache, else lists revisions.
     */
    revisionHash: z.string().min(1).optional(),
  }),
  /**
   * The resourceVersion the hinted pods are as of, when known (the relay's: its event's): a process
   * that has read the pair at or after it has nothing to learn from the hints.
   */
  podsResourceVersion: z.string().min(1).optional(),
  /** The node, or null when the DaemonSet step found it gone (its pods are then deleted). */
  node: nodeHintSchema.nullable(),
  pods: z.array(podHintSchema),
});

/** The hints of a pair message. */
export type PairHints = z.infer<typeof pairHintsSchema>;

/** Annotation prefix kept in pod hints: everynode's own bookkeeping (e.g. the failure backoff). */
export const HINTED_ANNOTATION_PREFIX = 'everynode.dev/';

function isoOf(value: unknown): string | undefined {
  if (value instanceof Date) return value.toISOString();
  return typeof value === 'string' && value !== '' ? new Date(value).toISOString() : undefined;
}

function dateOf(value: string | undefined): Date | undefined {
  return value === undefined ? undefined : new Date(value);
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

function conditionHints(
  conditions: ReadonlyArray<{ type: string; status: string; lastTransitionTime?: unknown }> | undefined,
) {
  return conditions?.map((c) =>
    withoutUndefined({ type: c.type, status: c.status, lastTransitionTime: isoOf(c.lastTransitionTime) }),
  );
}

function everynodeAnnotations(annotations: Readonly<Record<string, string>> | undefined) {
  const kept = Object.entries(annotations ?? {}).filter(([key]) => key.startsWith(HINTED_ANNOTATION_PREFIX));
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

/**
 * The hint of `pod`: the fields the pair plan reads, with timestamps as RFC 3339 strings, its labels
 * and annotations within the caps of `hint-caps.ts` (else marked `capped`).
 */
export function podHintOf(pod: Readonly<V1Pod>): PodHint {
  const meta = pod.metadata ?? {};
  const controller = meta.ownerReferences?.find((ref) => ref.controller === true);
  const conditions = pod.status?.conditions;
  const maps = cappedPodMaps(meta.labels, everynodeAnnotations(meta.annotations));
  return withoutUndefined({
    name: meta.name ?? '',
    uid: meta.uid ?? '',
    resourceVersion: meta.resourceVersion ?? '',
    creationTimestamp: isoOf(meta.creationTimestamp),
    deletionTimestamp: isoOf(meta.deletionTimestamp),
    labels: maps.labels,
    annotations: maps.annotations,
    controller: controller && {
      apiVersion: controller.apiVersion,
      kind: controller.kind,
      name: controller.name,
      uid: controller.uid,
    },
    nodeName: pod.spec?.nodeName || undefined,
    phase: pod.status?.phase,
    ready: conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
    conditions: conditionHints(conditions),
    capped: maps.capped,
  });
}

function pinnedAffinity(nodeName: string): NonNullable<V1Pod['spec']>['affinity'] {
  const term = { matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] };
  return { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [term] } } };
}

/**
 * The pod a hint describes, for planning only (never for writing back): in `namespace`, bound to
 * its hinted node or else pinned to `targetNode` by the `matchFields metadata.name` affinity term
 * daemon pods carry, with a container list left empty.
 */
export function podFromHint(hint: Readonly<PodHint>, namespace: string, targetNode: string): V1Pod {
  const ownerReferences: V1OwnerReference[] | undefined = hint.controller && [
    { ...hint.controller, controller: true, blockOwnerDeletion: true },
  ];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: withoutUndefined({
      name: hint.name,
      namespace,
      uid: hint.uid,
      resourceVersion: hint.resourceVersion,
      creationTimestamp: dateOf(hint.creationTimestamp),
      deletionTimestamp: dateOf(hint.deletionTimestamp),
      labels: hint.labels,
      annotations: hint.annotations,
      ownerReferences,
    }),
    spec: hint.nodeName
      ? { nodeName: hint.nodeName, containers: [] }
      : { affinity: pinnedAffinity(targetNode), containers: [] },
    status: withoutUndefined({
      phase: hint.phase,
      conditions: hint.conditions?.map((c) =>
        withoutUndefined({ ...c, lastTransitionTime: dateOf(c.lastTransitionTime) }),
      ),
    }),
  };
}

/** The allocatable resources node sizing reads. */
const SIZING_RESOURCES = ['cpu', 'memory', 'pods'] as const;

function allocatableHint(allocatable: Readonly<Record<string, string>> | undefined) {
  const kept = SIZING_RESOURCES.flatMap((name) =>
    allocatable?.[name] === undefined ? [] : [[name, allocatable[name]] as const],
  );
  return Object.fromEntries(kept);
}

/**
 * The hint of `node`: what placement reads (labels, taints, unschedulable, conditions), the
 * allocatable resources node sizing reads, and its readiness gate state (the released marker and
 * everynode's condition).
 */
export function nodeHintOf(node: Readonly<V1Node>): NodeHint {
  const meta = node.metadata ?? {};
  return withoutUndefined({
    name: meta.name ?? '',
    uid: meta.uid,
    resourceVersion: meta.resourceVersion ?? '',
    creationTimestamp: isoOf(meta.creationTimestamp),
    labels: meta.labels,
    taints: node.spec?.taints?.map((t) =>
      withoutUndefined({ key: t.key, value: t.value, effect: t.effect, timeAdded: isoOf(t.timeAdded) }),
    ),
    unschedulable: node.spec?.unschedulable,
    conditions: conditionHints(node.status?.conditions),
    allocatable: allocatableHint(node.status?.allocatable),
    gate: nodeGateHintOf(node),
  });
}

/**
 * The node a hint describes, for planning only: metadata, taints, unschedulable, conditions,
 * allocatable and, when hinted, its readiness gate state.
 */
export function nodeFromHint(hint: Readonly<NodeHint>): V1Node {
  const node: V1Node = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: withoutUndefined({
      name: hint.name,
      uid: hint.uid,
      resourceVersion: hint.resourceVersion,
      creationTimestamp: dateOf(hint.creationTimestamp),
      labels: hint.labels,
    }),
    spec: withoutUndefined({
      taints: hint.taints?.map((t) => withoutUndefined({ ...t, timeAdded: dateOf(t.timeAdded) })),
      unschedulable: hint.unschedulable,
    }),
    status: withoutUndefined({
      conditions: hint.conditions?.map((c) =>
        withoutUndefined({ ...c, lastTransitionTime: dateOf(c.lastTransitionTime) }),
      ),
      allocatable: hint.allocatable,
    }),
  };
  return hint.gate === undefined ? node : withNodeGateHint(node, hint.gate);
}
