/**
 * A local Lambda SQS event source mapping: long-polls a queue, hands each batch to the same
 * handler code that runs on AWS as an `SQSEvent`, deletes what the handler reports as done and
 * leaves `batchItemFailures` for redelivery after the visibility timeout, exactly as the AWS
 * event source mapping with `ReportBatchItemFailures` does. The redrive policy of the queue then
 * moves a message that keeps failing to its DLQ.
 */
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

/** The handler shape of a Lambda function consuming SQS with partial batch responses. */
export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;

export interface SqsEventSourceOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly queueArn?: string;
  readonly handler: SqsHandler;
  /** Messages per invocation (at most 10, the SQS receive limit). */
  readonly batchSize?: number;
  /** Invocations at once (the mapping's maxConcurrency). */
  readonly concurrency?: number;
  /** Receives open at once (default {@link DEFAULT_POLLERS}, at most `concurrency`). */
  readonly pollers?: number;
  readonly functionName?: string;
  /** Called when an invocation throws: the whole batch stays for redelivery, as on AWS. */
  readonly onError?: (error: unknown) => void;
}

/** A running event source; `stop()` finishes the batches in flight and stops polling. */
export interface SqsEventSource {
  stop(): Promise<void>;
}

/**
 * How many receives a source keeps open: Lambda's event source mapping also polls with a few
 * pollers and invokes the function concurrently. Not one poller per invocation slot: the embedded
 * queue wakes every waiting receive when a message arrives, so sixteen idle pollers would answer
 * each message with fifteen empty receives (and fifteen more requests) on the pipeline's thread.
 */
export const DEFAULT_POLLERS = 2;

/** Counts free invocation slots; `take` waits for one. */
class Slots {
  private waiting: (() => void)[] = [];
  constructor(private free: number) {}

  async take(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

/**
 * Starts polling `queueUrl` and invoking `handler` until stopped: `pollers` receives open at a time,
 * each taking a free invocation slot first (so no received batch waits for one, burning its
 * visibility timeout), and at most `concurrency` invocations at once.
 */
export function startSqsEventSource(options: Readonly<SqsEventSourceOptions>): SqsEventSource {
  const controller = new AbortController();
  const concurrency = Math.max(1, options.concurrency ?? 1);
  const slots = new Slots(concurrency);
  const invocations = new Set<Promise<void>>();
  const pollers = Array.from({ length: Math.min(concurrency, options.pollers ?? DEFAULT_POLLERS) }, () =>
    pollLoop(options, controller.signal, slots, invocations),
  );
  return {
    stop: async () => {
      controller.abort();
      await Promise.allSettled(pollers);
      await Promise.allSettled([...invocations]);
    },
  };
}

async function pollLoop(
  options: Readonly<SqsEventSourceOptions>,
  signal: AbortSignal,
  slots: Slots,
  invocations: Set<Promise<void>>,
): Promise<void> {
  while (!signal.aborted) {
    await slots.take();
    let invoked = false;
    try {
      if (signal.aborted) return;
      const received = await options.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: options.queueUrl,
          MaxNumberOfMessages: Math.min(options.batchSize ?? 10, 10),
          WaitTimeSeconds: 1,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
        { abortSignal: signal },
      );
      const messages = received.Messages ?? [];
      if (messages.length > 0) {
        const invocation = invokeOnce(options, messages)
          .catch((error: unknown) => options.onError?.(error))
          .finally(() => {
            invocations.delete(invocation);
            slots.give();
          });
        invocations.add(invocation);
        invoked = true;
      }
    } catch (error) {
      if (signal.aborted) return;
      options.onError?.(error);
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      if (!invoked) slots.give();
    }
  }
}

async function invokeOnce(
  options: Readonly<SqsEventSourceOptions>,
  messages: readonly Message[],
): Promise<void> {
  const records = messages.map((m) => toSqsRecord(m, options));
  let failed: Set<string>;
  try {
    const response = await options.handler(
      { Records: records },
      lambdaContext(options.functionName ?? 'local'),
    );
    failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
  } catch (error) {
    options.onError?.(error);
    return;
  }
  const done = messages.filter((m) => m.MessageId && !failed.has(m.MessageId));
  if (done.length === 0) return;
  await options.sqs.send(
    new DeleteMessageBatchCommand({
      QueueUrl: options.queueUrl,
      Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
    }),
  );
}

/** The Lambda `SQSRecord` AWS would deliver for a received message. */
export function toSqsRecord(
  message: Readonly<Message>,
  options: { queueArn?: string; queueUrl: string },
): SQSRecord {
  const a = message.Attributes ?? {};
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: a.ApproximateReceiveCount ?? '1',
      SentTimestamp: a.SentTimestamp ?? String(Date.now()),
      SenderId: a.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: a.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      ...(a.SequenceNumber ? { SequenceNumber: a.SequenceNumber } : {}),
      ...(a.MessageGroupId ? { MessageGroupId: a.MessageGroupId } : {}),
      ...(a.MessageDeduplicationId ? { MessageDeduplicationId: a.MessageDeduplicationId } : {}),
    },
    messageAttributes: {},
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: options.queueArn ?? options.queueUrl,
    awsRegion: 'us-east-1',
  };
}

function lambdaContext(functionName: string): Context {
  const deadline = Date.now() + 60_000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: crypto.randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
