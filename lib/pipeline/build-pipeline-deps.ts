/**
 * The reconcile deps from the function configuration: built once per process (a Lambda container,
 * `everynode run`), so the keep-alive agent, the request budget, the SQS client and the caches
 * are shared by every invocation.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import { createKubePort } from '../kube/create-kube-port.ts';
import { connectionFromEks, defaultAwsCredentials } from '../kube/eks-connection.ts';
import { EksTokenSource } from '../kube/eks-token.ts';
import type { KubeConnection } from '../kube/kube-connection.ts';
import { connectionFromKubeConfig, loadKubeConfig } from '../kube/kubeconfig-connection.ts';
import { RequestBudget } from '../kube/request-budget.ts';
import { localSqsClient } from '../queue/local-sqs-client.ts';
import type { ClusterConfig } from './cluster-config.ts';
import { DaemonSetCache } from './daemon-set-cache.ts';
import { EventRecorder } from './event-recorder.ts';
import type { FunctionConfig } from './function-config.ts';
import type { PipelineDeps, PipelineLogger } from './pipeline-deps.ts';
import { sqsDeadLetterSender, sqsRequeueSender, sqsWorkSender } from './sqs-senders.ts';

/** The User-Agent of the reconcile function's API requests. */
export const RECONCILE_USER_AGENT = 'everynode/reconcile';

/** What the deps are built from. */
export interface PipelineDepsOptions {
  readonly config: FunctionConfig;
  readonly logger: PipelineLogger;
  /** The User-Agent of API requests (default {@link RECONCILE_USER_AGENT}). */
  readonly userAgent?: string;
  /** An SQS client to use instead of one built from the configuration. */
  readonly sqs?: SQSClient;
  readonly clock?: () => Date;
}

/** The connection the configuration names: EKS with in-process tokens, or a kubeconfig. */
export function connectionOf(cluster: Readonly<ClusterConfig>): KubeConnection {
  if (cluster.type === 'kubeconfig')
    return connectionFromKubeConfig(loadKubeConfig(cluster.path ? { path: cluster.path } : {}));
  const tokens = new EksTokenSource({
    clusterName: cluster.name,
    region: cluster.region,
    credentials: defaultAwsCredentials(),
  });
  return connectionFromEks({ endpoint: cluster.endpoint, ca: cluster.ca, tokens });
}

/** The deps of the reconcile steps for `options.config`. */
export function buildPipelineDeps(options: Readonly<PipelineDepsOptions>): PipelineDeps {
  const { config, logger } = options;
  const clock = options.clock ?? (() => new Date());
  const kube = createKubePort({
    connection: connectionOf(config.cluster),
    managedKind: config.managedKind,
    budget: new RequestBudget({ requestsPerSecond: config.apiQps, burst: config.apiBurst }),
    userAgent: options.userAgent ?? RECONCILE_USER_AGENT,
  });
  const sqs = options.sqs ?? (config.sqsEndpoint ? localSqsClient(config.sqsEndpoint) : new SQSClient({}));
  return {
    kube,
    workQueue: sqsWorkSender(sqs, config.queues.work),
    requeue: sqsRequeueSender(sqs, config.queues.ingress, clock),
    deadLetter: sqsDeadLetterSender(sqs, config.queues.workDlq),
    events: new EventRecorder({ kube, clock, logger }),
    clock,
    logger,
    cache: new DaemonSetCache(),
  };
}
