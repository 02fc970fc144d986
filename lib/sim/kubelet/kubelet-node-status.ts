/**
 * What a kubelet reports about its node: when it registers, conditions, addresses, capacity and
 * node info — filling in only what is missing, so a node created with `Ready=False` (or any
 * condition a test set) keeps it; afterwards, the Ready condition, which it turns False only while
 * a `break-node` container has broken the node's network (kubeletReadyConditions). Otherwise the
 * Ready condition is whatever the API or the node controls say: a node they set NotReady (or
 * Unknown) is one whose kubelet is down, and it posts nothing for it.
 */
import type { V1Node } from '@kubernetes/client-node';
import { INSTANCE_TYPE_LABEL, instanceTypeResources } from '../instance-types.ts';
import { isTerminalPhase, type PodRun } from './kubelet-pod-run.ts';

/** The kubelet version every simulated node reports (`kubectl get nodes` VERSION). */
export const SIM_KUBELET_VERSION = 'v1.33.0';

/** Resources a simulated node offers when it has no instance type the simulator knows. */
const defaultCapacity = { cpu: '4', memory: '16393932Ki', pods: '110', 'ephemeral-storage': '101430960Ki' };

/** What the kubelet says about its machine (`kubectl get nodes -o wide` shows some of it). */
const nodeInfo = {
  architecture: 'amd64',
  bootID: '',
  containerRuntimeVersion: 'containerd://1.7.27',
  kernelVersion: '6.1.0',
  kubeProxyVersion: SIM_KUBELET_VERSION,
  kubeletVersion: SIM_KUBELET_VERSION,
  machineID: '',
  operatingSystem: 'linux',
  osImage: 'everynode simulated node',
  systemUUID: '',
};

/** Reason and message of the Ready condition of a healthy kubelet. */
const READY = { status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' };

/**
 * Reason and message of the Ready condition while a `break-node` container runs on the node: what
 * a real kubelet says when its network plugin is not ready (upstream pkg/kubelet/nodestatus/setters.go
 * ReadyCondition, from the runtime's NetworkReady=false).
 */
export const BROKEN_BY_MARKER = {
  status: 'False',
  reason: 'KubeletNotReady',
  message:
    'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady ' +
    'message:Network plugin returns error: everynode.dev/sim:break-node agent broke the node',
};

/** Conditions a healthy kubelet posts (upstream pkg/kubelet/nodestatus/setters.go). */
function healthyConditions(now: string): Record<string, unknown>[] {
  const condition = (type: string, status: string, reason: string, message: string) => ({
    type,
    status,
    lastHeartbeatTime: now,
    lastTransitionTime: now,
    reason,
    message,
  });
  return [
    condition(
      'MemoryPressure',
      'False',
      'KubeletHasSufficientMemory',
      'kubelet has sufficient memory available',
    ),
    condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
    condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
    condition('Ready', READY.status, READY.reason, READY.message),
  ];
}

/** The condition types the kubelet posts (every status update renews their lastHeartbeatTime). */
const kubeletConditionTypes = new Set(healthyConditions('').map((c) => c.type as string));

/**
 * The node's status after the kubelet registered, or undefined when it already has everything.
 * Missing conditions are added (never replacing one already there), as are addresses
 * (`InternalIP` = `internalIP`, `Hostname`), capacity and allocatable (by the node's
 * `node.kubernetes.io/instance-type` when the simulator knows it, else 4 cpu, 16 GiB, 110 pods)
 * and nodeInfo.
 */
export function registeredNodeStatus(
  node: Readonly<V1Node>,
  internalIP: string,
  now: string,
): Record<string, unknown> | undefined {
  const status = { ...(node.status as Record<string, unknown> | undefined) };
  const name = node.metadata?.name ?? '';
  const present = (node.status?.conditions ?? []).map((c) => c.type);
  const missing = healthyConditions(now).filter((c) => !present.includes(c.type as string));
  let changed = false;
  const fill = (field: string, value: unknown): void => {
    if (status[field] !== undefined) return;
    status[field] = value;
    changed = true;
  };
  if (missing.length > 0) {
    status.conditions = [...((status.conditions as unknown[] | undefined) ?? []), ...missing];
    changed = true;
  }
  fill('addresses', [
    { type: 'InternalIP', address: internalIP },
    { type: 'Hostname', address: name },
  ]);
  // The machine's size: that of its instance type (lib/sim/instance-types.ts), else the default.
  const sized = instanceTypeResources(node.metadata?.labels?.[INSTANCE_TYPE_LABEL]);
  fill('capacity', sized?.capacity ?? defaultCapacity);
  fill('allocatable', sized?.allocatable ?? defaultCapacity);
  fill('daemonEndpoints', { kubeletEndpoint: { Port: 10250 } });
  fill('nodeInfo', nodeInfo);
  return changed ? status : undefined;
}

/** The node's InternalIP address, or undefined when it has none. */
export function internalIPOf(node: Readonly<V1Node>): string | undefined {
  return node.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
}

/** A node condition as the store holds it (JSON: times are RFC 3339 strings). */
type ConditionJson = Record<string, unknown> & { type?: string; status?: string; message?: string };

function readyConditionOf(node: Readonly<V1Node>): ConditionJson | undefined {
  return (node.status?.conditions as ConditionJson[] | undefined)?.find((c) => c.type === 'Ready');
}

function isBrokenByMarker(ready: ConditionJson | undefined): boolean {
  return ready?.status === BROKEN_BY_MARKER.status && ready.message === BROKEN_BY_MARKER.message;
}

/**
 * True when the node's kubelet is up: the node is Ready, or NotReady only because a `break-node`
 * container broke it (the kubelet itself said so). A Ready condition set otherwise — False by the
 * API or the node controls, Unknown, or none — means the kubelet is down.
 */
export function kubeletIsUp(node: Readonly<V1Node>): boolean {
  const ready = readyConditionOf(node);
  return ready?.status === 'True' || isBrokenByMarker(ready);
}

/**
 * When `run` starts breaking its node: `breakMs` after the earliest of its running `break-node`
 * containers started; undefined when none runs or the pod has ended (Succeeded or Failed).
 */
export function breaksNodeFrom(run: Readonly<PodRun>, breakMs: number): number | undefined {
  if (isTerminalPhase(run.phase)) return undefined;
  let from: number | undefined;
  for (const c of run.containers) {
    if (c.behavior !== 'break-node' || c.state.kind !== 'running') continue;
    from = Math.min(from ?? Number.POSITIVE_INFINITY, c.state.startedAt + breakMs);
  }
  return from;
}

/**
 * The node's conditions as its kubelet posts them when the Ready condition must change, else
 * undefined: Ready=False (BROKEN_BY_MARKER) when `broken` and the node is Ready, Ready=True when
 * not `broken` and the node is NotReady by BROKEN_BY_MARKER. A node whose kubelet is down
 * (kubeletIsUp) is left alone, so the marker only adds a reason for NotReady and never overrides
 * what the API or the node controls set. As a kubelet status update, it renews the lastHeartbeatTime
 * of the conditions the kubelet owns; Ready's lastTransitionTime changes only with its status.
 */
export function kubeletReadyConditions(
  node: Readonly<V1Node>,
  broken: boolean,
  now: string,
): Record<string, unknown>[] | undefined {
  const ready = readyConditionOf(node);
  if (!kubeletIsUp(node) || broken === isBrokenByMarker(ready)) return undefined;
  const next = broken ? BROKEN_BY_MARKER : READY;
  return ((node.status?.conditions ?? []) as ConditionJson[]).map((c) => {
    if (c !== ready) return kubeletConditionTypes.has(c.type ?? '') ? { ...c, lastHeartbeatTime: now } : c;
    const lastTransitionTime = c.status === next.status ? c.lastTransitionTime : now;
    return { ...c, ...next, lastHeartbeatTime: now, lastTransitionTime };
  });
}
