/**
 * A router under test: the simulated cluster (nodes with and without providerIDs, two apps/v1
 * DaemonSets) through the real client, and real SQS queues on fauxqs to read its output from.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { connectionFromKubeConfig, loadKubeConfig } from '../../lib/kube/connection/kubeconfig-connection.ts';
import { createKubePort } from '../../lib/kube/operations/create-kube-port.ts';
import { parseWorkMessage } from '../../lib/messages/parse-work-message.ts';
import { WATCH_DETAIL_TYPE } from '../../lib/messages/trigger.ts';
import type { WorkMessage } from '../../lib/messages/work-message.ts';
import { eventEnvelopeOf } from '../../lib/queue/event-bus.ts';
import { type LocalQueues, startLocalQueues } from '../../lib/queue/local-queues.ts';
import { sendMessages } from '../../lib/queue/send-messages.ts';
import { sqsWorkSender } from '../../lib/queue/sqs-senders.ts';
import type { RouterCounters, RouterDeps } from '../../lib/router/router-deps.ts';
import { type SimCluster, startSimCluster } from '../../lib/sim/start-sim-cluster.ts';
import { aDaemonSet, aNode } from '../support/builders.ts';
import { drainWorkQueue } from '../support/reconcile-queues.ts';

/** Counters kept in memory. */
export class CountersInMemory implements RouterCounters {
  readonly values = new Map<string, number>();
  count(name: string, value = 1): void {
    this.values.set(name, (this.values.get(name) ?? 0) + value);
  }
  get(name: string): number {
    return this.values.get(name) ?? 0;
  }
}

/** A work message as received, with its FIFO ids. */
export interface ReceivedWork {
  message: WorkMessage;
  groupId: string | undefined;
  deduplicationId: string | undefined;
}

export interface RouterWorld {
  sim: SimCluster;
  queues: LocalQueues;
  deps: RouterDeps;
  counters: CountersInMemory;
  /** The uid of the kube-system/fluentd DaemonSet. */
  fluentdUid: string;
  /** Receives and deletes everything on the work queue. */
  drainWork(): Promise<ReceivedWork[]>;
  /** Messages the router has sent back to the ingress queue (delayed work) so far. */
  sentToIngress(): number;
  stop(): Promise<void>;
}

/** The nodes of the router tests: one with an AWS providerID, one named after its instance. */
export const routerNodes = [
  aNode('worker-1', { providerID: 'aws:///us-east-1a/i-0aaa1111bbbb2222c' }),
  aNode('i-0ddd3333eeee4444f.ec2.internal'),
  aNode('worker-2'),
];

export async function startRouterWorld(): Promise<RouterWorld> {
  const sim = await startSimCluster({ nodes: routerNodes });
  sim.store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kiada' } });
  for (const ds of [
    aDaemonSet('fluentd', { namespace: 'kube-system' }),
    aDaemonSet('demo', { namespace: 'kiada' }),
  ]) {
    const { uid: _u, resourceVersion: _r, creationTimestamp: _c, ...metadata } = ds.metadata ?? {};
    sim.store.create('apps/daemonsets', JSON.parse(JSON.stringify({ ...ds, metadata })));
  }
  const fluentdUid = String(sim.store.get('apps/daemonsets', 'kube-system', 'fluentd')?.metadata.uid);
  const queues = await startLocalQueues({ visibilityTimeoutSeconds: 1 });
  const kube = createKubePort({
    connection: connectionFromKubeConfig(loadKubeConfig({ yaml: sim.kubeconfig })),
    managedKind: 'apps/v1',
    userAgent: 'everynode/router',
  });
  const counters = new CountersInMemory();
  let sentToIngress = 0;
  const deps: RouterDeps = {
    kube,
    managedKind: 'apps/v1',
    work: sqsWorkSender(queues.sqs, queues.urls.work),
    ingress: (messages) => {
      sentToIngress += messages.length;
      return sendMessages(queues.sqs, queues.urls.ingress, messages);
    },
    logger: new Logger({ serviceName: 'everynode-router', logLevel: 'SILENT' }),
    counters,
    clock: () => new Date(),
  };
  return {
    sim,
    queues,
    deps,
    counters,
    fluentdUid,
    drainWork: () => drain(queues),
    sentToIngress: () => sentToIngress,
    stop: async () => {
      await queues.stop();
      await sim.stop();
    },
  };
}

/** Receives and deletes everything on the work queue of `queues`. */
export async function drain(queues: LocalQueues): Promise<ReceivedWork[]> {
  return (await drainWorkQueue(queues)).map((record) => {
    const parsed = parseWorkMessage(record.body);
    if (!parsed.ok) throw new Error(`the router sent an invalid work message: ${parsed.reason}`);
    return {
      message: parsed.message,
      groupId: record.attributes.MessageGroupId,
      deduplicationId: record.attributes.MessageDeduplicationId,
    };
  });
}

/** `kind:target` of a work message, for comparing sets of work. */
export function describeWork(message: Readonly<WorkMessage>): string {
  switch (message.kind) {
    case 'node':
      return `node:${message.node.name}`;
    case 'daemonset':
      return `daemonset:${message.daemonSet.namespace}/${message.daemonSet.name}${message.daemonSet.uid ? '' : ' (no uid)'}`;
    case 'pair':
      return `pair:${message.daemonSet.namespace}/${message.daemonSet.name}@${message.node.name}`;
  }
}

/** An EventBridge envelope as the ingress queue receives it, marked as a replay when `replayName` is set. */
export function envelope(
  source: string,
  detailType: string,
  detail: Record<string, unknown>,
  replayName?: string,
): string {
  const e = eventEnvelopeOf({ source, detailType, detail });
  return JSON.stringify(replayName ? { ...e, 'replay-name': replayName } : e);
}

let version = 1000;

/** A relayed watch event; each gets a fresh resourceVersion unless the detail names one. */
export function watch(detail: Record<string, unknown>, replayName?: string): string {
  version++;
  const base = { v: 1, uid: 'u-1', resourceVersion: String(version) };
  return envelope('everynode.relay', WATCH_DETAIL_TYPE, { ...base, ...detail }, replayName);
}

/** A relayed watch event of pod kube-system/fluentd-x, controlled by the fluentd DaemonSet `fluentdUid`. */
export function fluentdPod(fluentdUid: string, detail: Record<string, unknown>): string {
  const controller = { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'fluentd', uid: fluentdUid };
  return watch({
    kind: 'Pod',
    apiVersion: 'v1',
    name: 'fluentd-x',
    namespace: 'kube-system',
    controller,
    ...detail,
  });
}

/** An EC2 state-change notification: instance `instanceId` is running. */
export function ec2(instanceId: string): string {
  return envelope('aws.ec2', 'EC2 Instance State-change Notification', {
    'instance-id': instanceId,
    state: 'running',
  });
}
