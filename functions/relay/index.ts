/**
 * The relay Lambda function: started by the relay schedule, it watches the cluster for one period
 * plus an overlap and publishes the decision-relevant changes to the everynode EventBridge bus
 * (lib/relay/relay-run.ts has the schedule arithmetic). Clients are built once per container.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SSMClient } from '@aws-sdk/client-ssm';
import { createKubePort } from '../../lib/kube/create-kube-port.ts';
import { loadClusterConnection } from '../../lib/kube/load-cluster-connection.ts';
import { RequestBudget } from '../../lib/kube/request-budget.ts';
import { EventBridgeEventBus } from '../../lib/queue/event-bus-eventbridge.ts';
import { SsmCheckpointStore } from '../../lib/relay/relay-checkpoint-ssm.ts';
import { relayConfigFromEnvironment } from '../../lib/relay/relay-config.ts';
import { createRelayHandler } from '../../lib/relay/relay-handler.ts';
import { RELAY_CHECKPOINT_EVERY_MS } from '../../lib/relay/relay-run.ts';

const logger = new Logger({ serviceName: 'everynode-relay' });
const config = relayConfigFromEnvironment(process.env);
const kube = createKubePort({
  connection: await loadClusterConnection(config.cluster),
  managedKind: config.managedKind,
  budget: new RequestBudget({ requestsPerSecond: config.apiQps, burst: config.apiQps }),
  userAgent: 'everynode/relay',
});

/** The Lambda handler: one relay run per scheduled invocation. */
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
});
