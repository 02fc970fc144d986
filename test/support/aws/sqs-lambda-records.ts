/**
 * The two data shapes between an SQS event source mapping and its function, as Lambda's "Using
 * Lambda with Amazon SQS" documents them: the event record built from a received message, and the
 * reading of the function's partial batch response (`ReportBatchItemFailures`).
 */
import type { Message, MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { SQSMessageAttribute, SQSRecord, SQSRecordAttributes } from 'aws-lambda';

/** The system attributes Lambda passes on in a record's `attributes`. */
const RECORD_ATTRIBUTES = [
  'ApproximateReceiveCount',
  'SentTimestamp',
  'SenderId',
  'ApproximateFirstReceiveTimestamp',
  'SequenceNumber',
  'MessageGroupId',
  'MessageDeduplicationId',
  'AWSTraceHeader',
  'DeadLetterQueueSourceArn',
] as const;

function base64(value: Uint8Array | string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : Buffer.from(value).toString('base64');
}

/** A message attribute in Lambda's shape (`stringValue`/`binaryValue`, empty list values, `dataType`). */
function recordAttribute(value: Readonly<MessageAttributeValue>): SQSMessageAttribute {
  const binary = base64(value.BinaryValue);
  return {
    ...(value.StringValue === undefined ? {} : { stringValue: value.StringValue }),
    ...(binary === undefined ? {} : { binaryValue: binary }),
    stringListValues: [...(value.StringListValues ?? [])],
    binaryListValues: (value.BinaryListValues ?? []).map((v) => base64(v) ?? ''),
    dataType: value.DataType ?? 'String',
  };
}

/** The record Lambda puts in the `SQSEvent` for `message` received from the queue `queueArn`. */
export function lambdaSqsRecord(message: Readonly<Message>, queueArn: string, region: string): SQSRecord {
  const received = message.Attributes ?? {};
  const attributes = Object.fromEntries(
    RECORD_ATTRIBUTES.filter((name) => received[name] !== undefined).map((name) => [name, received[name]]),
  ) as unknown as SQSRecordAttributes;
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes,
    messageAttributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [name, recordAttribute(value)]),
    ),
    md5OfBody: message.MD5OfBody ?? '',
    ...(message.MD5OfMessageAttributes ? { md5OfMessageAttributes: message.MD5OfMessageAttributes } : {}),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
}

/** The messages a successful invocation reported as failed, or why the whole batch failed. */
export type BatchResponseReading =
  | { readonly ok: true; readonly failed: ReadonlySet<string> }
  | { readonly ok: false; readonly reason: string };

/**
 * Reads a function's result as a partial batch response. A complete success: no result, no
 * `batchItemFailures`, or an empty list. A complete failure: a result that is not an object, a
 * `batchItemFailures` that is not a list, an entry without a non-empty `itemIdentifier`, or one naming
 * a message not in the batch.
 */
export function readBatchResponse(result: unknown, messageIds: ReadonlySet<string>): BatchResponseReading {
  if (result === null || result === undefined) return { ok: true, failed: new Set() };
  if (typeof result !== 'object' || Array.isArray(result)) {
    return { ok: false, reason: `invalid partial batch response ${JSON.stringify(result)}` };
  }
  const failures = (result as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === null || failures === undefined) return { ok: true, failed: new Set() };
  if (!Array.isArray(failures)) return { ok: false, reason: 'batchItemFailures is not a list' };
  const failed = new Set<string>();
  for (const failure of failures) {
    const id = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || id === '') {
      return { ok: false, reason: `invalid batchItemFailures entry ${JSON.stringify(failure)}` };
    }
    if (!messageIds.has(id))
      return { ok: false, reason: `itemIdentifier ${id} is not a message of the batch` };
    failed.add(id);
  }
  return { ok: true, failed };
}
