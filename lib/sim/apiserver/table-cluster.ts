/**
 * Table printers for Nodes, Namespaces and Events, ported from
 * pkg/printers/internalversion/printers.go (printNode, printNamespace, printEvent).
 */
import type { KubeObject } from '../schema/store-types.ts';
import type { TableColumnDefinition } from './table-column-definition.ts';
import { ageColumn, column, listAt, nameColumn, numberAt, objectAt, stringAt } from './table-columns.ts';
import { ageSince } from './table-format.ts';

/** nodeColumnDefinitions. */
export const nodeColumns: TableColumnDefinition[] = [
  nameColumn,
  column('Status', 'string', 'The status of the node'),
  column('Roles', 'string', 'The roles of the node'),
  ageColumn,
  column('Version', 'string', 'Kubelet Version reported by the node.'),
  column(
    'Internal-IP',
    'string',
    'List of addresses reachable to the node. Queried from cloud provider, if available.',
    1,
  ),
  column(
    'External-IP',
    'string',
    'List of addresses reachable to the node. Queried from cloud provider, if available.',
    1,
  ),
  column(
    'OS-Image',
    'string',
    'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).',
    1,
  ),
  column(
    'Kernel-Version',
    'string',
    "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
    1,
  ),
  column(
    'Container-Runtime',
    'string',
    'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).',
    1,
  ),
];

/** Roles from `node-role.kubernetes.io/<role>` labels and `kubernetes.io/role` (findNodeRoles), sorted. */
function nodeRoles(node: Readonly<KubeObject>): string {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(node.metadata.labels ?? {})) {
    if (key.startsWith('node-role.kubernetes.io/') && key.length > 'node-role.kubernetes.io/'.length) {
      roles.add(key.slice('node-role.kubernetes.io/'.length));
    } else if (key === 'kubernetes.io/role' && value !== '') roles.add(value);
  }
  return roles.size === 0 ? '<none>' : [...roles].sort().join(',');
}

function nodeStatus(node: Readonly<KubeObject>): string {
  const ready = listAt(objectAt(node, 'status'), 'conditions').find((c) => c.type === 'Ready');
  const status = [ready === undefined ? 'Unknown' : ready.status === 'True' ? 'Ready' : 'NotReady'];
  if (objectAt(node, 'spec').unschedulable === true) status.push('SchedulingDisabled');
  return status.join(',');
}

function address(node: Readonly<KubeObject>, type: string): string {
  const found = listAt(objectAt(node, 'status'), 'addresses').find((a) => a.type === type);
  return found ? stringAt(found, 'address') : '<none>';
}

/** The cells of one Node row (printNode, wide as the server prints). */
export function nodeCells(node: Readonly<KubeObject>, now: Readonly<Date>): unknown[] {
  const info = objectAt(node, 'status', 'nodeInfo');
  return [
    node.metadata.name ?? '',
    nodeStatus(node),
    nodeRoles(node),
    ageSince(node.metadata.creationTimestamp, now),
    stringAt(info, 'kubeletVersion'),
    address(node, 'InternalIP'),
    address(node, 'ExternalIP'),
    stringAt(info, 'osImage') || '<unknown>',
    stringAt(info, 'kernelVersion') || '<unknown>',
    stringAt(info, 'containerRuntimeVersion') || '<unknown>',
  ];
}

/** namespaceColumnDefinitions. */
export const namespaceColumns: TableColumnDefinition[] = [
  nameColumn,
  column('Status', 'string', 'The status of the namespace'),
  ageColumn,
];

/** The cells of one Namespace row (printNamespace). */
export function namespaceCells(namespace: Readonly<KubeObject>, now: Readonly<Date>): unknown[] {
  const phase = stringAt(objectAt(namespace, 'status'), 'phase');
  return [namespace.metadata.name ?? '', phase, ageSince(namespace.metadata.creationTimestamp, now)];
}

/** eventColumnDefinitions. */
export const eventColumns: TableColumnDefinition[] = [
  column('Last Seen', 'string', 'The time at which the most recent occurrence of this event was recorded.'),
  column('Type', 'string', 'Type of this event (Normal, Warning), new types could be added in the future'),
  column(
    'Reason',
    'string',
    "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
  ),
  column('Object', 'string', 'The object that this event is about.'),
  column(
    'Subobject',
    'string',
    'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].',
    1,
  ),
  column(
    'Source',
    'string',
    'The component reporting this event. Should be a short machine understandable string.',
    1,
  ),
  column('Message', 'string', 'A human-readable description of the status of this operation.'),
  column(
    'First Seen',
    'string',
    'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)',
    1,
  ),
  column('Count', 'string', 'The number of times this event has occurred.', 1),
  column('Name', 'string', nameColumn.description, 1, 'name'),
];

function eventSource(event: Readonly<KubeObject>): string {
  const source = objectAt(event, 'source');
  const component = stringAt(source, 'component') || stringAt(event, 'reportingComponent');
  const instance = stringAt(source, 'host') || stringAt(event, 'reportingInstance');
  return instance === '' ? component : `${component}, ${instance}`;
}

/** The cells of one Event row (printEvent, wide as the server prints). */
export function eventCells(event: Readonly<KubeObject>, now: Readonly<Date>): unknown[] {
  const firstSeen = event.firstTimestamp
    ? ageSince(event.firstTimestamp, now)
    : ageSince(event.eventTime, now);
  let lastSeen = event.lastTimestamp ? ageSince(event.lastTimestamp, now) : firstSeen;
  let count = numberAt(event, 'count');
  const series = objectAt(event, 'series');
  if (Object.keys(series).length > 0) {
    lastSeen = ageSince(series.lastObservedTime, now);
    count = numberAt(series, 'count');
  } else if (count === 0) count = 1;
  const involved = objectAt(event, 'involvedObject');
  const kind = stringAt(involved, 'kind').toLowerCase();
  const target = stringAt(involved, 'name') === '' ? kind : `${kind}/${stringAt(involved, 'name')}`;
  return [
    lastSeen,
    stringAt(event, 'type'),
    stringAt(event, 'reason'),
    target,
    stringAt(involved, 'fieldPath'),
    eventSource(event),
    stringAt(event, 'message').trim(),
    firstSeen,
    count,
    event.metadata.name ?? '',
  ];
}
