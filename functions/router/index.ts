/**
 * The router Lambda function: consumes the ingress queue (SQS standard) that the everynode bus
 * feeds, and turns each trigger into work messages on the FIFO work queue (lib/router/router.ts
 * has the rules). Clients, logger and metrics are built once per container.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { SQSClient } from '@aws-sdk/client-sqs';
import { loadClusterConnection } from '../../lib/kube/connection/load-cluster-connection.ts';
import { createKubePort } from '../../lib/kube/operations/create-kube-port.ts';
import { RequestBudget } from '../../lib/kube/requests/request-budget.ts';
import { localSqsClient } from '../../lib/queue/local-sqs-client.ts';
import { sendMessages } from '../../lib/queue/send-messages.ts';
import { sqsWorkSender } from '../../lib/queue/sqs-senders.ts';
import { ec2PrivateDnsNames } from '../../lib/router/ec2-private-dns.ts';
import { routerConfigFromEnvironment } from '../../lib/router/router-config.ts';
import { createRouterHandler, metricsCounters } from '../../lib/router/router-handler.ts';

const logger = new Logger({ serviceName: 'everynode-router' });
const metrics = new Metrics({ namespace: 'everynode', serviceName: 'everynode-router' });
const config = routerConfigFromEnvironment(process.env);
const sqs = config.sqsEndpoint ? localSqsClient(config.sqsEndpoint) : new SQSClient({});
const kube = createKubePort({
  connection: await loadClusterConnection(config.cluster),
  managedKind: config.managedKind,
  budget: new RequestBudget({ requestsPerSecond: config.apiQps, burst: config.apiQps }),
  userAgent: 'everynode/router',
});

/** The Lambda handler: an SQS batch of triggers in, `batchItemFailures` out. */
export const handler = createRouterHandler(
  {
    kube,
    managedKind: config.managedKind,
    work: sqsWorkSender(sqs, config.queues.work),
    ingress: (messages) => sendMessages(sqs, config.queues.ingress, messages),
    logger,
    counters: metricsCounters(metrics),
    clock: () => new Date(),
    // EC2 events for nodes without spec.providerID are matched by the instance's private DNS name;
    // the EC2 client is loaded on the first such event, not at init.
    privateDnsNameOf: ec2PrivateDnsNames(),
  },
  metrics,
);
