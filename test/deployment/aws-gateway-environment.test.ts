/**
 * The local AWS endpoint reached as a function reaches it: a separate Node.js process whose SDK
 * clients are built as `new XClient({})` and configured only by the environment the harness gives a
 * function (AWS_ENDPOINT_URL, AWS_REGION, the role session's keys, NODE_EXTRA_CA_CERTS trusting the
 * gateway's CA). The SQS client sends to the queue URL's origin, which is the gateway.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AwsGateway, startAwsGateway } from '../support/aws/aws-gateway.ts';
import { deployQueues } from '../support/aws/deployed-queues.ts';
import { logicalIdOf, synthesizedTemplate, TEST_TARGET } from './deployment-fixtures.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));

/** What the child runs: the calls the router makes, each answered with its result or error name. */
const SCRIPT = `
import { SQSClient, SendMessageCommand } from '@aws-sdk/client-sqs';
import { EC2Client, DescribeInstancesCommand } from '@aws-sdk/client-ec2';
import { SSMClient, GetParameterCommand } from '@aws-sdk/client-ssm';
const outcome = (promise, pick) => promise.then(pick, (error) => ({ error: error.name }));
const [queueUrl, parameter] = process.argv.slice(1);
const results = {
  send: await outcome(new SQSClient({}).send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'from a function' })), (a) => Boolean(a.MessageId)),
  describe: await outcome(new EC2Client({}).send(new DescribeInstancesCommand({ InstanceIds: ['i-0123456789abcdef0'] })), (a) => a.Reservations[0].Instances[0].PrivateDnsName),
  parameter: await outcome(new SSMClient({}).send(new GetParameterCommand({ Name: parameter })), (a) => a.Parameter.Value),
};
process.stdout.write(JSON.stringify(results));
`;

/** Runs SCRIPT in its own process group with exactly `env`; kills the group when done. */
async function runAsFunction(env: Record<string, string>, args: string[]): Promise<unknown> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', SCRIPT, ...args], {
    cwd: repo,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });
    if (code !== 0) throw new Error(`the function process exited with ${code}: ${stderr}`);
    return JSON.parse(stdout);
  } finally {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // The group is already gone.
    }
  }
}

describe('the local AWS endpoint from a function’s environment', () => {
  let fauxqs: FauxqsServer;
  let gateway: AwsGateway;
  let dir: string;

  beforeAll(async () => {
    const template = await synthesizedTemplate();
    dir = await mkdtemp(join(tmpdir(), 'aws-gateway-env-'));
    fauxqs = await startFauxqs({ port: 0, logger: false, host: '127.0.0.1' });
    gateway = await startAwsGateway({
      template,
      target: TEST_TARGET,
      sqsEndpoint: fauxqs.address,
      instances: () => [
        { instanceId: 'i-0123456789abcdef0', privateDnsName: 'ip-10-0-1-23.ec2.internal', state: 'running' },
      ],
    });
    await deployQueues(gateway.stack, fauxqs.address);
  }, 240_000);

  afterAll(async () => {
    await gateway?.stop();
    await fauxqs?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('serves the router’s SDK clients configured by the environment alone, denying what its role lacks', async () => {
    const { stack } = gateway;
    const roleArn = stack.attribute(logicalIdOf(stack, 'FunctionsRouterRole', 'AWS::IAM::Role'), 'Arn');
    const credentials = gateway.issueRoleCredentials(roleArn, 'router-function');
    const caFile = join(dir, 'gateway-ca.pem');
    await writeFile(caFile, gateway.caPem);
    const env = {
      PATH: process.env.PATH ?? '',
      AWS_ENDPOINT_URL: gateway.url,
      AWS_REGION: TEST_TARGET.region,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      AWS_SESSION_TOKEN: credentials.sessionToken ?? '',
      AWS_MAX_ATTEMPTS: '1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      NODE_EXTRA_CA_CERTS: caFile,
    };
    const ingress = stack.ref(logicalIdOf(stack, 'QueuesIngress', 'AWS::SQS::Queue'));
    const parameter = stack.ref(logicalIdOf(stack, 'RelayCheckpoint', 'AWS::SSM::Parameter'));
    expect(await runAsFunction(env, [ingress, parameter])).toEqual({
      send: true,
      describe: 'ip-10-0-1-23.ec2.internal',
      parameter: { error: 'AccessDeniedException' },
    });
    expect(gateway.calls.map((call) => [call.action, call.allowed])).toEqual([
      ['sqs:SendMessage', true],
      ['ec2:DescribeInstances', true],
      ['ssm:GetParameter', false],
    ]);
    expect(gateway.failures).toEqual([]);
  });
});
