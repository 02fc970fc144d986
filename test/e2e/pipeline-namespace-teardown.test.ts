import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlBinary, type PipelineWorld, startPipelineWorld } from '../support/pipeline-harness.ts';

/** The work DLQ's messages with their reasons (to say why, when one is there). */
async function deadLetters(world: PipelineWorld): Promise<string[]> {
  const { sqs, urls } = world.pipeline.queues;
  const answer = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: urls.workDlq,
      MaxNumberOfMessages: 10,
      MessageAttributeNames: ['All'],
    }),
  );
  return (answer.Messages ?? []).map((m) => `${m.MessageAttributes?.reason?.StringValue}: ${m.Body}`);
}

/** What the reconciler did with its messages since the world started. */
const outcomes = (world: PipelineWorld) => ({
  deadLettered: world.pipeline.counters.get('DeadLettered'),
  retried: world.pipeline.counters.get('RetriedAfterFailure'),
});

describe.runIf(kubectlBinary)('a namespace torn down under a managed DaemonSet (apps/v1)', () => {
  let world: PipelineWorld;

  beforeAll(async () => {
    world = await startPipelineWorld({ managedKind: 'apps/v1', secured: true, nodes: 4 });
  });
  afterAll(async () => world.stop());

  it('is routine: every pair is done, nothing is retried or dead-lettered', async () => {
    await world.kubectl(['create', 'namespace', 'teardown']);
    const ds = {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent', namespace: 'teardown' },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: {
          metadata: { labels: { app: 'agent' } },
          spec: { tolerations: [{ operator: 'Exists' }], containers: [{ name: 'agent', image: 'agent:1' }] },
        },
      },
    };
    await world.kubectl(['apply', '-f', '-'], JSON.stringify(ds));
    await world.until('the agent runs on every node', () => world.pods('teardown').length === 4);

    // The namespace controller deletes the DaemonSet and its pods while the namespace is
    // terminating; each pod's DELETED event makes a pair step that tries to create a pod there.
    await world.kubectl(['delete', 'namespace', 'teardown', '--wait=true']);
    await world.quiet();

    const dead = outcomes(world).deadLettered > 0 ? await deadLetters(world) : [];
    expect({ ...outcomes(world), dead }).toEqual({ deadLettered: 0, retried: 0, dead: [] });
    const depths = await world.pipeline.queueDepths();
    expect({ workDlq: depths.workDlq, ingressDlq: depths.ingressDlq }).toEqual({ workDlq: 0, ingressDlq: 0 });
    expect(world.pods('teardown')).toEqual([]);
  });
});
