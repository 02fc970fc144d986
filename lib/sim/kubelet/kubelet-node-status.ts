/**
 * What a kubelet reports about its node when it registers: conditions, addresses, capacity and
 * node info. The simulated kubelet fills in only what is missing, so a node created with
 * `Ready=False` (or any condition a test set) keeps it — the Ready condition is whatever the API or
 * the node controls say.
 */
import type { V1Node } from '@kubernetes/client-node';

/** The kubelet version every simulated node reports (`kubectl get nodes` VERSION). */
export const SIM_KUBELET_VERSION = 'v1.33.0';

/** Resources every simulated node offers. */
const capacity = { cpu: '4', memory: '16393932Ki', pods: '110', 'ephemeral-storage': '101430960Ki' };

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
    condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
  ];
}

/**
 * The node's status after the kubelet registered, or undefined when it already has everything.
 * Missing conditions are added (never replacing one already there), as are addresses
 * (`InternalIP` = `internalIP`, `Hostname`), capacity, allocatable and nodeInfo.
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
  fill('capacity', capacity);
  fill('allocatable', capacity);
  fill('daemonEndpoints', { kubeletEndpoint: { Port: 10250 } });
  fill('nodeInfo', nodeInfo);
  return changed ? status : undefined;
}

/** The node's InternalIP address, or undefined when it has none. */
export function internalIPOf(node: Readonly<V1Node>): string | undefined {
  return node.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
}
