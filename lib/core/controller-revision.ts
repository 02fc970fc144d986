/**
 * ControllerRevisions of a DaemonSet: the snapshot of its template that rollbacks restore
 * (upstream pkg/controller/daemon/update.go getPatch, Match and snapshot).
 */
import type { V1ControllerRevision } from '@kubernetes/client-node';
import { controllerRefFor } from './controller-ref.ts';
import { CONTROLLER_REVISION_HASH_LABEL, type DaemonSet } from './daemon-set.ts';
import { canonicalJson, type JsonValue, stableJson, templateHash, withoutNulls } from './template-hash.ts';

/**
 * The revision data for `ds`: `{"spec":{"template":{...template, "$patch":"replace"}}}` as plain
 * JSON — a strategic merge patch that restores the template when applied to the DaemonSet
 * (upstream getPatch).
 */
export function revisionData(ds: Readonly<DaemonSet>): JsonValue {
  const template = canonicalJson(ds.spec?.template ?? {});
  const templateObject =
    template !== null && typeof template === 'object' && !Array.isArray(template) ? template : {};
  return { spec: { template: { ...templateObject, $patch: 'replace' } } };
}

/**
 * True when `revision` holds `ds`'s current template (upstream Match). Upstream compares the
 * marshalled bytes; we compare canonical JSON (key order and Go's `null` for zero structs
 * ignored), so a revision written by kube-controller-manager for the same template matches too.
 */
export function revisionMatches(ds: Readonly<DaemonSet>, revision: Readonly<V1ControllerRevision>): boolean {
  const stored = withoutNulls(canonicalJson(revision.data ?? null));
  return stableJson(stored) === stableJson(withoutNulls(revisionData(ds)));
}

/**
 * The template hash a revision stands for: its controller-revision-hash label, else its name
 * (upstream constructHistory labels unlabelled legacy revisions with their name).
 */
export function revisionHashOf(revision: Readonly<V1ControllerRevision>): string {
  return revision.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? revision.metadata?.name ?? '';
}

/**
 * The ControllerRevision recording `ds`'s current template as revision number `revision`
 * (upstream snapshot): named `<ds>-<hash>` with the hash of the template and `collisionCount`
 * (default: the DaemonSet's `status.collisionCount`, unmixed when absent), in the DaemonSet's
 * namespace, labelled with the template labels plus controller-revision-hash, annotated with the
 * DaemonSet's annotations, controlled by the DaemonSet, data from {@link revisionData}.
 */
export function controllerRevisionFor(
  ds: Readonly<DaemonSet>,
  revision: number,
  collisionCount: number | undefined = ds.status?.collisionCount,
): V1ControllerRevision {
  const hash = templateHash(ds.spec?.template ?? {}, collisionCount);
  const annotations = ds.metadata?.annotations;
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: `${ds.metadata?.name ?? ''}-${hash}`,
      namespace: ds.metadata?.namespace ?? 'default',
      labels: { ...ds.spec?.template.metadata?.labels, [CONTROLLER_REVISION_HASH_LABEL]: hash },
      ...(annotations && Object.keys(annotations).length > 0 ? { annotations: { ...annotations } } : {}),
      ownerReferences: [controllerRefFor(ds)],
    },
    data: revisionData(ds),
    revision,
  };
}
