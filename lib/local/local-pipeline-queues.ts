/**
 * Queue depths of the local pipeline, for the live view and for deciding that it is idle.
 */
import type { LocalQueues } from '../queue/local-queues.ts';
import { queueDepth as depth } from '../queue/queue-depth.ts';

/**
 * Messages on each queue: waiting or in flight (received, not yet deleted); for the ingress queue,
 * the delayed ones apart — requeues and status refreshes waiting for their time, which may be
 * minutes away and say nothing about whether the pipeline is busy now.
 */
export interface QueueDepths {
  readonly ingress: number;
  readonly ingressDelayed: number;
  readonly work: number;
  readonly workDlq: number;
  readonly ingressDlq: number;
}

/** The depth of every queue of `queues`. */
export async function queueDepths(queues: Pick<LocalQueues, 'sqs' | 'urls'>): Promise<QueueDepths> {
  const [ingress, work, workDlq, ingressDlq] = await Promise.all([
    depth(queues.sqs, queues.urls.ingress),
    depth(queues.sqs, queues.urls.work),
    depth(queues.sqs, queues.urls.workDlq),
    depth(queues.sqs, queues.urls.ingressDlq),
  ]);
  return {
    ingress: ingress.now,
    ingressDelayed: ingress.delayed,
    work: work.now + work.delayed,
    workDlq: workDlq.now + workDlq.delayed,
    ingressDlq: ingressDlq.now + ingressDlq.delayed,
  };
}
