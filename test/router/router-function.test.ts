import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { Context, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseWorkMessage } from '../../lib/messages/parse-work-message.ts';
import { WATCH_DETAIL_TYPE } from '../../lib/messages/trigger.ts';
import { eventEnvelopeOf } from '../../lib/queue/event-bus.ts';
import { type LocalQueues, startLocalQueues } from '../../lib/queue/local-queues.ts';
import { type SimCluster, startSimCluster } from '../../lib/sim/start-sim-cluster.ts';

describe('functions/router', () => {
  let sim: SimCluster;
  let queues: LocalQueues;
  beforeAll(async () => {
    sim = await startSimCluster({
      nodes: 2,
      kubeconfigPath: `${process.env.TMPDIR ?? '/tmp'}/everynode-router-fn-${process.pid}.kubeconfig`,
    });
    queues = await startLocalQueues();
  });
  afterAll(async () => {
    await queues.stop();
    await sim.stop();
  });

  it('builds its handler from the environment, routes an SQS batch and emits EMF metrics', async () => {
    Object.assign(process.env, {
      EVERYNODE_MANAGED_KIND: 'apps/v1',
      EVERYNODE_KUBECONFIG: sim.kubeconfigPath,
      EVERYNODE_WORK_QUEUE_URL: queues.urls.work,
      EVERYNODE_INGRESS_QUEUE_URL: queues.urls.ingress,
      EVERYNODE_SQS_ENDPOINT: queues.endpoint,
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'false',
    });
    const { handler } = await import('../../functions/router/index.ts');
    const body = JSON.stringify(
      eventEnvelopeOf({
        source: 'everynode.relay',
        detailType: WATCH_DETAIL_TYPE,
        detail: {
          v: 1,
          event: 'ADDED',
          kind: 'Node',
          apiVersion: 'v1',
          name: 'worker-1',
          uid: 'u',
          resourceVersion: '9',
        },
      }),
    );
    const record = (id: string, text: string) => ({
      messageId: id,
      receiptHandle: id,
      body: text,
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: '0',
        SenderId: 's',
        ApproximateFirstReceiveTimestamp: '0',
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:everynode-ingress',
      awsRegion: 'us-east-1',
    });
    const event: SQSEvent = { Records: [record('m-1', body), record('m-2', 'garbage')] };
    const context = {
      functionName: 'router',
      awsRequestId: 'r-1',
      getRemainingTimeInMillis: () => 30_000,
    } as unknown as Context;
    const printed: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      printed.push(String(chunk));
      return true;
    });
    let response: Awaited<ReturnType<typeof handler>>;
    try {
      response = await handler(event, context);
    } finally {
      spy.mockRestore();
    }
    expect(response.batchItemFailures).toEqual([]);
    const received = await queues.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queues.urls.work, MaxNumberOfMessages: 10 }),
    );
    const messages = (received.Messages ?? []).map((m) => parseWorkMessage(m.Body ?? ''));
    expect(messages).toMatchObject([{ ok: true, message: { kind: 'node', node: { name: 'worker-1' } } }]);
    const emf = printed
      .join('')
      .split('\n')
      .filter((line) => line.includes('"_aws"'));
    expect(emf.join('\n')).toMatch(/"TriggersRouted":1/);
    expect(emf.join('\n')).toMatch(/"TriggersUnusable":1/);
  });
});
