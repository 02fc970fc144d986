/**
 * A template's `AWS::Lambda::EventSourceMapping` on an SQS queue, run offline with Lambda's
 * documented semantics ("Using Lambda with Amazon SQS"):
 *
 * - pollers long-poll `ReceiveMessage` (all system and message attributes) with the function's
 *   role — the `sqs` client the caller built — and gather up to `BatchSize` messages; with
 *   `MaximumBatchingWindowInSeconds` they keep polling until the batch is full or the window, opened
 *   by the first message, closes;
 * - each batch is one synchronous invocation with the records Lambda builds (sqs-lambda-records.ts);
 * - on success the batch is deleted — with `ReportBatchItemFailures` all but the `batchItemFailures`
 *   (an invalid response fails the whole batch), without it all of it, whatever the function
 *   answered; on a function error nothing is deleted: the queue's visibility timeout makes the
 *   messages visible again and its redrive policy moves them to the DLQ;
 * - at most `ScalingConfig.MaximumConcurrency` batches (and the function's own limit) are in flight,
 *   one per poller; each poller deletes a batch before receiving the next, so a FIFO group never has
 *   two batches in flight (SQS hands out a group's messages only once the earlier ones are gone).
 *
 * Pollers wait 1 s per `ReceiveMessage` (`waitTimeSeconds`), not Lambda's 20 s, so `stop()` ends
 * them within about a second: the receive in flight is let finish (an aborted long poll could still
 * take messages out of sight), what a gathering poller holds is made visible again at once, a batch
 * being processed is finished. The 6 MB payload limit and `FilterCriteria` are not modelled
 * (a mapping with filter criteria throws).
 */
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { DeployedStack } from './deployed-stack.ts';
import type { InvocationOutcome } from './lambda-host.ts';
import { lambdaSqsRecord, readBatchResponse } from './sqs-lambda-records.ts';

/** What the mapping invokes: a local Lambda function (lambda-host.ts). */
export interface SynchronousFunction {
  readonly name: string;
  readonly arn: string;
  /** Invocations the function runs at once. */
  readonly concurrency: number;
  invoke(event: unknown): Promise<InvocationOutcome>;
}

export interface SqsEventSourceMappingOptions {
  readonly stack: DeployedStack;
  readonly logicalId: string;
  /** An SQS client with the function role's credentials, through the local endpoint. */
  readonly sqs: SQSClient;
  readonly fn: SynchronousFunction;
  /** `WaitTimeSeconds` of each receive (default 1). */
  readonly waitTimeSeconds?: number;
  readonly log?: (message: string, fields: Readonly<Record<string, unknown>>) => void;
}

/** Counters for tests. */
export interface SqsEventSourceMappingCounters {
  /** Invocations made. */
  batches: number;
  /** Records handed to the function. */
  records: number;
  /** Messages deleted after a successful invocation. */
  deleted: number;
  /** Records left on the queue: function errors, reported failures, invalid responses. */
  failed: number;
  /** Invocations that ended in a function error. */
  functionErrors: number;
  /** ReceiveMessage or DeleteMessageBatch calls that failed. */
  sqsErrors: number;
}

/** A running mapping. */
export interface SqsEventSourceMapping {
  readonly logicalId: string;
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly batchSize: number;
  readonly batchingWindowSeconds: number;
  readonly reportBatchItemFailures: boolean;
  /** Pollers, that is batches in flight at most (0 when the mapping is disabled). */
  readonly concurrency: number;
  readonly counters: SqsEventSourceMappingCounters;
  /** Stops polling; resolves once the batches in flight are done. */
  stop(): Promise<void>;
}

interface CfnMapping {
  readonly EventSourceArn?: string;
  readonly FunctionName?: string;
  readonly BatchSize?: number;
  readonly MaximumBatchingWindowInSeconds?: number;
  readonly FunctionResponseTypes?: readonly string[];
  readonly ScalingConfig?: { readonly MaximumConcurrency?: number };
  readonly Enabled?: boolean;
}

const HONOURED = new Set([
  'EventSourceArn',
  'FunctionName',
  'BatchSize',
  'MaximumBatchingWindowInSeconds',
  'FunctionResponseTypes',
  'ScalingConfig',
  'Enabled',
  'Tags',
  'MetricsConfig',
]);

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/** Reads the mapping `logicalId` of `stack` and starts its pollers (none if it is disabled). */
export function startSqsEventSourceMapping(
  options: Readonly<SqsEventSourceMappingOptions>,
): SqsEventSourceMapping {
  const { stack, logicalId, fn } = options;
  const raw = stack.resource(logicalId);
  if (raw.Type !== 'AWS::Lambda::EventSourceMapping') throw new Error(`${logicalId} is a ${raw.Type}`);
  const unknown = Object.keys(raw.Properties ?? {}).filter((key) => !HONOURED.has(key));
  if (unknown.length > 0) throw new Error(`${logicalId}: the harness does not honour ${unknown.join(', ')}`);
  const props = stack.properties<CfnMapping>(logicalId);
  if (props.FunctionName !== fn.name && props.FunctionName !== fn.arn) {
    throw new Error(`${logicalId} invokes ${props.FunctionName}, not ${fn.name}`);
  }
  const queueArn = props.EventSourceArn ?? '';
  const queueId = stack.logicalIdOf(queueArn);
  if (!queueArn.startsWith('arn:aws:sqs:') || !queueId) {
    throw new Error(`${logicalId}: the harness maps SQS queues of the template only, not ${queueArn}`);
  }
  const enabled = props.Enabled ?? true;
  const concurrency = enabled
    ? Math.min(props.ScalingConfig?.MaximumConcurrency ?? fn.concurrency, fn.concurrency)
    : 0;
  const mapping = {
    logicalId,
    queueUrl: stack.ref(queueId),
    queueArn,
    batchSize: props.BatchSize ?? 10,
    batchingWindowSeconds: props.MaximumBatchingWindowInSeconds ?? 0,
    reportBatchItemFailures: (props.FunctionResponseTypes ?? []).includes('ReportBatchItemFailures'),
    concurrency,
    counters: { batches: 0, records: 0, deleted: 0, failed: 0, functionErrors: 0, sqsErrors: 0 },
  };
  const controller = new AbortController();
  const poller = new Poller(options, mapping, controller.signal);
  const pollers = Array.from({ length: concurrency }, () => poller.run());
  return {
    ...mapping,
    stop: async () => {
      controller.abort();
      await Promise.allSettled(pollers);
    },
  };
}

type MappingState = Omit<SqsEventSourceMapping, 'stop'>;

/** The loop every poller of one mapping runs. */
class Poller {
  constructor(
    private readonly options: Readonly<SqsEventSourceMappingOptions>,
    private readonly mapping: MappingState,
    private readonly signal: AbortSignal,
  ) {}

  async run(): Promise<void> {
    while (!this.signal.aborted) {
      let batch: Message[];
      try {
        batch = await this.gather();
      } catch (error) {
        if (this.signal.aborted) return;
        this.failure('ReceiveMessage failed', error, true);
        await sleep(1_000, this.signal);
        continue;
      }
      if (batch.length > 0 && !this.signal.aborted) await this.process(batch);
    }
  }

  /** Up to BatchSize messages, gathered while the batching window is open. */
  private async gather(): Promise<Message[]> {
    const { batchSize, batchingWindowSeconds, queueUrl } = this.mapping;
    const wait = this.options.waitTimeSeconds ?? 1;
    const batch: Message[] = [];
    let closes: number | undefined;
    while (batch.length < batchSize && !this.signal.aborted) {
      const left = closes === undefined ? wait : Math.ceil((closes - Date.now()) / 1000);
      const received = await this.options.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: Math.min(10, batchSize - batch.length),
          WaitTimeSeconds: Math.max(0, Math.min(wait, left)),
          AttributeNames: ['All'],
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
      );
      batch.push(...(received.Messages ?? []));
      if (batch.length === 0 || batchingWindowSeconds === 0) break;
      closes ??= Date.now() + batchingWindowSeconds * 1000;
      if (Date.now() >= closes) break;
    }
    if (!this.signal.aborted) return batch;
    await this.release(batch);
    return [];
  }

  /** Makes messages received while stopping visible again at once. */
  private async release(messages: readonly Message[]): Promise<void> {
    for (let i = 0; i < messages.length; i += 10) {
      const chunk = messages.slice(i, i + 10);
      try {
        await this.options.sqs.send(
          new ChangeMessageVisibilityBatchCommand({
            QueueUrl: this.mapping.queueUrl,
            Entries: chunk.map((m, n) => ({
              Id: String(n),
              ReceiptHandle: m.ReceiptHandle ?? '',
              VisibilityTimeout: 0,
            })),
          }),
        );
      } catch (error) {
        this.failure('ChangeMessageVisibilityBatch failed', error, true);
      }
    }
  }

  private async process(batch: readonly Message[]): Promise<void> {
    const { stack, fn } = this.options;
    const { counters } = this.mapping;
    counters.batches++;
    counters.records += batch.length;
    const records = batch.map((m) => lambdaSqsRecord(m, this.mapping.queueArn, stack.region));
    let outcome: InvocationOutcome;
    try {
      outcome = await fn.invoke({ Records: records });
    } catch (error) {
      counters.failed += batch.length;
      return this.failure('invocation failed', error);
    }
    if (!outcome.ok) {
      counters.functionErrors++;
      counters.failed += batch.length;
      return this.failure('function error: the batch stays on the queue', outcome.error);
    }
    let done = batch;
    if (this.mapping.reportBatchItemFailures) {
      const reading = readBatchResponse(outcome.result, new Set(batch.map((m) => m.MessageId ?? '')));
      if (!reading.ok) {
        counters.failed += batch.length;
        return this.failure('the whole batch failed', reading.reason);
      }
      done = batch.filter((m) => !reading.failed.has(m.MessageId ?? ''));
    }
    counters.failed += batch.length - done.length;
    await this.delete(done);
  }

  private async delete(messages: readonly Message[]): Promise<void> {
    for (let i = 0; i < messages.length; i += 10) {
      const chunk = messages.slice(i, i + 10);
      try {
        const answer = await this.options.sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: this.mapping.queueUrl,
            Entries: chunk.map((m, n) => ({ Id: String(n), ReceiptHandle: m.ReceiptHandle ?? '' })),
          }),
        );
        this.mapping.counters.deleted += answer.Successful?.length ?? 0;
        if ((answer.Failed?.length ?? 0) > 0)
          this.failure('some deletes failed', JSON.stringify(answer.Failed), true);
      } catch (error) {
        this.failure('DeleteMessageBatch failed', error, true);
      }
    }
  }

  private failure(message: string, detail: unknown, sqsError = false): void {
    if (sqsError) this.mapping.counters.sqsErrors++;
    const log = this.options.log ?? ((m, f) => console.warn(m, f));
    log(`${this.mapping.logicalId}: ${message}`, { detail: String(detail) });
  }
}
