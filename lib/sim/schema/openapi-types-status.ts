/**
 * Type table of the Kubernetes API schemas the simulator publishes (part: status).
 * Pod, node and namespace status, nodes, events and object references.
 *
 * One entry per schema: its package (core = io.k8s.api.core.v1, apps = io.k8s.api.apps.v1,
 * meta = io.k8s.apimachinery.pkg.apis.meta.v1) and its fields as `name:type[/strategy[:mergeKey]]`,
 * in the notation parsed by lib/sim/schema/openapi-types.ts. Field lists follow the published API (the
 * models of @kubernetes/client-node 1.4.0, generated from the Kubernetes OpenAPI); patch strategies
 * and merge keys are the `patchStrategy`/`patchMergeKey` struct tags of k8s.io/api core/v1,
 * apps/v1 and apimachinery meta/v1 types.go.
 */
import type { TypeTable } from './type-table.ts';

/** The status part of the schema type table. */
export const statusTypes: TypeTable = {
  NodeAffinity: [
    'core',
    `preferredDuringSchedulingIgnoredDuringExecution:[PreferredSchedulingTerm]
    requiredDuringSchedulingIgnoredDuringExecution:NodeSelector`,
  ],
  NodeSelectorTerm: [
    'core',
    `matchExpressions:[NodeSelectorRequirement] matchFields:[NodeSelectorRequirement]`,
  ],
  NodeSelectorRequirement: ['core', `key:s operator:s values:[s]`],
  NodeSelector: ['core', `nodeSelectorTerms:[NodeSelectorTerm]`],
  LocalObjectReference: ['core', `name:s`],
  DaemonSetStatus: [
    'apps',
    `collisionCount:i32 conditions:[DaemonSetCondition]/merge:type currentNumberScheduled:i32
    desiredNumberScheduled:i32 numberAvailable:i32 numberMisscheduled:i32 numberReady:i32
    numberUnavailable:i32 observedGeneration:i64 updatedNumberScheduled:i32`,
  ],
  PodStatus: [
    'core',
    `conditions:[PodCondition]/merge:type containerStatuses:[ContainerStatus]
    ephemeralContainerStatuses:[ContainerStatus]
    extendedResourceClaimStatus:PodExtendedResourceClaimStatus hostIP:s hostIPs:[HostIP]/merge:ip
    initContainerStatuses:[ContainerStatus] message:s nominatedNodeName:s observedGeneration:i64
    phase:s podIP:s podIPs:[PodIP]/merge:ip qosClass:s reason:s resize:s
    resourceClaimStatuses:[PodResourceClaimStatus]/merge,retainKeys:name startTime:time`,
  ],
  PodCondition: [
    'core',
    `lastProbeTime:time lastTransitionTime:time message:s observedGeneration:i64 reason:s status:s
    type:s`,
  ],
  ContainerStatus: [
    'core',
    `allocatedResources:{q} allocatedResourcesStatus:[ResourceStatus] containerID:s image:s imageID:s
    lastState:ContainerState name:s ready:b resources:ResourceRequirements restartCount:i32
    started:b state:ContainerState stopSignal:s user:ContainerUser volumeMounts:[VolumeMountStatus]`,
  ],
  ResourceStatus: ['core', `name:s resources:[ResourceHealth]`],
  ResourceHealth: ['core', `health:s resourceID:s`],
  ContainerState: [
    'core',
    `running:ContainerStateRunning terminated:ContainerStateTerminated waiting:ContainerStateWaiting`,
  ],
  ContainerStateRunning: ['core', `startedAt:time`],
  ContainerStateTerminated: [
    'core',
    `containerID:s exitCode:i32 finishedAt:time message:s reason:s signal:i32 startedAt:time`,
  ],
  ContainerStateWaiting: ['core', `message:s reason:s`],
  ContainerUser: ['core', `linux:LinuxContainerUser`],
  LinuxContainerUser: ['core', `gid:i64 supplementalGroups:[i64] uid:i64`],
  VolumeMountStatus: ['core', `mountPath:s name:s readOnly:b recursiveReadOnly:s`],
  PodExtendedResourceClaimStatus: [
    'core',
    `requestMappings:[ContainerExtendedResourceRequest] resourceClaimName:s`,
  ],
  HostIP: ['core', `ip:s`],
  PodIP: ['core', `ip:s`],
  PodResourceClaimStatus: ['core', `name:s resourceClaimName:s`],
  Node: ['core', `apiVersion:s kind:s metadata:ObjectMeta spec:NodeSpec status:NodeStatus`],
  NodeSpec: [
    'core',
    `configSource:NodeConfigSource externalID:s podCIDR:s podCIDRs:[s]/merge providerID:s
    taints:[Taint] unschedulable:b`,
  ],
  NodeConfigSource: ['core', `configMap:ConfigMapNodeConfigSource`],
  ConfigMapNodeConfigSource: ['core', `kubeletConfigKey:s name:s namespace:s resourceVersion:s uid:s`],
  Taint: ['core', `effect:s key:s timeAdded:time value:s`],
  NodeStatus: [
    'core',
    `addresses:[NodeAddress]/merge:type allocatable:{q} capacity:{q}
    conditions:[NodeCondition]/merge:type config:NodeConfigStatus
    daemonEndpoints:NodeDaemonEndpoints features:NodeFeatures images:[ContainerImage]
    nodeInfo:NodeSystemInfo phase:s runtimeHandlers:[NodeRuntimeHandler]
    volumesAttached:[AttachedVolume] volumesInUse:[s]`,
  ],
  NodeAddress: ['core', `address:s type:s`],
  NodeCondition: [
    'core',
    `lastHeartbeatTime:time lastTransitionTime:time message:s reason:s status:s type:s`,
  ],
  NodeConfigStatus: [
    'core',
    `active:NodeConfigSource assigned:NodeConfigSource error:s lastKnownGood:NodeConfigSource`,
  ],
  NodeDaemonEndpoints: ['core', `kubeletEndpoint:DaemonEndpoint`],
  DaemonEndpoint: ['core', `Port:i32`],
  NodeFeatures: ['core', `supplementalGroupsPolicy:b`],
  ContainerImage: ['core', `names:[s] sizeBytes:i64`],
  NodeSystemInfo: [
    'core',
    `architecture:s bootID:s containerRuntimeVersion:s kernelVersion:s kubeProxyVersion:s
    kubeletVersion:s machineID:s operatingSystem:s osImage:s swap:NodeSwapStatus systemUUID:s`,
  ],
  NodeSwapStatus: ['core', `capacity:i64`],
  NodeRuntimeHandler: ['core', `features:NodeRuntimeHandlerFeatures name:s`],
  NodeRuntimeHandlerFeatures: ['core', `recursiveReadOnlyMounts:b userNamespaces:b`],
  AttachedVolume: ['core', `devicePath:s name:s`],
  Namespace: ['core', `apiVersion:s kind:s metadata:ObjectMeta spec:NamespaceSpec status:NamespaceStatus`],
  NamespaceSpec: ['core', `finalizers:[s]`],
  NamespaceStatus: ['core', `conditions:[NamespaceCondition]/merge:type phase:s`],
  NamespaceCondition: ['core', `lastTransitionTime:time message:s reason:s status:s type:s`],
  Event: [
    'core',
    `action:s apiVersion:s count:i32 eventTime:microtime firstTimestamp:time
    involvedObject:ObjectReference kind:s lastTimestamp:time message:s metadata:ObjectMeta reason:s
    related:ObjectReference reportingComponent:s reportingInstance:s series:EventSeries
    source:EventSource type:s`,
  ],
  ObjectReference: ['core', `apiVersion:s fieldPath:s kind:s name:s namespace:s resourceVersion:s uid:s`],
  EventSeries: ['core', `count:i32 lastObservedTime:microtime`],
  EventSource: ['core', `component:s host:s`],
};
