import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { DeduplicationScope, FifoThroughputLimit, Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface WorkQueuesProps {
  /** Timeout of the function consuming the ingress queue (the router). */
  readonly routerTimeout: Duration;
  /** Timeout of the function consuming the work queue (reconcile). */
  readonly reconcileTimeout: Duration;
  /** Receives before a message moves to its DLQ. */
  readonly maxReceiveCount: number;
}

/**
 * The pipeline's queues (docs/design.md, 1. The pipeline): the ingress queue the trigger bus feeds
 * (standard, also carrying delayed requeues, since FIFO queues cannot delay single messages) and
 * the FIFO work queue in high-throughput mode, one message group per pair or per DaemonSet; each
 * with a DLQ. Visibility is six times the consumer's timeout, as AWS advises for Lambda event
 * sources.
 */
export class WorkQueues extends Construct {
  public readonly ingress: Queue;
  public readonly ingressDlq: Queue;
  public readonly work: Queue;
  public readonly workDlq: Queue;

  constructor(scope: Construct, id: string, props: WorkQueuesProps) {
    super(scope, id);
    const dlqDefaults = {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      removalPolicy: RemovalPolicy.RETAIN,
    };
    this.ingressDlq = new Queue(this, 'IngressDlq', dlqDefaults);
    this.ingress = new Queue(this, 'Ingress', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(props.routerTimeout.toSeconds() * 6),
      deadLetterQueue: { queue: this.ingressDlq, maxReceiveCount: props.maxReceiveCount },
    });
    this.workDlq = new Queue(this, 'WorkDlq', { ...dlqDefaults, fifo: true });
    this.work = new Queue(this, 'Work', {
      fifo: true,
      deduplicationScope: DeduplicationScope.MESSAGE_GROUP,
      fifoThroughputLimit: FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(props.reconcileTimeout.toSeconds() * 6),
      deadLetterQueue: { queue: this.workDlq, maxReceiveCount: props.maxReceiveCount },
    });
  }
}
