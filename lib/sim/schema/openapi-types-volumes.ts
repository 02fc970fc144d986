/**
 * Type table of the Kubernetes API schemas the simulator publishes (part: volumes).
 * Pod volume sources and their projections.
 *
 * One entry per schema: its package (core = io.k8s.api.core.v1, apps = io.k8s.api.apps.v1,
 * meta = io.k8s.apimachinery.pkg.apis.meta.v1) and its fields as `name:type[/strategy[:mergeKey]]`,
 * in the notation parsed by lib/sim/schema/openapi-types.ts. Field lists follow the published API (the
 * models of @kubernetes/client-node 1.4.0, generated from the Kubernetes OpenAPI); patch strategies
 * and merge keys are the `patchStrategy`/`patchMergeKey` struct tags of k8s.io/api core/v1,
 * apps/v1 and apimachinery meta/v1 types.go.
 */
import type { TypeTable } from './type-table.ts';

/** The volumes part of the schema type table. */
export const volumesTypes: TypeTable = {
  Volume: [
    'core',
    `awsElasticBlockStore:AWSElasticBlockStoreVolumeSource azureDisk:AzureDiskVolumeSource
    azureFile:AzureFileVolumeSource cephfs:CephFSVolumeSource cinder:CinderVolumeSource
    configMap:ConfigMapVolumeSource csi:CSIVolumeSource downwardAPI:DownwardAPIVolumeSource
    emptyDir:EmptyDirVolumeSource ephemeral:EphemeralVolumeSource fc:FCVolumeSource
    flexVolume:FlexVolumeSource flocker:FlockerVolumeSource
    gcePersistentDisk:GCEPersistentDiskVolumeSource gitRepo:GitRepoVolumeSource
    glusterfs:GlusterfsVolumeSource hostPath:HostPathVolumeSource image:ImageVolumeSource
    iscsi:ISCSIVolumeSource name:s nfs:NFSVolumeSource
    persistentVolumeClaim:PersistentVolumeClaimVolumeSource
    photonPersistentDisk:PhotonPersistentDiskVolumeSource portworxVolume:PortworxVolumeSource
    projected:ProjectedVolumeSource quobyte:QuobyteVolumeSource rbd:RBDVolumeSource
    scaleIO:ScaleIOVolumeSource secret:SecretVolumeSource storageos:StorageOSVolumeSource
    vsphereVolume:VsphereVirtualDiskVolumeSource`,
  ],
  AWSElasticBlockStoreVolumeSource: ['core', `fsType:s partition:i32 readOnly:b volumeID:s`],
  AzureDiskVolumeSource: ['core', `cachingMode:s diskName:s diskURI:s fsType:s kind:s readOnly:b`],
  AzureFileVolumeSource: ['core', `readOnly:b secretName:s shareName:s`],
  CephFSVolumeSource: [
    'core',
    `monitors:[s] path:s readOnly:b secretFile:s secretRef:LocalObjectReference user:s`,
  ],
  CinderVolumeSource: ['core', `fsType:s readOnly:b secretRef:LocalObjectReference volumeID:s`],
  ConfigMapVolumeSource: ['core', `defaultMode:i32 items:[KeyToPath] name:s optional:b`],
  KeyToPath: ['core', `key:s mode:i32 path:s`],
  CSIVolumeSource: [
    'core',
    `driver:s fsType:s nodePublishSecretRef:LocalObjectReference readOnly:b volumeAttributes:{s}`,
  ],
  DownwardAPIVolumeSource: ['core', `defaultMode:i32 items:[DownwardAPIVolumeFile]`],
  DownwardAPIVolumeFile: [
    'core',
    `fieldRef:ObjectFieldSelector mode:i32 path:s resourceFieldRef:ResourceFieldSelector`,
  ],
  EmptyDirVolumeSource: ['core', `medium:s sizeLimit:q`],
  EphemeralVolumeSource: ['core', `volumeClaimTemplate:PersistentVolumeClaimTemplate`],
  PersistentVolumeClaimTemplate: ['core', `metadata:ObjectMeta spec:PersistentVolumeClaimSpec`],
  PersistentVolumeClaimSpec: [
    'core',
    `accessModes:[s] dataSource:TypedLocalObjectReference dataSourceRef:TypedObjectReference
    resources:VolumeResourceRequirements selector:LabelSelector storageClassName:s
    volumeAttributesClassName:s volumeMode:s volumeName:s`,
  ],
  TypedLocalObjectReference: ['core', `apiGroup:s kind:s name:s`],
  TypedObjectReference: ['core', `apiGroup:s kind:s name:s namespace:s`],
  VolumeResourceRequirements: ['core', `limits:{q} requests:{q}`],
  FCVolumeSource: ['core', `fsType:s lun:i32 readOnly:b targetWWNs:[s] wwids:[s]`],
  FlexVolumeSource: ['core', `driver:s fsType:s options:{s} readOnly:b secretRef:LocalObjectReference`],
  FlockerVolumeSource: ['core', `datasetName:s datasetUUID:s`],
  GCEPersistentDiskVolumeSource: ['core', `fsType:s partition:i32 pdName:s readOnly:b`],
  GitRepoVolumeSource: ['core', `directory:s repository:s revision:s`],
  GlusterfsVolumeSource: ['core', `endpoints:s path:s readOnly:b`],
  HostPathVolumeSource: ['core', `path:s type:s`],
  ImageVolumeSource: ['core', `pullPolicy:s reference:s`],
  ISCSIVolumeSource: [
    'core',
    `chapAuthDiscovery:b chapAuthSession:b fsType:s initiatorName:s iqn:s iscsiInterface:s lun:i32
    portals:[s] readOnly:b secretRef:LocalObjectReference targetPortal:s`,
  ],
  NFSVolumeSource: ['core', `path:s readOnly:b server:s`],
  PersistentVolumeClaimVolumeSource: ['core', `claimName:s readOnly:b`],
  PhotonPersistentDiskVolumeSource: ['core', `fsType:s pdID:s`],
  PortworxVolumeSource: ['core', `fsType:s readOnly:b volumeID:s`],
  ProjectedVolumeSource: ['core', `defaultMode:i32 sources:[VolumeProjection]`],
  VolumeProjection: [
    'core',
    `clusterTrustBundle:ClusterTrustBundleProjection configMap:ConfigMapProjection
    downwardAPI:DownwardAPIProjection podCertificate:PodCertificateProjection
    secret:SecretProjection serviceAccountToken:ServiceAccountTokenProjection`,
  ],
  ClusterTrustBundleProjection: ['core', `labelSelector:LabelSelector name:s optional:b path:s signerName:s`],
  ConfigMapProjection: ['core', `items:[KeyToPath] name:s optional:b`],
  DownwardAPIProjection: ['core', `items:[DownwardAPIVolumeFile]`],
  PodCertificateProjection: [
    'core',
    `certificateChainPath:s credentialBundlePath:s keyPath:s keyType:s maxExpirationSeconds:i32
    signerName:s`,
  ],
  SecretProjection: ['core', `items:[KeyToPath] name:s optional:b`],
  ServiceAccountTokenProjection: ['core', `audience:s expirationSeconds:i64 path:s`],
  QuobyteVolumeSource: ['core', `group:s readOnly:b registry:s tenant:s user:s volume:s`],
  RBDVolumeSource: [
    'core',
    `fsType:s image:s keyring:s monitors:[s] pool:s readOnly:b secretRef:LocalObjectReference user:s`,
  ],
  ScaleIOVolumeSource: [
    'core',
    `fsType:s gateway:s protectionDomain:s readOnly:b secretRef:LocalObjectReference sslEnabled:b
    storageMode:s storagePool:s system:s volumeName:s`,
  ],
  SecretVolumeSource: ['core', `defaultMode:i32 items:[KeyToPath] optional:b secretName:s`],
  StorageOSVolumeSource: [
    'core',
    `fsType:s readOnly:b secretRef:LocalObjectReference volumeName:s volumeNamespace:s`,
  ],
  VsphereVirtualDiskVolumeSource: ['core', `fsType:s storagePolicyID:s storagePolicyName:s volumePath:s`],
};
