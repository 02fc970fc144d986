/**
 * Renders a pod run as the `status` a kubelet writes: phase, the kubelet's conditions, container
 * statuses, IPs and times — JSON-shaped (RFC 3339 strings), as the API server stores it.
 */
import { createHash } from 'node:crypto';
import { rfc3339 } from '../sim-timing.ts';
import { type ContainerRun, containersReady, type PodRun, type Termination } from './kubelet-pod-run.ts';
import {
  containerResourcesStatus,
  resizeConditionsFor,
  resizeConditionTypes,
} from './kubelet-resize-status.ts';

/** A pod condition as JSON. */
export interface PodConditionJson {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastProbeTime: null;
  lastTransitionTime: string;
  reason?: string;
  message?: string;
}

/** Which pod the status is for (CrashLoopBackOff messages name it), and its readiness gates. */
export interface PodIdentity {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  /** The condition types of `spec.readinessGates`: Ready waits for each to be True. */
  readonly readinessGates?: readonly string[];
}

/** Conditions the kubelet owns; every other one (PodScheduled, DisruptionTarget…) is kept as found. */
const kubeletConditions = [
  ...resizeConditionTypes,
  'PodReadyToStartContainers',
  'Initialized',
  'Ready',
  'ContainersReady',
];

/**
 * The status the kubelet reports for `run`. Conditions whose status is unchanged from `previous`
 * keep their lastTransitionTime, as the kubelet's status manager does (upstream
 * pkg/kubelet/status/status_manager.go updateLastTransitionTime).
 */
export function podStatusFor(
  run: Readonly<PodRun>,
  pod: Readonly<PodIdentity>,
  previous: Readonly<Record<string, unknown>> | undefined,
  hostIP: string,
  now: number,
): Record<string, unknown> {
  const prior = conditionsOf(previous);
  const kept = prior.filter((c) => !kubeletConditions.includes(c.type));
  const base = { hostIP, hostIPs: [{ ip: hostIP }], startTime: rfc3339(run.admittedAt) };
  if (run.rejection) {
    return { ...base, phase: 'Failed', ...run.rejection, conditions: kept };
  }
  const started = run.phase !== 'Pending';
  return {
    ...base,
    phase: run.phase,
    conditions: [
      ...resizeConditionsFor(run),
      ...kubeletConditionsFor(run, prior, now, readinessGatesNotReady(pod.readinessGates ?? [], kept)),
      ...kept,
    ],
    ...(started ? { podIP: run.podIP, podIPs: [{ ip: run.podIP }] } : {}),
    containerStatuses: run.containers.map((c) => ({
      ...containerStatusFor(c, pod),
      ...containerResourcesStatus(run, c.name),
    })),
  };
}

/**
 * Why the readiness gates hold the pod not ready, or undefined when each gate's condition among
 * `conditions` (those the kubelet does not own, as the API server has them) is True (upstream
 * pkg/kubelet/status/generate.go GeneratePodReadyCondition, with its messages).
 */
export function readinessGatesNotReady(
  gates: readonly string[],
  conditions: readonly PodConditionJson[],
): { reason: string; message: string } | undefined {
  const messages = gates.flatMap((type) => {
    const condition = conditions.find((c) => c.type === type);
    if (condition === undefined)
      return [`corresponding condition of pod readiness gate "${type}" does not exist.`];
    if (condition.status !== 'True')
      return [`the status of pod readiness gate "${type}" is not "True", but ${condition.status}`];
    return [];
  });
  return messages.length === 0
    ? undefined
    : { reason: 'ReadinessGatesNotReady', message: messages.join(', ') };
}

/**
 * The four conditions the kubelet owns, in the order it writes them (upstream
 * pkg/kubelet/status/generate.go): not-ready reasons ContainersNotReady while running, PodCompleted
 * once the pod has ended. Ready is ContainersReady unless that is True and a readiness gate is not
 * (`gatesNotReady`: reason ReadinessGatesNotReady).
 */
function kubeletConditionsFor(
  run: Readonly<PodRun>,
  prior: readonly PodConditionJson[],
  now: number,
  gatesNotReady: { reason: string; message: string } | undefined,
): PodConditionJson[] {
  const ready = containersReady(run) && run.phase === 'Running';
  const ended = run.phase === 'Succeeded' || run.phase === 'Failed';
  const unready = run.containers
    .filter((c) => !(c.state.kind === 'running' && c.state.ready))
    .map((c) => c.name);
  const notReady = ended
    ? { reason: 'PodCompleted' }
    : { reason: 'ContainersNotReady', message: `containers with unready status: [${unready.join(' ')}]` };
  const condition = (type: string, ok: boolean, why?: object): PodConditionJson => {
    const status = ok ? 'True' : 'False';
    const before = prior.find((c) => c.type === type);
    const since = before?.status === status ? before.lastTransitionTime : rfc3339(now);
    return { type, status, lastProbeTime: null, lastTransitionTime: since, ...(ok ? {} : why) };
  };
  return [
    condition('PodReadyToStartContainers', run.phase !== 'Pending'),
    condition('Initialized', true),
    condition('Ready', ready && gatesNotReady === undefined, ready ? gatesNotReady : notReady),
    condition('ContainersReady', ready, notReady),
  ];
}

function conditionsOf(status: Readonly<Record<string, unknown>> | undefined): PodConditionJson[] {
  const conditions = status?.conditions;
  return Array.isArray(conditions) ? (conditions as PodConditionJson[]) : [];
}

function containerStatusFor(c: Readonly<ContainerRun>, pod: Readonly<PodIdentity>): Record<string, unknown> {
  const state = c.state;
  const id = containerId(pod.uid, c.name, c.restartCount);
  const base = {
    name: c.name,
    image: c.image,
    imageID: state.kind === 'waiting' && state.reason === 'ContainerCreating' ? '' : imageId(c.image),
    restartCount: c.restartCount,
    lastState: c.lastTermination
      ? { terminated: terminatedJson(c.lastTermination, containerId(pod.uid, c.name, c.restartCount)) }
      : {},
  };
  switch (state.kind) {
    case 'waiting': {
      if (state.reason === 'ContainerCreating') {
        return { ...base, ready: false, started: false, state: { waiting: { reason: state.reason } } };
      }
      const message = `back-off ${goDuration(state.backOffMs)} restarting failed container=${c.name} pod=${pod.name}_${pod.namespace}(${pod.uid})`;
      return { ...base, ready: false, started: false, state: { waiting: { reason: state.reason, message } } };
    }
    case 'running':
      return {
        ...base,
        containerID: id,
        ready: state.ready,
        started: true,
        state: { running: { startedAt: rfc3339(state.startedAt) } },
      };
    case 'terminated':
      return {
        ...base,
        containerID: id,
        ready: false,
        started: false,
        state: { terminated: terminatedJson(state, id) },
      };
  }
}

function terminatedJson(t: Readonly<Termination>, containerID: string): Record<string, unknown> {
  return {
    exitCode: t.exitCode,
    reason: t.reason,
    startedAt: rfc3339(t.startedAt),
    finishedAt: rfc3339(t.finishedAt),
    containerID,
  };
}

function containerId(uid: string, name: string, restart: number): string {
  return `containerd://${createHash('sha256').update(`${uid}/${name}/${restart}`).digest('hex')}`;
}

function imageId(image: string): string {
  const repository = image.split('@')[0]?.replace(/:[^/:]*$/, '') ?? image;
  return `${repository}@sha256:${createHash('sha256').update(image).digest('hex')}`;
}

/** A duration as Go's time.Duration.String prints it, for the whole-second and sub-second cases. */
function goDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const seconds = Math.round(ms / 1000);
  const minutes = Math.floor(seconds / 60);
  return minutes > 0 ? `${minutes}m${seconds % 60}s` : `${seconds}s`;
}
