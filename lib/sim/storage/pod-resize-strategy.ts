/**
 * The pods/resize registry strategy (pkg/registry/core/pod/strategy.go podResizeStrategy,
 * dropNonResizeUpdates): of a resize write only the containers' and init containers' `resources`
 * and `resizePolicy` are taken; metadata is reset as for status (ResetObjectMetaForStatus) and the
 * status kept. Added, removed, reordered or renamed containers are left for validation to refuse.
 */
import { defaultRequestsFromLimits } from '../schema/pod-qos.ts';
import { asRecord, cloneJson } from '../schema/store-json.ts';
import type { KubeObject } from '../schema/store-types.ts';

type Json = Record<string, unknown>;

function listOf(value: unknown): Json[] {
  return Array.isArray(value) ? value.map((v) => asRecord(v) ?? {}) : [];
}

/** dropNonResizeUpdatesForContainers: the old containers with the new resources and resizePolicy. */
function mergedContainers(next: unknown, old: unknown): unknown {
  const fresh = listOf(next);
  const before = listOf(old);
  if (fresh.length === 0) return next;
  if (fresh.some((c, i) => c.name !== before[i]?.name)) return next;
  return before.map((c, i) => {
    const { resources, resizePolicy } = fresh[i] ?? {};
    const merged: Json = { ...c, resources };
    if (resizePolicy === undefined) delete merged.resizePolicy;
    else merged.resizePolicy = resizePolicy;
    if (resources === undefined) delete merged.resources;
    return merged;
  });
}

/** The pod a resize write of `requested` over the stored `old` produces, before validation. */
export function resizeUpdateOf(requested: Readonly<KubeObject>, old: Readonly<KubeObject>): KubeObject {
  const spec = asRecord(requested.spec) ?? {};
  const oldSpec = asRecord(old.spec) ?? {};
  const sameCount =
    listOf(spec.containers).length === listOf(oldSpec.containers).length &&
    listOf(spec.initContainers).length === listOf(oldSpec.initContainers).length;
  const nextSpec = sameCount
    ? cloneJson({
        ...oldSpec,
        containers: mergedContainers(spec.containers, oldSpec.containers),
        ...(oldSpec.initContainers !== undefined
          ? { initContainers: mergedContainers(spec.initContainers, oldSpec.initContainers) }
          : {}),
      })
    : cloneJson(spec);
  defaultRequestsFromLimits(nextSpec);
  const next: KubeObject = { ...old, metadata: { ...old.metadata }, spec: nextSpec };
  if (old.status === undefined) delete next.status;
  return next;
}
