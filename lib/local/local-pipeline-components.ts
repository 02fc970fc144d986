/**
 * The parts of the local pipeline that the functions build from their environment on AWS: the
 * Kubernetes clients (one per component, each with its own user agent and request budget, as each
 * function process has), the loggers, the metrics, and the router and reconcile handlers.
 */

import { connectionFromKubeConfig, loadKubeConfig } from '../kube/connection/kubeconfig-connection.ts';
import type { KubePort } from '../kube/kube-port.ts';
import { createKubePort } from '../kube/operations/create-kube-port.ts';
import type { EverynodeFunction } from '../kube/rbac/function-groups.ts';
import { RequestBudget } from '../kube/requests/request-budget.ts';
import type { LocalQueues } from '../queue/local-queues.ts';
import { sendMessages } from '../queue/send-messages.ts';
import type { SqsHandler } from '../queue/sqs-event-source.ts';
import { sqsWorkSender } from '../queue/sqs-senders.ts';
import { createReconcileHandler } from '../reconcile/handler/reconcile-handler.ts';
import { buildReconcileDeps } from '../reconcile/setup/deps-for-config.ts';
import type { ReconcileConfig } from '../reconcile/setup/reconcile-config.ts';
import { createRouterHandler } from '../router/router-handler.ts';
import { LocalLogger } from './local-pipeline-logger.ts';
import { type LocalCounters, LocalMetrics } from './local-pipeline-metrics.ts';
import type { LocalPipelineOptions } from './local-pipeline-options.ts';

/** The built parts. */
export interface LocalComponents {
  readonly relayKube: KubePort;
  readonly viewKube: KubePort;
  readonly routerHandler: SqsHandler;
  readonly reconcileHandler: SqsHandler;
  /** The logger of component `name` (relay, router, reconcile…). */
  log(name: string): LocalLogger;
}

/** One Powertools logger per component, each handing its lines to `options.log`. */
function loggersFor(options: Readonly<LocalPipelineOptions>): (name: string) => LocalLogger {
  const loggers = new Map<string, LocalLogger>();
  return (name) => {
    let logger = loggers.get(name);
    if (!logger) {
      const sink = options.log ?? (() => undefined);
      logger = new LocalLogger({
        serviceName: `everynode-${name}`,
        sink,
        logLevel: options.logLevel ?? 'INFO',
      });
      loggers.set(name, logger);
    }
    return logger;
  };
}

/** The kubeconfig `component` calls the API with: its own identity when given, else the shared one. */
function kubeconfigOf(options: Readonly<LocalPipelineOptions>, component: EverynodeFunction | 'cli'): string {
  return (component === 'cli' ? undefined : options.identities?.[component]) ?? options.kubeconfigPath;
}

/** The reconcile handler, over the deps its function would build from this configuration. */
function reconcileHandlerFor(
  options: Readonly<LocalPipelineOptions>,
  queues: LocalQueues,
  counters: LocalCounters,
  logger: LocalLogger,
): SqsHandler {
  const qps = options.apiQps ?? 100;
  const config: ReconcileConfig = {
    managedKind: options.managedKind,
    cluster: { type: 'kubeconfig', path: kubeconfigOf(options, 'reconcile') },
    apiQps: qps,
    apiBurst: qps,
    queues: { work: queues.urls.work, workDlq: queues.urls.workDlq, ingress: queues.urls.ingress },
    sqsEndpoint: queues.endpoint,
    ...(options.nodeListReuseMinNodes !== undefined
      ? { nodeListReuseMinNodes: options.nodeListReuseMinNodes }
      : {}),
    ...(options.resizeDeferredSeconds !== undefined
      ? { resizeDeferredSeconds: options.resizeDeferredSeconds }
      : {}),
  };
  return createReconcileHandler({
    deps: buildReconcileDeps({ config, logger, sqs: queues.sqs }),
    logger,
    metrics: new LocalMetrics(counters, 'everynode-reconcile'),
  });
}

/** Builds the parts for `options` over `queues`. */
export function localComponents(
  options: Readonly<LocalPipelineOptions>,
  queues: LocalQueues,
  counters: LocalCounters,
): LocalComponents {
  const log = loggersFor(options);
  const qps = options.apiQps ?? 100;
  const kubeFor = (component: EverynodeFunction | 'cli') =>
    createKubePort({
      connection: connectionFromKubeConfig(loadKubeConfig({ path: kubeconfigOf(options, component) })),
      managedKind: options.managedKind,
      budget: new RequestBudget({ requestsPerSecond: qps, burst: qps }),
      userAgent: `everynode/${component}`,
    });
  const routerHandler = createRouterHandler({
    kube: kubeFor('router'),
    managedKind: options.managedKind,
    work: sqsWorkSender(queues.sqs, queues.urls.work),
    ingress: (messages) => sendMessages(queues.sqs, queues.urls.ingress, messages),
    logger: log('router'),
    counters,
    clock: () => new Date(),
  });
  const reconcileHandler = reconcileHandlerFor(options, queues, counters, log('reconcile'));
  return { relayKube: kubeFor('relay'), viewKube: kubeFor('cli'), routerHandler, reconcileHandler, log };
}
