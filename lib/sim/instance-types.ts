/**
 * EC2 instance types as an EKS node reports them: `status.capacity` and `status.allocatable` for
 * the node's `node.kubernetes.io/instance-type`, so simulated nodes have the mixed, realistic sizes
 * a real cluster has.
 *
 * - **capacity**: cpu = vCPUs; memory = what the kernel reports as MemTotal, the instance's memory
 *   less the kernel's own share, taken as 2.65% (an 8 GiB m5-class node reports 8166336Ki of
 *   8388608Ki); pods = the VPC CNI's max pods (amazon-eks-ami eni-max-pods.txt: ENIs × (IPv4
 *   addresses per ENI − 1) + 2); ephemeral-storage = the 20 GiB root volume of a managed node
 *   group (20959212Ki).
 * - **allocatable** = capacity − kubeReserved − evictionHard, as the EKS AMI bootstrap configures
 *   the kubelet: kubeReserved memory 11 × maxPods + 255 Mi; kubeReserved cpu 6% of the first core,
 *   1% of the second, 0.5% of the third and fourth, 0.25% of every further core; kubeReserved
 *   ephemeral-storage 1Gi; evictionHard memory.available 100Mi and nodefs.available 10% (the
 *   kubelet's float32 percentage of the capacity). An m6i.2xlarge thus offers 7910m cpu and, like
 *   every node with a 20 GiB root volume, 18242267924 bytes of ephemeral storage.
 */
import { formatMilli } from './schema/quantity.ts';

/** The label the kubelet (from the cloud provider) sets to the node's instance type. */
export const INSTANCE_TYPE_LABEL = 'node.kubernetes.io/instance-type';

/** An instance type's hardware as EC2 describes it, and its VPC CNI max pods. */
export interface InstanceType {
  readonly name: string;
  readonly vcpus: number;
  readonly memoryGiB: number;
  readonly maxPods: number;
}

/** The instance types simulated nodes come in (figures of EC2 and eni-max-pods.txt). */
export const INSTANCE_TYPES: readonly InstanceType[] = [
  { name: 'm6i.large', vcpus: 2, memoryGiB: 8, maxPods: 29 },
  { name: 'm6i.xlarge', vcpus: 4, memoryGiB: 16, maxPods: 58 },
  { name: 'm6i.2xlarge', vcpus: 8, memoryGiB: 32, maxPods: 58 },
  { name: 'm6i.8xlarge', vcpus: 32, memoryGiB: 128, maxPods: 234 },
  { name: 'r6a.32xlarge', vcpus: 128, memoryGiB: 1024, maxPods: 737 },
];

/**
 * The instance type of the generated node with `index`, repeating every ten nodes: three
 * m6i.large, three m6i.xlarge, two m6i.2xlarge, one m6i.8xlarge and one r6a.32xlarge — many small
 * nodes and a few large ones, as in a real fleet. Index 0 (the template of nodes added by name) is
 * an m6i.xlarge.
 */
const MIX = [1, 0, 2, 0, 1, 3, 0, 2, 1, 4] as const;

export function instanceTypeFor(index: number): InstanceType {
  const type = INSTANCE_TYPES[MIX[index % MIX.length] ?? 1];
  if (!type) throw new Error(`no instance type for node index ${index}`);
  return type;
}

/** A node's capacity and allocatable, as the status fields hold them. */
export interface NodeResources {
  readonly capacity: Readonly<Record<string, string>>;
  readonly allocatable: Readonly<Record<string, string>>;
}

/** Share of an instance's memory the kernel keeps (MemTotal is the rest). */
const KERNEL_MEMORY_SHARE = 0.0265;
/** The root volume's filesystem size, in KiB. */
const ROOT_VOLUME_KI = 20_959_212;
const MI = 1024 * 1024;
const GI = 1024 * MI;

/** kubeReserved cpu in millicores for `vcpus` cores (the EKS AMI's get_cpu_millicores_to_reserve). */
export function kubeReservedCpu(vcpus: number): number {
  const total = vcpus * 1000;
  const ranges: readonly [number, number, number][] = [
    [0, 1000, 600],
    [1000, 2000, 100],
    [2000, 4000, 50],
    [4000, total, 25],
  ];
  let reserved = 0;
  for (const [start, end, hundredthsOfPercent] of ranges) {
    if (total > start)
      reserved += Math.trunc(((Math.min(total, end) - start) * hundredthsOfPercent) / 10_000);
  }
  return reserved;
}

/** kubeReserved memory in MiB for `maxPods` (the EKS AMI's get_memory_mebibytes_to_reserve). */
export function kubeReservedMemoryMi(maxPods: number): number {
  return 11 * maxPods + 255;
}

/** float32(0.1), the kubelet's nodefs.available percentage. */
const NODEFS_EVICTION = Math.fround(0.1);

function computeResources(type: InstanceType): NodeResources {
  const memoryKi = Math.floor(type.memoryGiB * 1024 * 1024 * (1 - KERNEL_MEMORY_SHARE));
  const storage = ROOT_VOLUME_KI * 1024;
  const reservedMemoryKi = (kubeReservedMemoryMi(type.maxPods) + 100) * 1024;
  const allocatableStorage = storage - Math.trunc(storage * NODEFS_EVICTION) - GI;
  const capacity = {
    cpu: String(type.vcpus),
    'ephemeral-storage': `${ROOT_VOLUME_KI}Ki`,
    memory: `${memoryKi}Ki`,
    pods: String(type.maxPods),
  };
  const allocatable = {
    cpu: formatMilli(type.vcpus * 1000 - kubeReservedCpu(type.vcpus)),
    'ephemeral-storage': String(allocatableStorage),
    memory: `${memoryKi - reservedMemoryKi}Ki`,
    pods: String(type.maxPods),
  };
  return Object.freeze({ capacity: Object.freeze(capacity), allocatable: Object.freeze(allocatable) });
}

/** Computed once per type and shared (frozen): 20,000 nodes hold a handful of objects. */
const byName = new Map(INSTANCE_TYPES.map((t) => [t.name, computeResources(t)]));

/** The capacity and allocatable of a node of instance type `name`, or undefined for a type not simulated. */
export function instanceTypeResources(name: string | undefined): NodeResources | undefined {
  return name === undefined ? undefined : byName.get(name);
}
