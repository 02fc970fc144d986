/** The requeues the reconciler sends after failures, as a test or benchmark sees them on the ingress queue. */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { WorkMessage } from '../../lib/messages/work-message.ts';

/** One requeue envelope sent to the ingress queue after a failure, as the test saw it. */
export interface FailureRequeue {
  /** What the message is for: kind, DaemonSet, node. */
  readonly target: string;
  readonly reason: string;
  readonly failures: number;
  /** notBefore − requestedAt, in seconds: the delay the reconciler asked for. */
  readonly delaySeconds: number;
}

export function targetOf(message: Readonly<WorkMessage>): string {
  if (message.kind === 'node') return `node/${message.node.name}`;
  const ds = `${message.daemonSet.namespace}/${message.daemonSet.name}`;
  return message.kind === 'pair' ? `pair/${ds}/${message.node.name}` : `daemonset/${ds}`;
}

/**
 * Records every requeue envelope sent after a failure to the ingress queue through `sqs` (the
 * client the local pipeline's reconcile and router share), once per requeue: the router sends an
 * early envelope round again unchanged.
 */
export function captureFailureRequeues(sqs: SQSClient, ingressUrl: string): FailureRequeue[] {
  const seen = new Set<string>();
  const captured: FailureRequeue[] = [];
  const look = (body: string | undefined) => {
    if (!body?.includes('"requeue"')) return;
    const envelope = JSON.parse(body) as { kind?: string; notBefore?: string; message?: WorkMessage };
    const message = envelope.message;
    if (envelope.kind !== 'requeue' || !message || message.cause.type !== 'requeue') return;
    const { failures, requestedAt, reason } = message.cause;
    if (failures === undefined) return;
    const key = `${targetOf(message)}@${requestedAt}`;
    if (seen.has(key)) return;
    seen.add(key);
    const delaySeconds = (Date.parse(envelope.notBefore ?? '') - Date.parse(requestedAt)) / 1000;
    captured.push({ target: targetOf(message), reason, failures, delaySeconds });
  };
  sqs.middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as {
        QueueUrl?: string;
        MessageBody?: string;
        Entries?: Array<{ MessageBody?: string }>;
      };
      if (input.QueueUrl === ingressUrl) {
        look(input.MessageBody);
        for (const entry of input.Entries ?? []) look(entry.MessageBody);
      }
      return next(args);
    },
    { step: 'initialize', name: 'captureFailureRequeues' },
  );
  return captured;
}
