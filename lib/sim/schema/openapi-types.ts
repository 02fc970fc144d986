/**
 * The schema type table behind both the OpenAPI documents (lib/sim/apiserver/openapi.ts) and strategic merge
 * patch (lib/sim/storage/strategic-merge-patch.ts), so the patch metadata kubectl reads from /openapi/v3 is
 * exactly what the server merges with.
 */
import { accessTypes } from './openapi-types-access.ts';
import { statusTypes } from './openapi-types-status.ts';
import { volumesTypes } from './openapi-types-volumes.ts';
import { workloadsTypes } from './openapi-types-workloads.ts';
import type { ResourceKey } from './resources.ts';
import type { TypePackage } from './type-table.ts';

/** A scalar type code of the table. */
export type ScalarCode =
  | 's'
  | 'i32'
  | 'i64'
  | 'n'
  | 'b'
  | 'time'
  | 'microtime'
  | 'bytes'
  | 'ios'
  | 'q'
  | 'any'
  | 'json';

/** The type of one field. */
export type FieldType =
  | { readonly kind: 'scalar'; readonly scalar: ScalarCode }
  | { readonly kind: 'ref'; readonly name: string }
  | { readonly kind: 'array'; readonly items: FieldType }
  | { readonly kind: 'map'; readonly values: FieldType };

/** One field with its strategic merge patch metadata. */
export interface FieldSpec {
  readonly name: string;
  readonly type: FieldType;
  /** `x-kubernetes-patch-strategy`, like `merge` or `merge,retainKeys`. */
  readonly patchStrategy?: string;
  /** `x-kubernetes-patch-merge-key`, like `name`. */
  readonly patchMergeKey?: string;
}

/** One schema: its short and full (OpenAPI definition) names and its fields. */
export interface TypeSpec {
  readonly name: string;
  readonly definition: string;
  readonly fields: ReadonlyMap<string, FieldSpec>;
}

const scalarCodes: ReadonlySet<string> = new Set([
  's',
  'i32',
  'i64',
  'n',
  'b',
  'time',
  'microtime',
  'bytes',
  'ios',
  'q',
  'any',
  'json',
]);

const packagePrefix: Readonly<Record<TypePackage, string>> = {
  core: 'io.k8s.api.core.v1.',
  apps: 'io.k8s.api.apps.v1.',
  meta: 'io.k8s.apimachinery.pkg.apis.meta.v1.',
  rbac: 'io.k8s.api.rbac.v1.',
  authorization: 'io.k8s.api.authorization.v1.',
  apiextensions: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.',
};

function parseType(code: string): FieldType {
  if (code.startsWith('[') && code.endsWith(']'))
    return { kind: 'array', items: parseType(code.slice(1, -1)) };
  if (code.startsWith('{') && code.endsWith('}'))
    return { kind: 'map', values: parseType(code.slice(1, -1)) };
  if (scalarCodes.has(code)) return { kind: 'scalar', scalar: code as ScalarCode };
  return { kind: 'ref', name: code };
}

function parseField(text: string): FieldSpec {
  const colon = text.indexOf(':');
  const [typeCode = '', patch] = text.slice(colon + 1).split('/');
  const [patchStrategy, patchMergeKey] = patch === undefined ? [] : patch.split(':');
  return {
    name: text.slice(0, colon),
    type: parseType(typeCode),
    ...(patchStrategy ? { patchStrategy } : {}),
    ...(patchMergeKey ? { patchMergeKey } : {}),
  };
}

function buildSpecs(): ReadonlyMap<string, TypeSpec> {
  const specs = new Map<string, TypeSpec>();
  for (const table of [workloadsTypes, volumesTypes, statusTypes, accessTypes]) {
    for (const [name, [pkg, fieldList]] of Object.entries(table)) {
      const fields = new Map<string, FieldSpec>();
      for (const text of fieldList.split(/\s+/).filter(Boolean)) {
        const field = parseField(text);
        fields.set(field.name, field);
      }
      specs.set(name, { name, definition: packagePrefix[pkg] + name, fields });
    }
  }
  return specs;
}

const specs = buildSpecs();

/** The schema with short name `name` (like `PodSpec`), or undefined when the table has none. */
export function typeSpec(name: string): TypeSpec | undefined {
  return specs.get(name);
}

/** The schema at the root of each built-in resource; the custom resource has its CRD's instead. */
const builtinRoots: Readonly<Partial<Record<ResourceKey, string>>> = {
  namespaces: 'Namespace',
  nodes: 'Node',
  pods: 'Pod',
  events: 'Event',
  'apps/daemonsets': 'DaemonSet',
  'apps/controllerrevisions': 'ControllerRevision',
  'authorization.k8s.io/selfsubjectaccessreviews': 'SelfSubjectAccessReview',
  'rbac.authorization.k8s.io/clusterrolebindings': 'ClusterRoleBinding',
  'rbac.authorization.k8s.io/clusterroles': 'ClusterRole',
  'rbac.authorization.k8s.io/rolebindings': 'RoleBinding',
  'rbac.authorization.k8s.io/roles': 'Role',
  'apiextensions.k8s.io/customresourcedefinitions': 'CustomResourceDefinition',
};

/**
 * The short name of the schema at the root of resource `key` (`Pod` for pods), or undefined for a
 * custom resource, which the table does not describe.
 */
export function builtinRootType(key: ResourceKey): string | undefined {
  return builtinRoots[key];
}

/** Every schema reachable from the schemas named in `roots` (roots included), in discovery order. */
export function typeClosure(roots: readonly string[]): TypeSpec[] {
  const found = new Map<string, TypeSpec>();
  const visit = (name: string): void => {
    const spec = specs.get(name);
    if (!spec || found.has(name)) return;
    found.set(name, spec);
    for (const field of spec.fields.values()) visitType(field.type);
  };
  const visitType = (type: FieldType): void => {
    if (type.kind === 'ref') visit(type.name);
    else if (type.kind === 'array') visitType(type.items);
    else if (type.kind === 'map') visitType(type.values);
  };
  for (const root of roots) visit(root);
  return [...found.values()];
}
