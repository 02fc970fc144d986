/**
 * SQS event source mappings of a small template over real fauxqs queues (created by
 * deployed-queues.ts), invoking a real local Lambda function whose handler acts as each message's
 * body says: succeed, report a batch item failure, throw, or answer an invalid item identifier.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { startFauxqs } from 'fauxqs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { localSqsClient } from '../../lib/queue/local-sqs-client.ts';
import { deployQueues } from '../support/aws/deployed-queues.ts';
import { type CfnResource, type CfnTemplate, DeployedStack } from '../support/aws/deployed-stack.ts';
import { type LocalLambdaFunction, startLambdaFunction } from '../support/aws/lambda-host.ts';
import {
  type SqsEventSourceMapping,
  startSqsEventSourceMapping,
} from '../support/aws/sqs-event-source-mapping.ts';

const handler = `
export const handler = async (event) => {
  const started = Date.now();
  const actions = event.Records.map((r) => JSON.parse(r.body));
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, ...actions.map((a) => a.ms ?? 0))));
  process.stdout.write(JSON.stringify({ started, ended: Date.now(), event }) + '\\n');
  if (actions.some((a) => a.action === 'throw')) throw new Error('batch failed');
  if (actions.some((a) => a.action === 'bad-id')) return { batchItemFailures: [{ itemIdentifier: '' }] };
  const failed = event.Records.filter((_, i) => actions[i].action === 'fail');
  return { batchItemFailures: failed.map((r) => ({ itemIdentifier: r.messageId })) };
};`;

/** A standard queue (1 s visibility timeout) whose messages reach `<name>Dlq` after 2 receives. */
function queueWithDlq(name: string, visibilityTimeout = 1): Record<string, CfnResource> {
  return {
    [`${name}Dlq`]: { Type: 'AWS::SQS::Queue' },
    [name]: {
      Type: 'AWS::SQS::Queue',
      Properties: {
        VisibilityTimeout: visibilityTimeout,
        RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [`${name}Dlq`, 'Arn'] }, maxReceiveCount: 2 },
      },
    },
  };
}

function mapping(queue: string, props: Record<string, unknown> = {}): CfnResource {
  return {
    Type: 'AWS::Lambda::EventSourceMapping',
    Properties: {
      EventSourceArn: { 'Fn::GetAtt': [queue, 'Arn'] },
      FunctionName: { Ref: 'Worker' },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ...props,
    },
  };
}

const template: CfnTemplate = {
  Resources: {
    Worker: {
      Type: 'AWS::Lambda::Function',
      Properties: { Handler: 'index.handler', Runtime: 'nodejs22.x', Timeout: 10 },
      Metadata: { 'aws:asset:path': 'asset.worker' },
    },
    // Longer than the batching window, as Lambda asks (else messages reappear while gathered).
    ...queueWithDlq('Batch', 10),
    ...queueWithDlq('Partial'),
    ...queueWithDlq('Failing'),
    ...queueWithDlq('Invalid'),
    ...queueWithDlq('Whole'),
    Ordered: {
      Type: 'AWS::SQS::Queue',
      Properties: { FifoQueue: true, ContentBasedDeduplication: true, VisibilityTimeout: 10 },
    },
    Idle: { Type: 'AWS::SQS::Queue' },
    BatchMapping: mapping('Batch', {
      MaximumBatchingWindowInSeconds: 1,
      ScalingConfig: { MaximumConcurrency: 2 },
    }),
    PartialMapping: mapping('Partial'),
    FailingMapping: mapping('Failing'),
    InvalidMapping: mapping('Invalid'),
    WholeMapping: mapping('Whole', { FunctionResponseTypes: undefined }),
    OrderedMapping: mapping('Ordered', { BatchSize: 2, ScalingConfig: { MaximumConcurrency: 2 } }),
    IdleMapping: mapping('Idle'),
    DisabledMapping: mapping('Idle', { Enabled: false }),
  },
};

interface Invocation {
  readonly started: number;
  readonly ended: number;
  readonly event: SQSEvent;
}

describe('SQS event source mappings', () => {
  let server: Awaited<ReturnType<typeof startFauxqs>>;
  let sqs: SQSClient;
  let stack: DeployedStack;
  let cdkOut: string;
  let fn: LocalLambdaFunction | undefined;
  let mappings: SqsEventSourceMapping[] = [];

  const invocations = (): Invocation[] =>
    (fn?.logs ?? []).filter((l) => l.line.startsWith('{')).map((l) => JSON.parse(l.line) as Invocation);
  const send = (queue: string, body: object, extra: Record<string, unknown> = {}) =>
    sqs.send(
      new SendMessageCommand({ QueueUrl: stack.ref(queue), MessageBody: JSON.stringify(body), ...extra }),
    );
  const depth = async (queue: string): Promise<number> => {
    const answer = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: stack.ref(queue),
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    const a = answer.Attributes ?? {};
    return Number(a.ApproximateNumberOfMessages) + Number(a.ApproximateNumberOfMessagesNotVisible);
  };
  const start = async (logicalId: string, maxContainers = 3): Promise<SqsEventSourceMapping> => {
    fn ??= await startLambdaFunction({
      stack,
      logicalId: 'Worker',
      cdkOut,
      sandboxParent: cdkOut,
      maxContainers,
    });
    const started = startSqsEventSourceMapping({ stack, logicalId, sqs, fn, log: () => undefined });
    mappings.push(started);
    return started;
  };

  beforeAll(async () => {
    server = await startFauxqs({ port: 0, logger: false, host: '127.0.0.1' });
    const { hostname, port } = new URL(server.address);
    stack = new DeployedStack(template, {
      account: '000000000000',
      region: 'us-east-1',
      stackName: 'Esm',
      endpoint: `http://sqs.us-east-1.${hostname}:${port}`,
    });
    for (const queue of await deployQueues(stack, server.address)) expect(queue.fauxqsUrl).toBe(queue.url);
    sqs = localSqsClient(server.address);
    cdkOut = await mkdtemp(join(tmpdir(), 'esm-test-'));
    await mkdir(join(cdkOut, 'asset.worker'));
    await writeFile(join(cdkOut, 'asset.worker', 'index.mjs'), handler);
  });
  afterEach(async () => {
    await Promise.all(mappings.map((m) => m.stop()));
    mappings = [];
    await fn?.stop();
    fn = undefined;
  });
  afterAll(async () => {
    sqs.destroy();
    await server.stop();
    await rm(cdkOut, { recursive: true, force: true });
  });

  it('gathers a batch over the batching window, hands it over as Lambda records and deletes it', async () => {
    const esm = await start('BatchMapping');
    expect(esm).toMatchObject({
      batchSize: 10,
      batchingWindowSeconds: 1,
      reportBatchItemFailures: true,
      concurrency: 2,
    });
    const attributes = {
      MessageAttributes: {
        kind: { DataType: 'String', StringValue: 'node' },
        blob: { DataType: 'Binary', BinaryValue: Buffer.from('hi') },
      },
    };
    await send('Batch', { n: 1 }, attributes);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await send('Batch', { n: 2 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await send('Batch', { n: 3 });
    await expect.poll(() => esm.counters.deleted, { timeout: 5000 }).toBe(3);
    const [only, ...more] = invocations();
    expect(more).toEqual([]);
    const records = only?.event.Records ?? [];
    expect(records.map((r) => JSON.parse(r.body).n)).toEqual([1, 2, 3]);
    expect(records[0]).toEqual({
      messageId: expect.any(String),
      receiptHandle: expect.any(String),
      body: '{"n":1}',
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: expect.stringMatching(/^\d+$/),
        SenderId: expect.any(String),
        ApproximateFirstReceiveTimestamp: expect.stringMatching(/^\d+$/),
      },
      messageAttributes: {
        kind: { stringValue: 'node', stringListValues: [], binaryListValues: [], dataType: 'String' },
        blob: { binaryValue: 'aGk=', stringListValues: [], binaryListValues: [], dataType: 'Binary' },
      },
      md5OfBody: createHash('md5').update('{"n":1}').digest('hex'),
      md5OfMessageAttributes: expect.stringMatching(/^[0-9a-f]{32}$/),
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:Esm-Batch',
      awsRegion: 'us-east-1',
    });
    expect(records[1]?.messageAttributes).toEqual({});
    expect(esm.counters).toMatchObject({ batches: 1, records: 3, deleted: 3, failed: 0 });
    expect(await depth('Batch')).toBe(0);
  });

  it('with ReportBatchItemFailures deletes all but the reported failures, which reach the DLQ', async () => {
    const esm = await start('PartialMapping');
    await send('Partial', { action: 'ok' });
    await send('Partial', { action: 'fail' });
    await expect.poll(() => depth('PartialDlq'), { timeout: 8000 }).toBe(1);
    expect(await depth('Partial')).toBe(0);
    const failedCounts = invocations()
      .flatMap((i) => i.event.Records)
      .filter((r) => r.body.includes('fail'))
      .map((r) => r.attributes.ApproximateReceiveCount);
    expect(failedCounts).toEqual(['1', '2']);
    expect(esm.counters).toMatchObject({ deleted: 1, failed: 2, functionErrors: 0 });
  });

  it('deletes nothing after a function error or an invalid item identifier', async () => {
    const failing = await start('FailingMapping');
    const invalid = await start('InvalidMapping');
    await send('Failing', { action: 'throw' });
    // One batch: both arrive together.
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: stack.ref('Invalid'),
        Entries: ['bad-id', 'ok'].map((action) => ({ Id: action, MessageBody: JSON.stringify({ action }) })),
      }),
    );
    await expect.poll(() => depth('FailingDlq'), { timeout: 8000 }).toBe(1);
    await expect.poll(() => depth('InvalidDlq'), { timeout: 8000 }).toBe(2);
    expect(failing.counters).toMatchObject({ batches: 2, functionErrors: 2, deleted: 0, failed: 2 });
    expect(invalid.counters).toMatchObject({ batches: 2, functionErrors: 0, deleted: 0, failed: 4 });
    const counts = invocations()
      .flatMap((i) => i.event.Records)
      .filter((r) => r.body.includes('"ok"'))
      .map((r) => r.attributes.ApproximateReceiveCount);
    // Received twice; the invocations are recorded as they end, which a loaded machine reorders.
    expect([...counts].sort()).toEqual(['1', '2']);
  });

  it('without ReportBatchItemFailures deletes the whole batch whatever the function answers', async () => {
    const esm = await start('WholeMapping');
    expect(esm.reportBatchItemFailures).toBe(false);
    await send('Whole', { action: 'fail' });
    await send('Whole', { action: 'ok' });
    await expect.poll(() => esm.counters.deleted, { timeout: 5000 }).toBe(2);
    expect(esm.counters.failed).toBe(0);
    expect([await depth('Whole'), await depth('WholeDlq')]).toEqual([0, 0]);
  });

  it('keeps one batch in flight per FIFO message group and runs groups in parallel', async () => {
    const esm = await start('OrderedMapping');
    for (const group of ['a', 'b']) {
      for (const seq of [1, 2, 3, 4])
        await send('Ordered', { group, seq, ms: 150 }, { MessageGroupId: group });
    }
    await expect.poll(() => esm.counters.deleted, { timeout: 8000 }).toBe(8);
    const batches = invocations().map((i) => ({
      ...i,
      groups: [...new Set(i.event.Records.map((r) => r.attributes.MessageGroupId))],
      seqs: i.event.Records.map((r) => JSON.parse(r.body).seq as number),
    }));
    for (const group of ['a', 'b']) {
      const mine = batches.filter((b) => b.groups.includes(group)).sort((x, y) => x.started - y.started);
      expect(
        mine
          .flatMap((b) => b.event.Records.filter((r) => r.attributes.MessageGroupId === group))
          .map((r) => JSON.parse(r.body).seq),
      ).toEqual([1, 2, 3, 4]);
      for (let i = 1; i < mine.length; i++)
        expect(mine[i]?.started).toBeGreaterThanOrEqual(mine[i - 1]?.ended ?? 0);
    }
    expect(
      batches.every((b) =>
        b.event.Records.every((r) => r.attributes.SequenceNumber && r.attributes.MessageDeduplicationId),
      ),
    ).toBe(true);
    expect(fn?.stats.peakConcurrency).toBe(2);
  });

  it('stops its pollers promptly, and a disabled mapping never polls', async () => {
    const disabled = await start('DisabledMapping');
    expect(disabled.concurrency).toBe(0);
    await send('Idle', { action: 'ok' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await depth('Idle')).toBe(1);
    const idle = await start('IdleMapping');
    await expect.poll(() => idle.counters.deleted, { timeout: 5000 }).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const began = Date.now();
    await idle.stop();
    expect(Date.now() - began).toBeLessThan(1500);
    await send('Idle', { action: 'ok' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const left = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: stack.ref('Idle'), WaitTimeSeconds: 0 }),
    );
    expect(left.Messages).toHaveLength(1);
  });
});
