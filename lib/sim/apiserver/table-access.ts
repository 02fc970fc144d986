/**
 * Table printers for the RBAC kinds, ported from pkg/printers/internalversion/printers.go
 * (printRole, printClusterRole, printRoleBinding, printClusterRoleBinding), and the default
 * printer (apiserver registry/rest defaultTableConvertor: name and creation time) that
 * apiextensions-apiserver uses for CustomResourceDefinitions.
 */
import type { KubeObject } from '../schema/store-types.ts';
import type { TableColumnDefinition } from './table-column-definition.ts';
import { ageColumn, column, listAt, nameColumn, objectAt, stringAt } from './table-columns.ts';
import { ageSince } from './table-format.ts';

/** The Created At column of roles and the default printer: the creation time in RFC 3339. */
const createdAtColumn = column(
  'Created At',
  'date',
  'CreationTimestamp is a timestamp representing the server time when this object was created.',
);

/** roleColumnDefinitions, clusterRoleColumnDefinitions and the defaultTableConvertor's columns. */
export const createdAtColumns: TableColumnDefinition[] = [nameColumn, createdAtColumn];

/** The name and the creation time in UTC (`.Time.UTC().Format(time.RFC3339)`). */
export function createdAtCells(obj: Readonly<KubeObject>): unknown[] {
  const created = obj.metadata.creationTimestamp;
  const time = created === undefined ? undefined : new Date(created as unknown as string);
  const text = time && !Number.isNaN(time.getTime()) ? time.toISOString().replace(/\.\d{3}Z$/, 'Z') : '';
  return [obj.metadata.name ?? '', text];
}

/** roleBindingsColumnDefinitions (`roleRef` worded for RoleBindings or ClusterRoleBindings). */
function bindingColumns(roleRef: string): TableColumnDefinition[] {
  return [
    nameColumn,
    column('Role', 'string', roleRef),
    ageColumn,
    column('Users', 'string', 'Users in the roleBinding', 1),
    column('Groups', 'string', 'Groups in the roleBinding', 1),
    column('ServiceAccounts', 'string', 'ServiceAccounts in the roleBinding', 1),
  ];
}

/** The columns of `kubectl get rolebindings`. */
export const roleBindingColumns = bindingColumns(
  'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.',
);

/** The columns of `kubectl get clusterrolebindings`. */
export const clusterRoleBindingColumns = bindingColumns(
  'RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.',
);

/** The users, groups and service accounts (`namespace/name`) of the subjects (SubjectsStrings). */
function subjectsStrings(binding: Readonly<KubeObject>): [string, string, string] {
  const users: string[] = [];
  const groups: string[] = [];
  const serviceAccounts: string[] = [];
  for (const subject of listAt(binding, 'subjects')) {
    const kind = stringAt(subject, 'kind');
    if (kind === 'User') users.push(stringAt(subject, 'name'));
    else if (kind === 'Group') groups.push(stringAt(subject, 'name'));
    else if (kind === 'ServiceAccount')
      serviceAccounts.push(`${stringAt(subject, 'namespace')}/${stringAt(subject, 'name')}`);
  }
  return [users.join(', '), groups.join(', '), serviceAccounts.join(', ')];
}

/** The cells of one RoleBinding or ClusterRoleBinding row: name, `Kind/name` of the role, age, subjects. */
export function bindingCells(binding: Readonly<KubeObject>, now: Readonly<Date>): unknown[] {
  const roleRef = objectAt(binding, 'roleRef');
  return [
    binding.metadata.name ?? '',
    `${stringAt(roleRef, 'kind')}/${stringAt(roleRef, 'name')}`,
    ageSince(binding.metadata.creationTimestamp, now),
    ...subjectsStrings(binding),
  ];
}
