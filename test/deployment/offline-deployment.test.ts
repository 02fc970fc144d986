/**
 * The user's scenario through what `cdk deploy` ships: the synthesized bundles in processes of their
 * own, wired and permitted as the template says (test/support/aws/offline-deployment.ts), driven
 * with kubectl and the everynode CLI.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OfflineDeployment, startOfflineDeployment } from '../support/aws/offline-deployment.ts';
import { synthesizeApp, TEST_APP_CONTEXT } from '../support/aws/synthesized-app.ts';
import { kubectlBinary } from '../support/pipeline-harness.ts';
import { seedPlacement } from '../support/seed-placement.ts';
import {
  deadLettersAPoisonMessageAndRedrivesIt,
  followsANoExecuteTaint,
  keepsAFailedRecordForRedelivery,
  placesTheSeedDaemonSets,
  retriesARetryableApiFailure,
  rollsOutAnImageChange,
  routesAnEc2StateChangeToItsNode,
  runsDaemonPodsOnAJoiningNode,
} from './deployment-scenario.ts';

describe.runIf(kubectlBinary)('the synthesized stack, deployed offline', () => {
  let world: OfflineDeployment;

  beforeAll(async () => {
    world = await startOfflineDeployment({ app: await synthesizeApp(TEST_APP_CONTEXT) });
  }, 240_000);
  afterAll(async () => world?.stop());

  it('places the seed DaemonSets on the six fixture nodes', async () => {
    await placesTheSeedDaemonSets(world);
    expect(world.placement()).toEqual(seedPlacement);
  }, 60_000);

  it('runs daemon pods on a node as soon as it joins', async () => {
    await runsDaemonPodsOnAJoiningNode(world);
  }, 60_000);

  it('follows a NoExecute taint', async () => {
    await followsANoExecuteTaint(world);
  }, 60_000);

  it('rolls out an image change to completion (kubectl rollout status)', async () => {
    expect(await rollsOutAnImageChange(world)).toMatch(/successfully rolled out/);
  }, 90_000);

  it('retries a retryable API failure', async () => {
    await retriesARetryableApiFailure(world);
  }, 60_000);

  it('dead-letters a poison message at once and everynode redrive moves it back', async () => {
    expect(await deadLettersAPoisonMessageAndRedrivesIt(world)).toMatch(/moved 1 message/);
  }, 60_000);

  it('keeps a failed record in the queue for redelivery', async () => {
    await keepsAFailedRecordForRedelivery(world);
  }, 60_000);

  it('routes an EC2 instance state change to its node', async () => {
    await routesAnEc2StateChangeToItsNode(world);
  }, 60_000);

  it('made every AWS call with a right the template grants', () => {
    const denied = world.gateway.calls.filter((c) => !c.allowed);
    expect(denied).toEqual([]);
    expect(world.eventBridge.deliveryFailures).toEqual([]);
    expect(world.gateway.failures).toEqual([]);
    // Who made which calls: each function with its own role, EventBridge's rules with theirs and
    // as the service, the operator (the test and the CLI) as an IAM user.
    const who = (arn: string) =>
      arn.includes(':assumed-role/')
        ? (arn.split('/')[1] ?? '').replace(
            /^Everynode-(Functions|Triggers)|(Role|EventsRole)[0-9A-F]{8}$/g,
            '',
          )
        : arn.replace(/^arn:aws:iam::\d+:/, '');
    const made = new Set(world.gateway.calls.map((c) => `${who(c.principalArn)} ${c.action}`));
    expect([...made].sort()).toEqual([
      'Ec2StateChange events:PutEvents',
      'Reconcile sqs:DeleteMessage',
      'Reconcile sqs:ReceiveMessage',
      'Reconcile sqs:SendMessage',
      'Relay events:PutEvents',
      'Relay ssm:GetParameter',
      'Relay ssm:PutParameter',
      'RelaySchedule events:PutEvents',
      'Router ec2:DescribeInstances',
      'Router sqs:DeleteMessage',
      'Router sqs:ReceiveMessage',
      'Router sqs:SendMessage',
      'events.amazonaws.com lambda:InvokeFunction',
      'events.amazonaws.com sqs:SendMessage',
      'user/operator sqs:DeleteMessage',
      'user/operator sqs:GetQueueAttributes',
      'user/operator sqs:ReceiveMessage',
      'user/operator sqs:SendMessage',
    ]);
  });
});
