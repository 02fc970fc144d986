/**
 * Defaults of the RBAC bindings (rbac/v1 SetDefaults_RoleBinding, SetDefaults_Subject), and what a
 * CustomResourceDefinition becomes when it is written: apiextensions v1 defaults
 * (SetDefaults_CustomResourceDefinitionSpec), the registry's PrepareForCreate (a fresh status
 * recording the storage version) and, at once, what the naming and establishing controllers of
 * apiextensions-apiserver would write a moment later (accepted names, NamesAccepted, Established),
 * so `kubectl wait --for condition=established` passes as soon as the CRD exists.
 *
 * The simulator serves exactly one custom resource, everynode.dev/v1 daemonsets from its manifest
 * (lib/sim/schema/crd.ts), whether or not its CRD object is stored; other CRDs are stored and
 * reported established, but their resources are not served.
 */
import { asRecord } from '../schema/store-json.ts';
import type { KubeObject } from '../schema/store-types.ts';

const rbacGroup = 'rbac.authorization.k8s.io';

/**
 * Defaults a RoleBinding or ClusterRoleBinding in place: roleRef.apiGroup and the apiGroup of User
 * and Group subjects are rbac.authorization.k8s.io when left empty.
 */
export function defaultRbacBinding(obj: KubeObject): void {
  const roleRef = asRecord(obj.roleRef);
  if (roleRef && !roleRef.apiGroup) roleRef.apiGroup = rbacGroup;
  for (const subject of Array.isArray(obj.subjects) ? obj.subjects : []) {
    const s = asRecord(subject);
    if (s && !s.apiGroup && (s.kind === 'User' || s.kind === 'Group')) s.apiGroup = rbacGroup;
  }
}

/** Fills in the defaulted spec fields in place: singular, listKind and the None conversion. */
export function defaultCrd(obj: KubeObject): void {
  const spec = asRecord(obj.spec);
  if (!spec) return;
  const names = asRecord(spec.names);
  const kind = typeof names?.kind === 'string' ? names.kind : '';
  if (names && !names.singular) names.singular = kind.toLowerCase();
  if (names && !names.listKind && kind) names.listKind = `${kind}List`;
  spec.conversion ??= { strategy: 'None' };
}

/** The name of the version marked `storage: true`, if any. */
function storageVersion(spec: Readonly<Record<string, unknown>>): string | undefined {
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  const stored = versions.map(asRecord).find((v) => v?.storage === true);
  return typeof stored?.name === 'string' ? stored.name : undefined;
}

/** Defaults a new CRD and gives it the status its controllers would: names accepted, established. */
export function prepareCrdForCreate(obj: KubeObject): void {
  defaultCrd(obj);
  const spec = asRecord(obj.spec) ?? {};
  const stored = storageVersion(spec);
  const at = obj.metadata.creationTimestamp;
  const condition = (type: string, reason: string, message: string) => ({
    type,
    status: 'True',
    lastTransitionTime: at,
    reason,
    message,
  });
  obj.status = {
    conditions: [
      condition('NamesAccepted', 'NoConflicts', 'no conflicts found'),
      condition('Established', 'InitialNamesAccepted', 'the initial names have been accepted'),
    ],
    acceptedNames: structuredClone(spec.names ?? {}),
    storedVersions: stored ? [stored] : [],
  };
}
