/**
 * Table printers for DaemonSets, ControllerRevisions and Pods, ported from
 * pkg/printers/internalversion/printers.go (printDaemonSet, printControllerRevision, printPod).
 */
import type { KubeObject } from '../schema/store-types.ts';
import type { TableColumnDefinition } from './table-column-definition.ts';
import { ageColumn, column, listAt, nameColumn, numberAt, objectAt, stringAt } from './table-columns.ts';
import { ageSince, formatLabelSelector, formatLabels, type LabelSelectorLike } from './table-format.ts';

/** daemonSetColumnDefinitions. */
export const daemonSetColumns: TableColumnDefinition[] = [
  nameColumn,
  column('Desired', 'integer', 'The total number of nodes that should be running the daemon pod.'),
  column('Current', 'integer', 'The number of nodes running at least one daemon pod and are supposed to.'),
  column(
    'Ready',
    'integer',
    'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.',
  ),
  column('Up-to-date', 'integer', 'The total number of nodes that are running updated daemon pod'),
  column(
    'Available',
    'integer',
    'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)',
  ),
  column(
    'Node Selector',
    'string',
    'NodeSelector is a selector which must be true for the pod to fit on a node.',
  ),
  ageColumn,
  column('Containers', 'string', 'Names of each container in the template.', 1),
  column('Images', 'string', 'Images referenced by each container in the template.', 1),
  column('Selector', 'string', 'A label query over pods that are managed by the daemon set.', 1),
];

/** The cells of one DaemonSet row (printDaemonSet, always wide as the server prints). */
export function daemonSetCells(ds: Readonly<KubeObject>, now: Readonly<Date>): unknown[] {
  const spec = objectAt(ds, 'spec');
  const status = objectAt(ds, 'status');
  const podSpec = objectAt(spec, 'template', 'spec');
  const containers = listAt(podSpec, 'containers');
  return [
    ds.metadata.name ?? '',
    numberAt(status, 'desiredNumberScheduled'),
    numberAt(status, 'currentNumberScheduled'),
    numberAt(status, 'numberReady'),
    numberAt(status, 'updatedNumberScheduled'),
    numberAt(status, 'numberAvailable'),
    formatLabels(objectAt(podSpec, 'nodeSelector') as Record<string, string>),
    ageSince(ds.metadata.creationTimestamp, now),
    containers.map((c) => stringAt(c, 'name')).join(','),
    containers.map((c) => stringAt(c, 'image')).join(','),
    formatLabelSelector(spec.selector as LabelSelectorLike | undefined),
  ];
}

/** controllerRevisionColumnDefinitions. */
export const controllerRevisionColumns: TableColumnDefinition[] = [
  nameColumn,
  column('Controller', 'string', 'Controller of the object'),
  column('Revision', 'integer', 'Revision indicates the revision of the state represented by Data.'),
  ageColumn,
];

/** `daemonset.apps/name` for the controller ownerReference, or `<none>` (formatResourceName). */
function controllerName(revision: Readonly<KubeObject>): string {
  const ref = (revision.metadata.ownerReferences ?? []).find((owner) => owner.controller === true);
  if (!ref) return '<none>';
  const slash = ref.apiVersion.indexOf('/');
  const group = slash >= 0 ? ref.apiVersion.slice(0, slash) : '';
  const groupKind = group === '' ? ref.kind : `${ref.kind}.${group}`;
  return `${groupKind.toLowerCase()}/${ref.name}`;
}

/** The cells of one ControllerRevision row (printControllerRevision). */
export function controllerRevisionCells(revision: Readonly<KubeObject>, now: Readonly<Date>): unknown[] {
  return [
    revision.metadata.name ?? '',
    controllerName(revision),
    numberAt(revision, 'revision'),
    ageSince(revision.metadata.creationTimestamp, now),
  ];
}
