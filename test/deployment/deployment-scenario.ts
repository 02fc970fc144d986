/**
 * The user's scenario, step by step, as checks over an offline deployment: each resolves when the
 * step works through the synthesized bundles and rejects (naming the step) when it does not. The
 * scenario test runs them in order on the template as synthesized; the mutation tests run one on a
 * template with one defect and expect it to reject.
 */
import { fileURLToPath } from 'node:url';
import { ReceiveMessageCommand, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { MAX_FAILURE_REQUEUES } from '../../lib/reconcile/handler/work-record.ts';
import { instanceIdOfNode, type OfflineDeployment } from '../support/aws/offline-deployment.ts';
import { seedPlacement } from '../support/seed-placement.ts';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}.yaml`, import.meta.url));

const on = (world: OfflineDeployment, node: string) =>
  world.placement().filter((p) => p.endsWith(`@${node}`));

/** Options of every check: how long a step may take (shorter in the mutation tests). */
export interface CheckOptions {
  readonly timeoutMs?: number;
}

/** kubectl applies the seed DaemonSets; they run on exactly the right fixture nodes. */
export async function placesTheSeedDaemonSets(world: OfflineDeployment, o: CheckOptions = {}): Promise<void> {
  await world.kubectl(['create', 'namespace', 'kiada']);
  await world.kubectl(['apply', '-f', fixture('fluentd-elasticsearch'), '-f', fixture('demo')]);
  await world.until(
    'the seed DaemonSets are placed',
    () => world.placement().join() === seedPlacement.join(),
    o.timeoutMs ?? 30_000,
  );
}

/** A node joins (kubectl): both daemon pods run on it; it leaves: they go. */
export async function runsDaemonPodsOnAJoiningNode(
  world: OfflineDeployment,
  o: CheckOptions = {},
): Promise<void> {
  const node = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'joined-1', labels: { 'kubernetes.io/os': 'linux' } },
  };
  await world.kubectl(['apply', '-f', '-'], JSON.stringify(node));
  await world.until('joined-1 runs both daemon pods', () => on(world, 'joined-1').length === 2, o.timeoutMs);
  await world.kubectl(['delete', 'node', 'joined-1']);
  await world.until('joined-1 runs nothing', () => on(world, 'joined-1').length === 0, o.timeoutMs);
}

/** A NoExecute taint evicts the daemon pods that do not tolerate it; removing it brings them back. */
export async function followsANoExecuteTaint(world: OfflineDeployment, o: CheckOptions = {}): Promise<void> {
  await world.kubectl(['taint', 'node', 'worker-1', 'dedicated=infra:NoExecute']);
  await world.until('worker-1 runs nothing', () => on(world, 'worker-1').length === 0, o.timeoutMs);
  await world.kubectl(['taint', 'node', 'worker-1', 'dedicated=infra:NoExecute-']);
  await world.until(
    'worker-1 runs its two pods again',
    () => on(world, 'worker-1').length === 2,
    o.timeoutMs,
  );
}

/** An image change rolls out to completion, as `kubectl rollout status` sees it. */
export async function rollsOutAnImageChange(world: OfflineDeployment, o: CheckOptions = {}): Promise<string> {
  const seconds = Math.ceil((o.timeoutMs ?? 60_000) / 1000);
  await world.kubectl(['-n', 'kiada', 'set', 'image', 'ds/demo', 'demo=busybox:1.37']);
  const status = await world.kubectl([
    '-n',
    'kiada',
    'rollout',
    'status',
    'ds/demo',
    `--timeout=${seconds}s`,
  ]);
  const images = world
    .pods('kiada')
    .filter((p) => p.owner === 'demo')
    .map((p) => p.image);
  if (!/successfully rolled out/.test(status) || images.some((image) => image !== 'busybox:1.37'))
    throw new Error(`the rollout did not complete: ${status.trim()}; images ${images.join(', ')}`);
  return status;
}

/** Pod creates fail with 500 for a while: reconcile retries with backoff, and the pods come. */
export async function retriesARetryableApiFailure(
  world: OfflineDeployment,
  o: CheckOptions = {},
): Promise<void> {
  const retriedBefore = world.logs('reconcile').filter((l) => l.includes('retrying it with backoff')).length;
  world.sim.faults.setErrorRate('create', { status: 500, rate: 1 });
  try {
    world.sim.nodes.add('flaky-1', { labels: { 'kubernetes.io/os': 'linux' } });
    await world.until(
      'reconcile retries the failed creates with backoff',
      () =>
        world.logs('reconcile').filter((l) => l.includes('retrying it with backoff')).length > retriedBefore,
      o.timeoutMs,
    );
  } finally {
    world.sim.faults.setErrorRate('create', { status: 500, rate: 0 });
  }
  await world.until('flaky-1 runs both daemon pods', () => on(world, 'flaky-1').length === 2, o.timeoutMs);
}

/** The work DLQ's messages with their reasons. */
async function deadLettered(world: OfflineDeployment): Promise<Array<{ body: string; reason: string }>> {
  const answer = await world.operator.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: world.queueUrl('workDlq'),
      MaxNumberOfMessages: 10,
      MessageAttributeNames: ['All'],
      VisibilityTimeout: 0,
      WaitTimeSeconds: 1,
    }),
  );
  return (answer.Messages ?? []).map((m) => ({
    body: m.Body ?? '',
    reason: m.MessageAttributes?.reason?.StringValue ?? '',
  }));
}

/** A poison message goes to the work DLQ at once with its reason; `everynode redrive` moves it back. */
export async function deadLettersAPoisonMessageAndRedrivesIt(
  world: OfflineDeployment,
  o: CheckOptions = {},
): Promise<string> {
  const poison = '{"v":1,"kind":"teleport"}';
  await world.operator.sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: world.queueUrl('work'),
      Entries: [
        { Id: 'poison', MessageBody: poison, MessageGroupId: 'poison', MessageDeduplicationId: 'poison-1' },
      ],
    }),
  );
  await world.until(
    'the poison message is dead-lettered with its reason',
    async () =>
      (await deadLettered(world)).some((m) => m.body === poison && /unknown message kind/.test(m.reason)),
    o.timeoutMs,
  );
  const dlqLines = () =>
    world.logs('reconcile').filter((l) => l.includes('sending a message to the DLQ')).length;
  const before = dlqLines();
  const output = await world.operatorCli([
    'redrive',
    '--dlq-url',
    world.queueUrl('workDlq'),
    '--queue-url',
    world.queueUrl('work'),
  ]);
  if (!/moved 1 message\(s\)/.test(output)) throw new Error(`everynode redrive said: ${output}`);
  await world.until('the redriven poison message is processed again', () => dlqLines() > before, o.timeoutMs);
  return output;
}

/**
 * A record reconcile reports failed (its API calls failed past the requeue limit) stays in the work
 * queue for SQS to redeliver; the other record of its batch is done and deleted.
 */
export async function keepsAFailedRecordForRedelivery(
  world: OfflineDeployment,
  o: CheckOptions = {},
): Promise<void> {
  const demo = JSON.parse(await world.kubectl(['-n', 'kiada', 'get', 'ds', 'demo', '-o', 'json'])) as {
    metadata: { uid: string };
  };
  world.sim.nodes.add('held-1', { labels: { 'kubernetes.io/os': 'linux' } });
  const at = new Date().toISOString();
  const pair = (node: string, failures?: number) =>
    JSON.stringify({
      v: 1,
      kind: 'pair',
      cause: failures
        ? { type: 'requeue', reason: 'test', failures, requestedAt: at }
        : { type: 'resync', at },
      daemonSet: { namespace: 'kiada', name: 'demo', uid: demo.metadata.uid },
      node: { name: node },
    });
  // The API server fails the create (an outage, requeued for as long as it lasts), and the ingress
  // queue is down for the reconcile function too: the requeue cannot be sent, so the record must
  // stay in the work queue for redelivery.
  world.sim.faults.setErrorRate('create', { status: 500, rate: 1 });
  const ingress = world.queueUrl('ingress');
  const endOutage = world.gateway.outage(
    (call) =>
      call.principal.type === 'role' &&
      call.principal.roleArn.includes('Reconcile') &&
      call.operation.startsWith('SendMessage') &&
      call.input.QueueUrl === ingress,
  );
  try {
    await world.operator.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: world.queueUrl('work'),
        Entries: [
          {
            Id: 'held',
            MessageBody: pair('held-1', MAX_FAILURE_REQUEUES),
            MessageGroupId: 'held',
            MessageDeduplicationId: `held-${Date.now()}`,
          },
          {
            Id: 'done',
            MessageBody: pair('worker-ssd'),
            MessageGroupId: 'done',
            MessageDeduplicationId: `done-${Date.now()}`,
          },
        ],
      }),
    );
    await world.until(
      'reconcile reports the record failed',
      () => world.logs('reconcile').some((l) => l.includes('records left for redelivery')),
      o.timeoutMs,
    );
    // The event source mapping deletes what it deletes once the invocation returns.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // The record itself, not the queue's depth: other work of the new node may be queued meanwhile.
    const held = pair('held-1', MAX_FAILURE_REQUEUES);
    if (!world.queueBodies('work').includes(held))
      throw new Error('the failed record was deleted with its batch: its work is lost');
  } finally {
    endOutage();
    world.sim.faults.setErrorRate('create', { status: 500, rate: 0 });
  }
}

/**
 * EC2 says the instance of a node registered without a provider id is stopping: the event crosses
 * the default bus and the everynode bus to the ingress queue, and the router finds the node by the
 * instance's private DNS name (ec2:DescribeInstances) and sends node work.
 */
export async function routesAnEc2StateChangeToItsNode(
  world: OfflineDeployment,
  o: CheckOptions = {},
): Promise<void> {
  const name = 'ip-10-0-7-9.ec2.internal';
  const node = world.sim.nodes.add(name, { labels: { 'kubernetes.io/os': 'linux' } });
  const instanceId = instanceIdOfNode(node);
  const from = world.gateway.calls.length;
  world.eventBridge.emitServiceEvent({
    source: 'aws.ec2',
    'detail-type': 'EC2 Instance State-change Notification',
    detail: { 'instance-id': instanceId, state: 'stopping' },
    resources: [`arn:aws:ec2:${world.stack.region}:${world.stack.account}:instance/${instanceId}`],
  });
  const routerCalls = () =>
    world.gateway.calls.slice(from).filter((c) => c.allowed && c.principalArn.includes('FunctionsRouter'));
  await world.until(
    'the router looks the instance up and sends node work',
    () => {
      const calls = routerCalls();
      const lookup = calls.findIndex((c) => c.action === 'ec2:DescribeInstances');
      return (
        lookup >= 0 &&
        calls.slice(lookup).some((c) => c.action === 'sqs:SendMessage' && c.resource.includes('Work'))
      );
    },
    o.timeoutMs,
  );
}
