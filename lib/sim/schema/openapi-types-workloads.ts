/**
 * Type table of the Kubernetes API schemas the simulator publishes (part: workloads).
 * Object metadata, apps/v1 DaemonSet and ControllerRevision, and the pod template: PodSpec, containers, probes, affinity, security contexts.
 *
 * One entry per schema: its package (core = io.k8s.api.core.v1, apps = io.k8s.api.apps.v1,
 * meta = io.k8s.apimachinery.pkg.apis.meta.v1) and its fields as `name:type[/strategy[:mergeKey]]`,
 * in the notation parsed by lib/sim/schema/openapi-types.ts. Field lists follow the published API (the
 * models of @kubernetes/client-node 1.4.0, generated from the Kubernetes OpenAPI); patch strategies
 * and merge keys are the `patchStrategy`/`patchMergeKey` struct tags of k8s.io/api core/v1,
 * apps/v1 and apimachinery meta/v1 types.go.
 */
import type { TypeTable } from './type-table.ts';

/** The workloads part of the schema type table. */
export const workloadsTypes: TypeTable = {
  DaemonSet: ['apps', `apiVersion:s kind:s metadata:ObjectMeta spec:DaemonSetSpec status:DaemonSetStatus`],
  ObjectMeta: [
    'meta',
    `annotations:{s} creationTimestamp:time deletionGracePeriodSeconds:i64 deletionTimestamp:time
    finalizers:[s]/merge generateName:s generation:i64 labels:{s} managedFields:[ManagedFieldsEntry]
    name:s namespace:s ownerReferences:[OwnerReference]/merge:uid resourceVersion:s selfLink:s uid:s`,
  ],
  ManagedFieldsEntry: [
    'meta',
    `apiVersion:s fieldsType:s fieldsV1:any manager:s operation:s subresource:s time:time`,
  ],
  OwnerReference: ['meta', `apiVersion:s blockOwnerDeletion:b controller:b kind:s name:s uid:s`],
  DaemonSetSpec: [
    'apps',
    `minReadySeconds:i32 revisionHistoryLimit:i32 selector:LabelSelector template:PodTemplateSpec
    updateStrategy:DaemonSetUpdateStrategy`,
  ],
  LabelSelector: ['meta', `matchExpressions:[LabelSelectorRequirement] matchLabels:{s}`],
  LabelSelectorRequirement: ['meta', `key:s operator:s values:[s]`],
  PodTemplateSpec: ['core', `metadata:ObjectMeta spec:PodSpec`],
  PodSpec: [
    'core',
    `activeDeadlineSeconds:i64 affinity:Affinity automountServiceAccountToken:b
    containers:[Container]/merge:name dnsConfig:PodDNSConfig dnsPolicy:s enableServiceLinks:b
    ephemeralContainers:[EphemeralContainer]/merge:name hostAliases:[HostAlias]/merge:ip hostIPC:b
    hostNetwork:b hostPID:b hostUsers:b hostname:s hostnameOverride:s
    imagePullSecrets:[LocalObjectReference]/merge:name initContainers:[Container]/merge:name
    nodeName:s nodeSelector:{s} os:PodOS overhead:{q} preemptionPolicy:s priority:i32
    priorityClassName:s readinessGates:[PodReadinessGate]
    resourceClaims:[PodResourceClaim]/merge,retainKeys:name resources:ResourceRequirements
    restartPolicy:s runtimeClassName:s schedulerName:s
    schedulingGates:[PodSchedulingGate]/merge:name securityContext:PodSecurityContext
    serviceAccount:s serviceAccountName:s setHostnameAsFQDN:b shareProcessNamespace:b subdomain:s
    terminationGracePeriodSeconds:i64 tolerations:[Toleration]
    topologySpreadConstraints:[TopologySpreadConstraint]/merge:topologyKey
    volumes:[Volume]/merge,retainKeys:name`,
  ],
  Affinity: ['core', `nodeAffinity:NodeAffinity podAffinity:PodAffinity podAntiAffinity:PodAntiAffinity`],
  PreferredSchedulingTerm: ['core', `preference:NodeSelectorTerm weight:i32`],
  PodAffinity: [
    'core',
    `preferredDuringSchedulingIgnoredDuringExecution:[WeightedPodAffinityTerm]
    requiredDuringSchedulingIgnoredDuringExecution:[PodAffinityTerm]`,
  ],
  WeightedPodAffinityTerm: ['core', `podAffinityTerm:PodAffinityTerm weight:i32`],
  PodAffinityTerm: [
    'core',
    `labelSelector:LabelSelector matchLabelKeys:[s] mismatchLabelKeys:[s]
    namespaceSelector:LabelSelector namespaces:[s] topologyKey:s`,
  ],
  PodAntiAffinity: [
    'core',
    `preferredDuringSchedulingIgnoredDuringExecution:[WeightedPodAffinityTerm]
    requiredDuringSchedulingIgnoredDuringExecution:[PodAffinityTerm]`,
  ],
  Container: [
    'core',
    `args:[s] command:[s] env:[EnvVar]/merge:name envFrom:[EnvFromSource] image:s imagePullPolicy:s
    lifecycle:Lifecycle livenessProbe:Probe name:s ports:[ContainerPort]/merge:containerPort
    readinessProbe:Probe resizePolicy:[ContainerResizePolicy] resources:ResourceRequirements
    restartPolicy:s restartPolicyRules:[ContainerRestartRule] securityContext:SecurityContext
    startupProbe:Probe stdin:b stdinOnce:b terminationMessagePath:s terminationMessagePolicy:s tty:b
    volumeDevices:[VolumeDevice]/merge:devicePath volumeMounts:[VolumeMount]/merge:mountPath
    workingDir:s`,
  ],
  EnvVar: ['core', `name:s value:s valueFrom:EnvVarSource`],
  EnvVarSource: [
    'core',
    `configMapKeyRef:ConfigMapKeySelector fieldRef:ObjectFieldSelector fileKeyRef:FileKeySelector
    resourceFieldRef:ResourceFieldSelector secretKeyRef:SecretKeySelector`,
  ],
  ConfigMapKeySelector: ['core', `key:s name:s optional:b`],
  ObjectFieldSelector: ['core', `apiVersion:s fieldPath:s`],
  FileKeySelector: ['core', `key:s optional:b path:s volumeName:s`],
  ResourceFieldSelector: ['core', `containerName:s divisor:q resource:s`],
  SecretKeySelector: ['core', `key:s name:s optional:b`],
  EnvFromSource: ['core', `configMapRef:ConfigMapEnvSource prefix:s secretRef:SecretEnvSource`],
  ConfigMapEnvSource: ['core', `name:s optional:b`],
  SecretEnvSource: ['core', `name:s optional:b`],
  Lifecycle: ['core', `postStart:LifecycleHandler preStop:LifecycleHandler stopSignal:s`],
  LifecycleHandler: [
    'core',
    `exec:ExecAction httpGet:HTTPGetAction sleep:SleepAction tcpSocket:TCPSocketAction`,
  ],
  ExecAction: ['core', `command:[s]`],
  HTTPGetAction: ['core', `host:s httpHeaders:[HTTPHeader] path:s port:ios scheme:s`],
  HTTPHeader: ['core', `name:s value:s`],
  SleepAction: ['core', `seconds:i64`],
  TCPSocketAction: ['core', `host:s port:ios`],
  Probe: [
    'core',
    `exec:ExecAction failureThreshold:i32 grpc:GRPCAction httpGet:HTTPGetAction
    initialDelaySeconds:i32 periodSeconds:i32 successThreshold:i32 tcpSocket:TCPSocketAction
    terminationGracePeriodSeconds:i64 timeoutSeconds:i32`,
  ],
  GRPCAction: ['core', `port:i32 service:s`],
  ContainerPort: ['core', `containerPort:i32 hostIP:s hostPort:i32 name:s protocol:s`],
  ContainerResizePolicy: ['core', `resourceName:s restartPolicy:s`],
  ResourceRequirements: ['core', `claims:[ResourceClaim] limits:{q} requests:{q}`],
  ResourceClaim: ['core', `name:s request:s`],
  ContainerRestartRule: ['core', `action:s exitCodes:ContainerRestartRuleOnExitCodes`],
  ContainerRestartRuleOnExitCodes: ['core', `operator:s values:[i32]`],
  SecurityContext: [
    'core',
    `allowPrivilegeEscalation:b appArmorProfile:AppArmorProfile capabilities:Capabilities
    privileged:b procMount:s readOnlyRootFilesystem:b runAsGroup:i64 runAsNonRoot:b runAsUser:i64
    seLinuxOptions:SELinuxOptions seccompProfile:SeccompProfile
    windowsOptions:WindowsSecurityContextOptions`,
  ],
  AppArmorProfile: ['core', `localhostProfile:s type:s`],
  Capabilities: ['core', `add:[s] drop:[s]`],
  SELinuxOptions: ['core', `level:s role:s type:s user:s`],
  SeccompProfile: ['core', `localhostProfile:s type:s`],
  WindowsSecurityContextOptions: [
    'core',
    `gmsaCredentialSpec:s gmsaCredentialSpecName:s hostProcess:b runAsUserName:s`,
  ],
  VolumeDevice: ['core', `devicePath:s name:s`],
  VolumeMount: [
    'core',
    `mountPath:s mountPropagation:s name:s readOnly:b recursiveReadOnly:s subPath:s subPathExpr:s`,
  ],
  PodDNSConfig: ['core', `nameservers:[s] options:[PodDNSConfigOption] searches:[s]`],
  PodDNSConfigOption: ['core', `name:s value:s`],
  EphemeralContainer: [
    'core',
    `args:[s] command:[s] env:[EnvVar]/merge:name envFrom:[EnvFromSource] image:s imagePullPolicy:s
    lifecycle:Lifecycle livenessProbe:Probe name:s ports:[ContainerPort]/merge:containerPort
    readinessProbe:Probe resizePolicy:[ContainerResizePolicy] resources:ResourceRequirements
    restartPolicy:s restartPolicyRules:[ContainerRestartRule] securityContext:SecurityContext
    startupProbe:Probe stdin:b stdinOnce:b targetContainerName:s terminationMessagePath:s
    terminationMessagePolicy:s tty:b volumeDevices:[VolumeDevice]/merge:devicePath
    volumeMounts:[VolumeMount]/merge:mountPath workingDir:s`,
  ],
  HostAlias: ['core', `hostnames:[s] ip:s`],
  PodOS: ['core', `name:s`],
  PodReadinessGate: ['core', `conditionType:s`],
  PodResourceClaim: ['core', `name:s resourceClaimName:s resourceClaimTemplateName:s`],
  PodSchedulingGate: ['core', `name:s`],
  PodSecurityContext: [
    'core',
    `appArmorProfile:AppArmorProfile fsGroup:i64 fsGroupChangePolicy:s runAsGroup:i64 runAsNonRoot:b
    runAsUser:i64 seLinuxChangePolicy:s seLinuxOptions:SELinuxOptions seccompProfile:SeccompProfile
    supplementalGroups:[i64] supplementalGroupsPolicy:s sysctls:[Sysctl]
    windowsOptions:WindowsSecurityContextOptions`,
  ],
  Sysctl: ['core', `name:s value:s`],
  Toleration: ['core', `effect:s key:s operator:s tolerationSeconds:i64 value:s`],
  TopologySpreadConstraint: [
    'core',
    `labelSelector:LabelSelector matchLabelKeys:[s] maxSkew:i32 minDomains:i32 nodeAffinityPolicy:s
    nodeTaintsPolicy:s topologyKey:s whenUnsatisfiable:s`,
  ],
  DaemonSetUpdateStrategy: ['apps', `rollingUpdate:RollingUpdateDaemonSet type:s`],
  RollingUpdateDaemonSet: ['apps', `maxSurge:ios maxUnavailable:ios`],
  DaemonSetCondition: ['apps', `lastTransitionTime:time message:s reason:s status:s type:s`],
  Pod: ['core', `apiVersion:s kind:s metadata:ObjectMeta spec:PodSpec status:PodStatus`],
  ContainerExtendedResourceRequest: ['core', `containerName:s requestName:s resourceName:s`],
  ControllerRevision: ['apps', `apiVersion:s data:any kind:s metadata:ObjectMeta revision:i64`],
};
