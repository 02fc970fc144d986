/**
 * What the router works with
 * (docs/design.md, 5. Ports: the same handler code on Lambda, locally and in tests): the same
 * router code runs in the Lambda function, whose module builds these once from its environment, and
 * in the local pipeline, which passes its own.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { KubePort } from '../kube/kube-port.ts';
import type { ManagedKind } from '../kube/managed-kind.ts';
import type { OutgoingMessage } from '../queue/send-messages.ts';
import type { WorkSender } from '../queue/work-senders.ts';

/** Sends messages to one queue, resolving when the queue accepted all of them. */
export type QueueSender = (messages: readonly OutgoingMessage[]) => Promise<void>;

/** Counters the router adds to (EMF metrics on AWS, the live view locally). */
export interface RouterCounters {
  /** Adds `value` (default 1) to the counter `name`. */
  count(name: string, value?: number): void;
}

/** The names of the router's counters. */
export const routerCounterNames = {
  triggers: 'TriggersRouted',
  unusable: 'TriggersUnusable',
  ignored: 'TriggersIgnored',
  workMessages: 'WorkMessagesSent',
  requeuesForwarded: 'RequeuesForwarded',
  requeuesDelayed: 'RequeuesDelayed',
  statusRefreshes: 'StatusRefreshesScheduled',
  /** Triggers sent back to the ingress queue after a transient routing failure (`router-retry.ts`). */
  retriesDelayed: 'TriggersRetriedLater',
} as const;

/** The router's ports. */
export interface RouterDeps {
  /** Reads for EC2 events (nodes by providerID), resyncs and orphan pods (DaemonSets). */
  readonly kube: Pick<KubePort, 'listNodes' | 'listDaemonSets'>;
  readonly managedKind: ManagedKind;
  /** The FIFO work queue. */
  readonly work: WorkSender;
  /** The ingress queue itself, for delayed work (requeues, coalesced status refreshes). */
  readonly ingress: QueueSender;
  /** A Powertools logger: the handler adds the Lambda context to it. */
  readonly logger: Logger;
  readonly counters: RouterCounters;
  readonly clock: () => Date;
  /** Waits `ms` (default: a timer); the router holds an envelope that came under a second early. */
  readonly sleep?: (ms: number) => Promise<unknown>;
  /**
   * The private DNS name of an EC2 instance (EC2 DescribeInstances), for clusters whose nodes are
   * named by it but lack `spec.providerID`. Optional: without it only providerID and instance-id
   * based node names are matched.
   */
  readonly privateDnsNameOf?: (instanceId: string) => Promise<string | undefined>;
}
