/**
 * The reconcile Lambda function: consumes the FIFO work queue and makes each (DaemonSet, node)
 * pair, DaemonSet or node right (docs/design.md, 2. The unit of work: one (DaemonSet, node) pair).
 * Everything is built once per container, at module scope: the configuration, the Kubernetes client
 * with its keep-alive agent and request budget, the SQS client, the caches, the logger and the
 * metrics.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { loadClusterConnection } from '../../lib/kube/connection/load-cluster-connection.ts';
import { createReconcileHandler } from '../../lib/reconcile/handler/reconcile-handler.ts';
import { reconcileDepsFor } from '../../lib/reconcile/setup/deps-for-connection.ts';
import { reconcileConfigFromEnvironment } from '../../lib/reconcile/setup/reconcile-config.ts';

const logger = new Logger({ serviceName: 'everynode-reconcile' });
const metrics = new Metrics({ namespace: 'everynode', serviceName: 'everynode-reconcile' });
const config = reconcileConfigFromEnvironment(process.env);
const deps = reconcileDepsFor(await loadClusterConnection(config.cluster), { config, logger });

/** The Lambda handler: an SQS batch of work messages in, `batchItemFailures` out. */
export const handler = createReconcileHandler({ deps, logger, metrics });
