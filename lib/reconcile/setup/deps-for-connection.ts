/**
 * The reconcile deps over a given connection to the cluster: built once per process (a Lambda
 * container, `everynode run`), so the keep-alive agent, the request budget, the SQS client, the
 * object cache and the expectations are shared by every invocation. The reconcile function builds
 * them here with the connection it loaded (load-cluster-connection.ts); other processes use
 * `buildReconcileDeps`, which makes the connection from the configuration.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import type { KubeConnection } from '../../kube/connection/kube-connection.ts';
import { createKubePort } from '../../kube/operations/create-kube-port.ts';
import { RequestBudget } from '../../kube/requests/request-budget.ts';
import type { StructuredLogger } from '../../log/structured-logger.ts';
import { localSqsClient } from '../../queue/local-sqs-client.ts';
import { sqsDeadLetterSender, sqsRequeueSender, sqsWorkSender } from '../../queue/sqs-senders.ts';
import type { ReconcileDeps } from '../deps/reconcile-deps.ts';
import { DaemonSetSteps } from '../memory/daemon-set-steps.ts';
import { EventRecorder } from '../memory/event-recorder.ts';
import { Expectations } from '../memory/expectations.ts';
import { FanOutFeeds } from '../memory/fan-out-feed.ts';
import { KeptNodeLists } from '../memory/kept-node-lists.ts';
import { KEPT_PODS_BUDGET, KEPT_PODS_MIN, KeptPodLists } from '../memory/kept-pod-lists.ts';
import { KeptRevisions } from '../memory/kept-revisions.ts';
import { ObjectCache } from '../memory/object-cache.ts';
import { SharedRead } from '../memory/shared-read.ts';
import type { ReconcileConfig } from './reconcile-config.ts';

/** The User-Agent of the reconcile function's API requests. */
export const RECONCILE_USER_AGENT = 'everynode/reconcile';

/** What the deps are built from. */
export interface ReconcileDepsOptions {
  readonly config: ReconcileConfig;
  readonly logger: StructuredLogger;
  /** The User-Agent of API requests (default {@link RECONCILE_USER_AGENT}). */
  readonly userAgent?: string;
  /** An SQS client to use instead of one built from the configuration. */
  readonly sqs?: SQSClient;
  readonly clock?: () => Date;
}

/** The deps of the reconcile steps for `options.config`, reaching the cluster over `connection`. */
export function reconcileDepsFor(
  connection: KubeConnection,
  options: Readonly<ReconcileDepsOptions>,
): ReconcileDeps {
  const { config, logger } = options;
  const clock = options.clock ?? (() => new Date());
  const kube = createKubePort({
    connection,
    managedKind: config.managedKind,
    budget: new RequestBudget({ requestsPerSecond: config.apiQps, burst: config.apiBurst }),
    userAgent: options.userAgent ?? RECONCILE_USER_AGENT,
  });
  const sqs = options.sqs ?? (config.sqsEndpoint ? localSqsClient(config.sqsEndpoint) : new SQSClient({}));
  return {
    ports: {
      kube,
      workQueue: sqsWorkSender(sqs, config.queues.work),
      requeue: sqsRequeueSender(sqs, config.queues.ingress, clock),
      deadLetter: sqsDeadLetterSender(sqs, config.queues.workDlq),
      logger,
    },
    memory: {
      objects: new ObjectCache(),
      expectations: new Expectations(),
      fanOutFeeds: new FanOutFeeds(),
      sharedNodeList: new SharedRead(),
      daemonSetSteps: new DaemonSetSteps(1),
      keptNodes: new KeptNodeLists(config.nodeListReuseMinNodes),
      // The node LIST setting lowers the pods' threshold too (tests plan on kept LISTs of any size).
      keptPods: new KeptPodLists(
        KEPT_PODS_BUDGET,
        Math.min(config.nodeListReuseMinNodes ?? KEPT_PODS_MIN, KEPT_PODS_MIN),
      ),
      keptRevisions: new KeptRevisions(),
      events: new EventRecorder({ kube, clock, logger }),
    },
    clock,
    ...(config.resizeDeferredSeconds === undefined
      ? {}
      : { settings: { resizeDeferredSeconds: config.resizeDeferredSeconds } }),
  };
}
