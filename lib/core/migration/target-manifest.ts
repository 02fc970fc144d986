/**
 * The DaemonSet a migration creates from the one it replaces: the same name, labels and spec, so
 * that the pods and revisions it adopts are current for it. Annotations are kept (everynode reads
 * its settings from them on both kinds) but for the source kind's bookkeeping; on the way to
 * `apps/v1` the everynode-only fields become the annotations that carry them there.
 */

import { TEMPLATE_GENERATION_ANNOTATION } from '../daemon-set.ts';
import {
  BURST_REPLICAS_ANNOTATION,
  PARTITION_ANNOTATION,
  PAUSED_ANNOTATION,
  PROGRESS_DEADLINE_ANNOTATION,
  ROLLOUT_SELECTOR_ANNOTATION,
  STRICT_ANNOTATION,
} from '../extensions.ts';
import { IN_PLACE_ANNOTATION } from '../in-place/in-place-setting.ts';
import {
  NODE_READINESS_ANNOTATION,
  NODE_READINESS_DRY_RUN_ANNOTATION,
  NODE_READINESS_TAINT_KEY_ANNOTATION,
  NODE_READINESS_TIMEOUT_ANNOTATION,
} from '../node-gates/gate-declaration.ts';
import { NODE_SIZING_ANNOTATION } from '../node-sizing/sizing-spec.ts';
import {
  ROLLOUT_HEALTH_ANNOTATION,
  ROLLOUT_STEPS_ANNOTATION,
  ROLLOUT_TOPOLOGY_KEY_ANNOTATION,
} from '../safe-rollout/rollout-spec.ts';
import type { DaemonSetKind } from './migration-record.ts';

/** On a migrated DaemonSet: the kind and uid of the one it replaced, as JSON. */
export const MIGRATED_FROM_ANNOTATION = 'everynode.dev/migrated-from';
/** kubectl apply's copy of the last manifest applied: the source kind's, wrong for the target. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

type Json = Record<string, unknown>;

/** An everynode.dev/v1 spec field and the apps/v1 annotation that carries it. */
const FIELD_ANNOTATIONS: readonly { readonly path: readonly string[]; readonly annotation: string }[] = [
  { path: ['updateStrategy', 'rollingUpdate', 'partition'], annotation: PARTITION_ANNOTATION },
  { path: ['updateStrategy', 'rollingUpdate', 'paused'], annotation: PAUSED_ANNOTATION },
  { path: ['updateStrategy', 'rollingUpdate', 'selector'], annotation: ROLLOUT_SELECTOR_ANNOTATION },
  { path: ['updateStrategy', 'rollingUpdate', 'strict'], annotation: STRICT_ANNOTATION },
  { path: ['progressDeadlineSeconds'], annotation: PROGRESS_DEADLINE_ANNOTATION },
  { path: ['burstReplicas'], annotation: BURST_REPLICAS_ANNOTATION },
  { path: ['nodeReadiness', 'mode'], annotation: NODE_READINESS_ANNOTATION },
  { path: ['nodeReadiness', 'taintKey'], annotation: NODE_READINESS_TAINT_KEY_ANNOTATION },
  { path: ['nodeReadiness', 'timeoutSeconds'], annotation: NODE_READINESS_TIMEOUT_ANNOTATION },
  { path: ['nodeReadiness', 'dryRun'], annotation: NODE_READINESS_DRY_RUN_ANNOTATION },
  { path: ['updateStrategy', 'rollingUpdate', 'steps'], annotation: ROLLOUT_STEPS_ANNOTATION },
  { path: ['updateStrategy', 'rollingUpdate', 'topologyKey'], annotation: ROLLOUT_TOPOLOGY_KEY_ANNOTATION },
  { path: ['updateStrategy', 'rollingUpdate', 'health'], annotation: ROLLOUT_HEALTH_ANNOTATION },
  { path: ['updateStrategy', 'rollingUpdate', 'inPlace'], annotation: IN_PLACE_ANNOTATION },
  { path: ['nodeSizing'], annotation: NODE_SIZING_ANNOTATION },
];

/** The spec fields only everynode.dev/v1 has, removed once their values are carried over. */
const EVERYNODE_ONLY: readonly (readonly string[])[] = [
  ...FIELD_ANNOTATIONS.map((f) => f.path).filter((path) => path[0] !== 'nodeReadiness'),
  ['nodeReadiness'],
];

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function valueAt(root: unknown, path: readonly string[]): unknown {
  let value = root;
  for (const key of path) value = isObject(value) ? value[key] : undefined;
  return value;
}

function removeAt(root: Json, path: readonly string[]): void {
  const parent = valueAt(root, path.slice(0, -1));
  const last = path[path.length - 1];
  if (isObject(parent) && last !== undefined) delete parent[last];
}

/** The target DaemonSet and, in words, each way it differs from the source. */
export interface TargetManifest {
  readonly manifest: Json;
  readonly changes: readonly string[];
}

/**
 * The `to` DaemonSet replacing `source` (a DaemonSet of the other kind, as the server sent it, or
 * as a migration record keeps it), whose uid was `sourceUid`.
 */
export function targetManifest(source: Readonly<Json>, to: DaemonSetKind, sourceUid: string): TargetManifest {
  const from: DaemonSetKind = to === 'apps/v1' ? 'everynode.dev/v1' : 'apps/v1';
  const metadata = isObject(source.metadata) ? source.metadata : {};
  const spec = structuredClone(isObject(source.spec) ? source.spec : {});
  const annotations: Record<string, string> = { ...(metadata.annotations as Record<string, string>) };
  const changes: string[] = [];
  for (const key of [LAST_APPLIED_ANNOTATION, TEMPLATE_GENERATION_ANNOTATION, MIGRATED_FROM_ANNOTATION]) {
    if (annotations[key] === undefined) continue;
    delete annotations[key];
    if (key !== MIGRATED_FROM_ANNOTATION)
      changes.push(`annotation ${key} dropped (the ${from} object's own)`);
  }
  if (to === 'apps/v1') {
    for (const { path, annotation } of FIELD_ANNOTATIONS) {
      const value = valueAt(spec, path);
      if (value === undefined || value === null) continue;
      annotations[annotation] = typeof value === 'string' ? value : JSON.stringify(value);
      changes.push(
        `spec.${path.join('.')} becomes annotation ${annotation}, which kube-controller-manager ignores`,
      );
    }
    for (const path of EVERYNODE_ONLY) removeAt(spec, path);
  }
  annotations[MIGRATED_FROM_ANNOTATION] = JSON.stringify({ apiVersion: from, uid: sourceUid });
  const manifest: Json = {
    apiVersion: to,
    kind: 'DaemonSet',
    metadata: {
      name: metadata.name,
      namespace: metadata.namespace,
      ...(isObject(metadata.labels) ? { labels: metadata.labels } : {}),
      annotations,
      ...(Array.isArray(metadata.ownerReferences) ? { ownerReferences: metadata.ownerReferences } : {}),
    },
    spec,
  };
  return { manifest, changes };
}

/** The kind and uid a migrated DaemonSet names in its {@link MIGRATED_FROM_ANNOTATION}, if any. */
export function migratedFrom(ds: Readonly<Json>): { apiVersion: string; uid: string } | undefined {
  const metadata = isObject(ds.metadata) ? ds.metadata : {};
  const text = isObject(metadata.annotations) ? metadata.annotations[MIGRATED_FROM_ANNOTATION] : undefined;
  if (typeof text !== 'string') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    if (isObject(value) && typeof value.apiVersion === 'string' && typeof value.uid === 'string')
      return { apiVersion: value.apiVersion, uid: value.uid };
  } catch {
    // Not ours: treated as absent.
  }
  return undefined;
}
