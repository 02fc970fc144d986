/**
 * The relay Lambda function: one run of the chain of relay runs per invocation (a predecessor's or
 * the watchdog schedule's), watching the cluster and publishing the decision-relevant changes to
 * the everynode EventBridge bus (lib/relay/run/run.ts). Clients are built once per container.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SSMClient } from '@aws-sdk/client-ssm';
import { loadClusterConnection } from '../../lib/kube/connection/load-cluster-connection.ts';
import { createKubePort } from '../../lib/kube/operations/create-kube-port.ts';
import { RequestBudget } from '../../lib/kube/requests/request-budget.ts';
import { EventBridgeEventBus } from '../../lib/queue/event-bus-eventbridge.ts';
import { SsmCheckpointStore } from '../../lib/relay/run/checkpoint-ssm.ts';
import { createRelayHandler } from '../../lib/relay/run/handler.ts';
import { RELAY_HEARTBEAT_METRIC } from '../../lib/relay/run/heartbeat-metric.ts';
import { RELAY_CHECKPOINT_EVERY_MS } from '../../lib/relay/run/run.ts';
import { invokeSuccessorWithLambda } from '../../lib/relay/run/successor-lambda.ts';
import { relayConfigFromEnvironment } from '../../lib/relay/setup/relay-config.ts';

const logger = new Logger({ serviceName: RELAY_HEARTBEAT_METRIC.service });
const metrics = new Metrics({
  namespace: RELAY_HEARTBEAT_METRIC.namespace,
  serviceName: RELAY_HEARTBEAT_METRIC.service,
});
const config = relayConfigFromEnvironment(process.env);
const kube = createKubePort({
  connection: await loadClusterConnection(config.cluster),
  managedKind: config.managedKind,
  budget: new RequestBudget({ requestsPerSecond: config.apiQps, burst: config.apiQps }),
  userAgent: 'everynode/relay',
});

/** The Lambda handler: one relay run per invocation. */
export const handler = createRelayHandler({
  relay: {
    kube,
    managedKind: config.managedKind,
    bus: new EventBridgeEventBus({ client: new EventBridgeClient({}), eventBusName: config.eventBusName }),
    checkpoints: new SsmCheckpointStore(new SSMClient({}), config.checkpointParameter),
    checkpointEveryMs: RELAY_CHECKPOINT_EVERY_MS,
    lingerMs: 20,
  },
  logger,
  runSeconds: config.runSeconds,
  invokeFunction: invokeSuccessorWithLambda,
  // Published at once: a run lasts minutes, and the alarm looks at every minute.
  onHeartbeat: () => {
    metrics.addMetric(RELAY_HEARTBEAT_METRIC.name, MetricUnit.Count, 1);
    metrics.publishStoredMetrics();
  },
});
