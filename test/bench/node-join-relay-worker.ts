/**
 * The node-join benchmark's relay, in a worker thread of its own as it is a function of its own on
 * AWS: watches the simulated cluster, turns each node event into its `node` message with the
 * router's rule, and posts the message on `port` to the reconciler's thread.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { Logger } from '@aws-lambda-powertools/logger';
import { connectionFromKubeConfig, loadKubeConfig } from '../../lib/kube/connection/kubeconfig-connection.ts';
import { createKubePort } from '../../lib/kube/operations/create-kube-port.ts';
import { RequestBudget } from '../../lib/kube/requests/request-budget.ts';
import { causeOfTrigger, parseTrigger } from '../../lib/messages/parse-trigger.ts';
import { type BusEvent, eventEnvelopeOf } from '../../lib/queue/event-bus.ts';
import { startRelay } from '../../lib/relay/run/relay.ts';
import { routeWatch } from '../../lib/router/router-watch.ts';

/** What the worker is started with. */
export interface NodeJoinRelayTask {
  readonly kubeconfigPath: string;
  /** Where the node messages go. */
  readonly port: MessagePort;
}

const task = workerData as NodeJoinRelayTask;
const kube = createKubePort({
  connection: connectionFromKubeConfig(loadKubeConfig({ path: task.kubeconfigPath })),
  managedKind: 'apps/v1',
  userAgent: 'everynode/relay',
  budget: new RequestBudget({ requestsPerSecond: 1000, burst: 1000 }),
});
const routerDeps = { managedKind: 'apps/v1' as const, kube, clock: () => new Date() };

/** Routes one trigger as the router would; posts the node messages it makes. */
async function route(event: Readonly<BusEvent>): Promise<void> {
  const parsed = parseTrigger(JSON.stringify(eventEnvelopeOf(event)));
  if (!parsed.ok || parsed.trigger.type !== 'watch' || parsed.trigger.watch.kind !== 'Node') return;
  const { watch } = parsed.trigger;
  const routed = await routeWatch(routerDeps, watch, watch.changes, causeOfTrigger(parsed.trigger));
  for (const work of 'work' in routed ? routed.work : []) {
    if (work.to === 'work' && work.message.kind === 'node') task.port.postMessage(work.message);
  }
}

const relay = await startRelay({
  kube,
  managedKind: 'apps/v1',
  bus: { publish: async (events) => Promise.all(events.map(route)).then(() => undefined) },
  checkpoints: { load: async () => undefined, save: async () => undefined },
  logger: new Logger({ logLevel: 'SILENT' }),
});
parentPort?.on('message', (message: { type: string }) => {
  if (message.type === 'stop') void relay.stop().then(() => parentPort?.postMessage({ type: 'stopped' }));
});
parentPort?.postMessage({ type: 'ready' });
