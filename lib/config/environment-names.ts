/**
 * The names of the environment variables everynode's functions read, defined once: the function
 * configurations parse them (lib/reconcile, lib/relay, lib/router, lib/kube/connection/cluster-config.ts) and
 * the CDK stack sets them (infra/).
 */

/** Every `EVERYNODE_*` environment variable, by what it holds. */
export const EnvironmentName = {
  /** The apiVersion of the DaemonSets everynode manages (`everynode.dev/v1` or `apps/v1`). */
  managedKind: 'EVERYNODE_MANAGED_KIND',
  /** The name of the EKS cluster (signs the in-process authentication tokens). */
  clusterName: 'EVERYNODE_CLUSTER_NAME',
  /** The EKS cluster's API server endpoint; unset locally, where a kubeconfig is used instead. */
  clusterEndpoint: 'EVERYNODE_CLUSTER_ENDPOINT',
  /** The EKS cluster's certificate authority data (base64). */
  clusterCa: 'EVERYNODE_CLUSTER_CA',
  /** The kubeconfig file to use when no cluster endpoint is set (before `KUBECONFIG`). */
  kubeconfig: 'EVERYNODE_KUBECONFIG',
  /** Kubernetes API requests per second each function process may make. */
  apiQps: 'EVERYNODE_API_QPS',
  /** The burst of Kubernetes API requests allowed after a quiet spell (the reconciler's budget). */
  apiBurst: 'EVERYNODE_API_BURST',
  /** The fewest nodes a kept node LIST must hold for the DaemonSet steps to plan on it again (default 2,000). */
  nodeListReuseMinNodes: 'EVERYNODE_NODE_LIST_REUSE_MIN_NODES',
  /** Seconds an in-place resize may stay Deferred before its pod is recreated (default 300). */
  resizeDeferredSeconds: 'EVERYNODE_RESIZE_DEFERRED_SECONDS',
  /** The URL of the work queue (router to reconcile). */
  workQueueUrl: 'EVERYNODE_WORK_QUEUE_URL',
  /** The URL of the work queue's dead-letter queue. */
  workDlqUrl: 'EVERYNODE_WORK_DLQ_URL',
  /** The URL of the ingress queue (triggers to router). */
  ingressQueueUrl: 'EVERYNODE_INGRESS_QUEUE_URL',
  /** An SQS endpoint override (a local emulator); unset on AWS. */
  sqsEndpoint: 'EVERYNODE_SQS_ENDPOINT',
  /** The EventBridge bus the relay sends its triggers to. */
  eventBusName: 'EVERYNODE_EVENT_BUS_NAME',
  /** The SSM parameter holding the relay's watch checkpoint. */
  relayCheckpointParameter: 'EVERYNODE_RELAY_CHECKPOINT_PARAMETER',
  /** The relay schedule's period in seconds: how long one run watches. */
  relayRunSeconds: 'EVERYNODE_RELAY_RUN_SECONDS',
} as const;

/** The name of one `EVERYNODE_*` environment variable. */
export type EnvironmentName = (typeof EnvironmentName)[keyof typeof EnvironmentName];
