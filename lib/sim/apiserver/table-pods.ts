/**
 * The Table printer for Pods, ported from pkg/printers/internalversion/printers.go (printPod):
 * READY counts ready running containers, STATUS is the most telling container reason, RESTARTS adds
 * "(<age> ago)" of the last restart.
 */
import type { KubeObject } from '../schema/store-types.ts';
import type { TableColumnDefinition } from './table-column-definition.ts';
import { ageColumn, column, listAt, nameColumn, numberAt, objectAt, stringAt } from './table-columns.ts';
import { ageSince } from './table-format.ts';

type Json = Record<string, unknown>;

/** podColumnDefinitions. */
export const podColumns: TableColumnDefinition[] = [
  nameColumn,
  column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
  column('Status', 'string', 'The aggregate status of the containers in this pod.'),
  column(
    'Restarts',
    'string',
    'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
  ),
  ageColumn,
  column(
    'IP',
    'string',
    'IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.',
    1,
  ),
  column('Node', 'string', 'NodeName is a request to schedule this pod onto a specific node.', 1),
  column(
    'Nominated Node',
    'string',
    'nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods.',
    1,
  ),
  column(
    'Readiness Gates',
    'string',
    'If specified, all readiness gates will be evaluated for pod readiness.',
    1,
  ),
];

/** Row conditions the server attaches to finished pods (podSuccessConditions / podFailedConditions). */
export function podRowConditions(pod: Readonly<KubeObject>): Json[] | undefined {
  const phase = stringAt(objectAt(pod, 'status'), 'phase');
  if (phase === 'Succeeded') {
    return [
      {
        type: 'Completed',
        status: 'True',
        reason: 'Succeeded',
        message: 'The pod has completed successfully.',
      },
    ];
  }
  if (phase === 'Failed')
    return [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
  return undefined;
}

interface Tally {
  reason: string;
  restarts: number;
  ready: number;
  lastRestart: number;
  hasRunning: boolean;
  /** Restarts of restartable (sidecar) init containers, which alone count once initialized. */
  sidecar: { restarts: number; lastRestart: number };
}

function terminatedReason(terminated: Json, prefix: string): string {
  const reason = stringAt(terminated, 'reason');
  if (reason !== '') return prefix + reason;
  const signal = numberAt(terminated, 'signal');
  return signal !== 0 ? `${prefix}Signal:${signal}` : `${prefix}ExitCode:${numberAt(terminated, 'exitCode')}`;
}

function noteRestart(tally: { restarts: number; lastRestart: number }, status: Json): void {
  tally.restarts += numberAt(status, 'restartCount');
  const finished = objectAt(status, 'lastState', 'terminated').finishedAt;
  const at = typeof finished === 'string' ? Date.parse(finished) : Number.NaN;
  if (!Number.isNaN(at) && at > tally.lastRestart) tally.lastRestart = at;
}

/** Init containers: `Init:<reason>` or `Init:i/n` while initializing; true when still initializing. */
function tallyInitContainers(pod: Readonly<KubeObject>, tally: Tally): boolean {
  const statuses = listAt(objectAt(pod, 'status'), 'initContainerStatuses');
  const declared = listAt(objectAt(pod, 'spec'), 'initContainers');
  const sidecars = new Set(
    declared.filter((c) => c.restartPolicy === 'Always').map((c) => stringAt(c, 'name')),
  );
  for (const [i, status] of statuses.entries()) {
    noteRestart(tally, status);
    if (sidecars.has(stringAt(status, 'name'))) noteRestart(tally.sidecar, status);
    const terminated = objectAt(status, 'state', 'terminated');
    const waiting = objectAt(status, 'state', 'waiting');
    if ('exitCode' in terminated && numberAt(terminated, 'exitCode') === 0) continue;
    if (sidecars.has(stringAt(status, 'name')) && status.started === true) {
      if (status.ready === true) tally.ready++;
      continue;
    }
    if (Object.keys(terminated).length > 0) tally.reason = terminatedReason(terminated, 'Init:');
    else if (stringAt(waiting, 'reason') !== '' && waiting.reason !== 'PodInitializing') {
      tally.reason = `Init:${stringAt(waiting, 'reason')}`;
    } else tally.reason = `Init:${i}/${declared.length}`;
    return true;
  }
  return false;
}

/** Regular containers, last to first, as printPod walks them. */
function tallyContainers(pod: Readonly<KubeObject>, tally: Tally): void {
  const statuses = listAt(objectAt(pod, 'status'), 'containerStatuses');
  for (const status of [...statuses].reverse()) {
    noteRestart(tally, status);
    const waiting = objectAt(status, 'state', 'waiting');
    const terminated = objectAt(status, 'state', 'terminated');
    if (stringAt(waiting, 'reason') !== '') tally.reason = stringAt(waiting, 'reason');
    else if (Object.keys(terminated).length > 0) tally.reason = terminatedReason(terminated, '');
    else if (status.ready === true && 'running' in objectAt(status, 'state')) {
      tally.hasRunning = true;
      tally.ready++;
    }
  }
}

function conditionIs(pod: Readonly<KubeObject>, type: string): boolean {
  return listAt(objectAt(pod, 'status'), 'conditions').some((c) => c.type === type && c.status === 'True');
}

function podReason(pod: Readonly<KubeObject>): string {
  const status = objectAt(pod, 'status');
  const reason = stringAt(status, 'reason') || stringAt(status, 'phase');
  const gated = listAt(status, 'conditions').some(
    (c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated',
  );
  return gated ? 'SchedulingGated' : reason;
}

/** The READY, STATUS and RESTARTS cells. */
function podStatusCells(pod: Readonly<KubeObject>, now: Readonly<Date>): [string, string, string] {
  const spec = objectAt(pod, 'spec');
  const sidecars = listAt(spec, 'initContainers').filter((c) => c.restartPolicy === 'Always').length;
  const tally: Tally = {
    reason: podReason(pod),
    restarts: 0,
    ready: 0,
    lastRestart: 0,
    hasRunning: false,
    sidecar: { restarts: 0, lastRestart: 0 },
  };
  const initializing = tallyInitContainers(pod, tally);
  if (!initializing || conditionIs(pod, 'Initialized')) {
    tally.restarts = tally.sidecar.restarts;
    tally.lastRestart = tally.sidecar.lastRestart;
    tallyContainers(pod, tally);
    if (tally.reason === 'Completed' && tally.hasRunning)
      tally.reason = conditionIs(pod, 'Ready') ? 'Running' : 'NotReady';
  }
  const phase = stringAt(objectAt(pod, 'status'), 'phase');
  const deleting = pod.metadata.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null;
  if (deleting && stringAt(objectAt(pod, 'status'), 'reason') === 'NodeLost') tally.reason = 'Unknown';
  else if (deleting && phase !== 'Succeeded' && phase !== 'Failed') tally.reason = 'Terminating';
  const restarts =
    tally.restarts !== 0 && tally.lastRestart > 0
      ? `${tally.restarts} (${ageSince(new Date(tally.lastRestart), now)} ago)`
      : String(tally.restarts);
  return [`${tally.ready}/${listAt(spec, 'containers').length + sidecars}`, tally.reason, restarts];
}

function readinessGates(pod: Readonly<KubeObject>): string {
  const gates = listAt(objectAt(pod, 'spec'), 'readinessGates');
  if (gates.length === 0) return '<none>';
  const passed = gates.filter((gate) => conditionIs(pod, stringAt(gate, 'conditionType'))).length;
  return `${passed}/${gates.length}`;
}

/** The cells of one Pod row (printPod, wide as the server prints). */
export function podCells(pod: Readonly<KubeObject>, now: Readonly<Date>): unknown[] {
  const status = objectAt(pod, 'status');
  const ip = stringAt(listAt(status, 'podIPs')[0] ?? {}, 'ip');
  return [
    pod.metadata.name ?? '',
    ...podStatusCells(pod, now),
    ageSince(pod.metadata.creationTimestamp, now),
    ip || '<none>',
    stringAt(objectAt(pod, 'spec'), 'nodeName') || '<none>',
    stringAt(status, 'nominatedNodeName') || '<none>',
    readinessGates(pod),
  ];
}
