/** The four queues of the pipeline (docs/design.md, 1. The pipeline), by URL. */
export interface QueueUrls {
  /** Standard queue the trigger bus feeds; the router consumes it. Also carries delayed requeues. */
  readonly ingress: string;
  /** Standard DLQ of the ingress queue. */
  readonly ingressDlq: string;
  /** FIFO work queue: one message group per pair, one per DaemonSet for DaemonSet-wide steps. */
  readonly work: string;
  /** FIFO DLQ of the work queue: messages that can never succeed, or that exhausted their receives. */
  readonly workDlq: string;
}
