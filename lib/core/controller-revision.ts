/**
 * ControllerRevisions of a DaemonSet: the snapshot of its template that rollbacks restore
 * (upstream pkg/controller/daemon/update.go getPatch, Match and snapshot).
 */
import type { V1ControllerRevision } from '@kubernetes/client-node';
import { controllerRefFor } from './controller-ref.ts';
import { CONTROLLER_REVISION_HASH_LABEL, type DaemonSet } from './daemon-set.ts';
import {
  sizingOfDaemonSet,
  sizingOfRevisionData,
  withoutSizing,
  withSizing,
} from './node-sizing/sizing-revision.ts';
import { safeLabelValue } from './safe-label-value.ts';
import { canonicalJson, type JsonValue, stableJson, templateHash, withoutNulls } from './template-hash.ts';

/**
 * The revision data for `ds`: `{"spec":{"template":{...template, "$patch":"replace"}}}` as plain
 * JSON — a strategic merge patch that restores the template when applied to the DaemonSet
 * (upstream getPatch) — plus its node-sizing rules when it has any (node-sizing/sizing-revision.ts).
 */
export function revisionData(ds: Readonly<DaemonSet>): JsonValue {
  const template = canonicalJson(ds.spec?.template ?? {});
  const templateObject =
    template !== null && typeof template === 'object' && !Array.isArray(template) ? template : {};
  return withSizing({ spec: { template: { ...templateObject, $patch: 'replace' } } }, ds);
}

/**
 * True when `revision` holds `ds`'s current template and node-sizing rules (upstream Match).
 * Upstream compares the marshalled bytes; we compare canonical JSON (key order and Go's `null` for
 * zero structs ignored), so a revision written by kube-controller-manager for the same template
 * matches too; the rules compare wherever either side holds them.
 */
export function revisionMatches(ds: Readonly<DaemonSet>, revision: Readonly<V1ControllerRevision>): boolean {
  const stored = withoutNulls(canonicalJson(revision.data ?? null));
  const wanted = withoutNulls(revisionData(ds));
  if (stableJson(withoutSizing(stored)) !== stableJson(withoutSizing(wanted))) return false;
  return (
    stableJson(sizingOfRevisionData(stored) ?? null) === stableJson(sizingOfDaemonSet(ds)?.value ?? null)
  );
}

/**
 * The hash naming `ds`'s next revision: its template's, with `collisionCount`, and its node-sizing
 * rules when it has any (a DaemonSet without rules keeps the hash it always had).
 */
export function revisionHashFor(ds: Readonly<DaemonSet>, collisionCount: number | undefined): string {
  return templateHash(ds.spec?.template ?? {}, collisionCount, sizingOfDaemonSet(ds)?.value);
}

/**
 * The template hash a revision stands for: its controller-revision-hash label, else its name as a
 * label value ({@link safeLabelValue}; upstream constructHistory labels unlabelled legacy revisions
 * with their name, which a name longer than 63 characters cannot be: pods carry the hash as a
 * label). '' for a revision with neither.
 */
export function revisionHashOf(revision: Readonly<V1ControllerRevision>): string {
  const label = revision.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL];
  if (label !== undefined) return label;
  const name = revision.metadata?.name ?? '';
  return name === '' ? '' : safeLabelValue(name);
}

/** The longest prefix a revision name keeps (upstream ControllerRevisionName): 253 − '-' − hash. */
const MAX_REVISION_PREFIX = 223;

/**
 * The name of the revision of hash `hash` for the controller named `prefix` (upstream
 * pkg/controller/history ControllerRevisionName): `<prefix>-<hash>`, the prefix cut to its first
 * 223 characters so that any valid name (up to 253) gives a name of at most 253. A prefix whose cut
 * ends in '.' loses the dots too: `.-` is not a DNS subdomain, so upstream's name for it is
 * rejected by the API server; every other name is upstream's.
 */
export function controllerRevisionName(prefix: string, hash: string): string {
  const cut =
    prefix.length > MAX_REVISION_PREFIX ? prefix.slice(0, MAX_REVISION_PREFIX).replace(/\.+$/, '') : prefix;
  return `${cut}-${hash}`;
}

/**
 * The ControllerRevision recording `ds`'s current template as revision number `revision`
 * (upstream snapshot): named by {@link controllerRevisionName} with the hash of the template and
 * `collisionCount` (default: the DaemonSet's `status.collisionCount`, unmixed when absent) and its
 * node-sizing rules ({@link revisionHashFor}), in the
 * DaemonSet's namespace, labelled with the template labels plus controller-revision-hash, annotated
 * with the DaemonSet's annotations, controlled by the DaemonSet, data from {@link revisionData}.
 */
export function controllerRevisionFor(
  ds: Readonly<DaemonSet>,
  revision: number,
  collisionCount: number | undefined = ds.status?.collisionCount,
): V1ControllerRevision {
  const hash = revisionHashFor(ds, collisionCount);
  const annotations = ds.metadata?.annotations;
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: controllerRevisionName(ds.metadata?.name ?? '', hash),
      namespace: ds.metadata?.namespace ?? 'default',
      labels: { ...ds.spec?.template.metadata?.labels, [CONTROLLER_REVISION_HASH_LABEL]: hash },
      ...(annotations && Object.keys(annotations).length > 0 ? { annotations: { ...annotations } } : {}),
      ownerReferences: [controllerRefFor(ds)],
    },
    data: revisionData(ds),
    revision,
  };
}
