/**
 * Lambda's Invoke at the local AWS endpoint through a real LambdaClient, as the relay starts its
 * successor run: signed with a role's session credentials, authorized as `lambda:InvokeFunction` on
 * the function's ARN by the IAM evaluator over the synthesized template (the relay's role may invoke
 * its own function by a policy of its own). Accepted `Event` invocations reach the harness's hook
 * with the parsed payload; denials, unknown functions, bad signatures and the 17th link of a
 * recursive chain to a function whose `RecursiveLoop` is not `Allow` raise the errors Lambda's SDK
 * raises. Then the whole path the relay's hand-over takes, on a small hand-made stack: a function
 * hosted in a real container invokes itself through the endpoint with `context.invokedFunctionArn`,
 * the successor runs once the slot of its reserved concurrency is free, and Lambda's recursive loop
 * detection stops such a chain after 16 invocations unless the function allows it.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { HttpRequest } from '@smithy/protocol-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AwsGateway, IssuedCredentials } from '../support/aws/aws-gateway.ts';
import { startAwsGateway } from '../support/aws/aws-gateway.ts';
import type { LambdaInvocation } from '../support/aws/aws-gateway-lambda.ts';
import type { CfnResource, CfnTemplate } from '../support/aws/deployed-stack.ts';
import { type LocalLambdaFunction, startLambdaFunction } from '../support/aws/lambda-host.ts';
import { invocationsOf, lineageKey } from '../support/aws/lambda-trace-header.ts';
import { synthesizedTemplate, TEST_TARGET } from './deployment-fixtures.ts';

const { account: ACCOUNT, region: REGION } = TEST_TARGET;

/** The logical id of the one resource of `type` whose id starts with `prefix` and ends in CDK's hash. */
function idOf(template: CfnTemplate, prefix: string, type: string): string {
  const ids = Object.entries(template.Resources)
    .filter(([id, r]) => r.Type === type && new RegExp(`^${prefix}[0-9A-F]{8}$`).test(id))
    .map(([id]) => id);
  if (ids.length !== 1) throw new Error(`${ids.length} ${type} resources are ${prefix}<hash>`);
  return ids[0] as string;
}

describe('Lambda Invoke at the local AWS endpoint', () => {
  let gateway: AwsGateway;
  const invoked: LambdaInvocation[] = [];
  const clients: LambdaClient[] = [];

  const functionArn = (prefix: string) =>
    gateway.stack.attribute(idOf(gateway.stack.template, prefix, 'AWS::Lambda::Function'), 'Arn');
  const roleArn = (prefix: string) =>
    gateway.stack.attribute(idOf(gateway.stack.template, prefix, 'AWS::IAM::Role'), 'Arn');
  /** A client signing with `credentials`; with `traceHeader`, sending it as X-Amzn-Trace-Id. */
  const lambdaWith = (credentials: IssuedCredentials, traceHeader?: string) => {
    const client = new LambdaClient({
      endpoint: gateway.url,
      region: REGION,
      credentials,
      requestHandler: { httpsAgent: new Agent({ ca: gateway.caPem, keepAlive: true }) },
      maxAttempts: 1,
    });
    if (traceHeader) {
      client.middlewareStack.add(
        (next) => (args) => {
          if (HttpRequest.isInstance(args.request)) args.request.headers['X-Amzn-Trace-Id'] = traceHeader;
          return next(args);
        },
        { step: 'build' },
      );
    }
    clients.push(client);
    return client;
  };
  const as = (rolePrefix: string) =>
    lambdaWith(gateway.issueRoleCredentials(roleArn(rolePrefix), `${rolePrefix}Session`));
  const event = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
  const errorOf = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error as Error & { $metadata?: { httpStatusCode?: number } },
    );

  beforeAll(async () => {
    gateway = await startAwsGateway({
      template: await synthesizedTemplate(),
      target: TEST_TARGET,
      // No SQS call is made here; the gateway needs a backend to name.
      sqsEndpoint: 'http://127.0.0.1:9',
      invokeFunction: (invocation) => {
        invoked.push(invocation);
        return { requestId: `request-${invoked.length}` };
      },
    });
  }, 240_000);

  afterAll(async () => {
    for (const client of clients) client.destroy();
    await gateway?.stop();
  });

  it('accepts the relay’s Event invocation of its own ARN with 202 and hands the parsed payload on', async () => {
    const relay = as('FunctionsRelayRole');
    const arn = functionArn('FunctionsRelay');
    const answer = await relay.send(
      new InvokeCommand({
        FunctionName: arn,
        InvocationType: 'Event',
        Payload: event({ successorOf: 'run-1', at: 42 }),
      }),
    );
    expect(answer.StatusCode).toBe(202);
    expect(answer.Payload?.length ?? 0).toBe(0);
    expect(answer.$metadata.requestId).toBe('request-1');
    expect(invoked).toEqual([
      {
        functionArn: arn,
        payload: { successorOf: 'run-1', at: 42 },
        principal: {
          type: 'role',
          roleArn: roleArn('FunctionsRelayRole'),
          sessionName: 'FunctionsRelayRoleSession',
        },
      },
    ]);
    expect(gateway.calls.at(-1)).toMatchObject({
      principalArn: expect.stringMatching(
        new RegExp(`^arn:aws:sts::${ACCOUNT}:assumed-role/[^/]+/FunctionsRelayRoleSession$`),
      ),
      action: 'lambda:InvokeFunction',
      resource: arn,
      allowed: true,
    });

    // The same function by its name and by a partial ARN; no payload is the event {}.
    const name = arn.split(':').pop() ?? '';
    await relay.send(new InvokeCommand({ FunctionName: name, InvocationType: 'Event' }));
    await relay.send(
      new InvokeCommand({
        FunctionName: `${ACCOUNT}:function:${name}`,
        InvocationType: 'Event',
        Payload: event([1]),
      }),
    );
    expect(invoked.slice(1).map((i) => [i.functionArn, i.payload])).toEqual([
      [arn, {}],
      [arn, [1]],
    ]);
  });

  it('denies the relay another function and the router the relay, with Lambda’s AccessDeniedException', async () => {
    const before = invoked.length;
    const relay = as('FunctionsRelayRole');
    const router = functionArn('FunctionsRouter');
    const denied = await errorOf(
      relay.send(new InvokeCommand({ FunctionName: router, InvocationType: 'Event', Payload: event({}) })),
    );
    expect(denied?.name).toBe('AccessDeniedException');
    expect(denied?.$metadata?.httpStatusCode).toBe(403);
    expect(denied?.message).toMatch(
      new RegExp(
        `^User: arn:aws:sts::${ACCOUNT}:assumed-role/[^/]+/FunctionsRelayRoleSession is not authorized to perform: lambda:InvokeFunction on resource: ${router} because no identity-based policy allows the lambda:InvokeFunction action$`,
      ),
    );
    const byRouter = await errorOf(
      as('FunctionsRouterRole').send(
        new InvokeCommand({ FunctionName: functionArn('FunctionsRelay'), InvocationType: 'Event' }),
      ),
    );
    expect(byRouter?.name).toBe('AccessDeniedException');
    expect(gateway.calls.at(-1)).toMatchObject({ action: 'lambda:InvokeFunction', allowed: false });
    expect(invoked).toHaveLength(before);
  });

  it('answers ResourceNotFoundException for a function the stack does not hold, or a version it never published', async () => {
    const before = invoked.length;
    const operator = lambdaWith(
      gateway.registerUser(`arn:aws:iam::${ACCOUNT}:user/operator`, {
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: '*' }],
      }),
    );
    const missing = await errorOf(
      operator.send(new InvokeCommand({ FunctionName: 'no-such-function', InvocationType: 'Event' })),
    );
    expect(missing?.name).toBe('ResourceNotFoundException');
    expect(missing?.$metadata?.httpStatusCode).toBe(404);
    expect(missing?.message).toBe(
      `Function not found: arn:aws:lambda:${REGION}:${ACCOUNT}:function:no-such-function`,
    );
    const version = await errorOf(
      operator.send(
        new InvokeCommand({
          FunctionName: functionArn('FunctionsRelay'),
          Qualifier: '7',
          InvocationType: 'Event',
        }),
      ),
    );
    expect(version?.name).toBe('ResourceNotFoundException');
    expect(version?.message).toBe(`Function not found: ${functionArn('FunctionsRelay')}:7`);
    expect(invoked).toHaveLength(before);
  });

  it('answers DryRun with 204, refuses a payload that is not JSON, and names RequestResponse as unsupported', async () => {
    const before = invoked.length;
    const relay = as('FunctionsRelayRole');
    const FunctionName = functionArn('FunctionsRelay');
    expect((await relay.send(new InvokeCommand({ FunctionName, InvocationType: 'DryRun' }))).StatusCode).toBe(
      204,
    );
    const notJson = await errorOf(
      relay.send(
        new InvokeCommand({
          FunctionName,
          InvocationType: 'Event',
          Payload: new TextEncoder().encode('{oops'),
        }),
      ),
    );
    expect(notJson?.name).toBe('InvalidRequestContentException');
    const sync = await errorOf(relay.send(new InvokeCommand({ FunctionName, Payload: event({}) })));
    expect(sync?.name).toBe('UnsupportedOperation');
    expect(sync?.message).toMatch(/RequestResponse/);
    expect(invoked).toHaveLength(before);
  });

  it('refuses a wrong secret and an unknown key', async () => {
    const issued = gateway.issueRoleCredentials(roleArn('FunctionsRelayRole'), 'forger');
    const attempt = async (credentials: IssuedCredentials) =>
      errorOf(
        lambdaWith(credentials).send(
          new InvokeCommand({ FunctionName: functionArn('FunctionsRelay'), InvocationType: 'Event' }),
        ),
      );
    const forged = await attempt({ ...issued, secretAccessKey: `${issued.secretAccessKey}x` });
    expect(forged?.name).toBe('InvalidSignatureException');
    expect(forged?.$metadata?.httpStatusCode).toBe(403);
    expect((await attempt({ ...issued, accessKeyId: 'ASIAUNKNOWNUNKNOWN00' }))?.name).toBe(
      'UnrecognizedClientException',
    );
    expect(invoked).toHaveLength(3);
  });

  it('refuses the 17th invocation of a function by one event, unless its RecursiveLoop is Allow', async () => {
    const tracer = gateway.registerUser(`arn:aws:iam::${ACCOUNT}:user/tracer`, {
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: '*' }],
    });
    const router = functionArn('FunctionsRouter');
    const relay = functionArn('FunctionsRelay');
    /** A trace header whose Lineage says how many times the event invoked each function. */
    const traced = (lineage: string) =>
      `Root=1-67891233-abcdef012345678912345678;Parent=1234567890abcdef;Sampled=0;Lineage=${lineage}`;
    const invoke = (FunctionName: string, traceHeader: string) =>
      lambdaWith(tracer, traceHeader).send(
        new InvokeCommand({ FunctionName, InvocationType: 'Event', Payload: event({}) }),
      );
    const before = invoked.length;

    // The router's RecursiveLoop is unset (Lambda's default, Terminate): its 16th invocation by
    // the event runs and goes on with the event's trace; the 17th is stopped.
    const sixteenth = traced(`${lineageKey(relay)}:3|${lineageKey(router)}:15`);
    expect((await invoke(router, sixteenth)).StatusCode).toBe(202);
    expect(invoked.at(-1)).toMatchObject({ functionArn: router, traceHeader: sixteenth });
    for (const lineage of [
      `${lineageKey(router)}:16`,
      `1:${lineageKey(router)}:16`,
      `${lineageKey(router)}:40`,
    ]) {
      const stopped = await errorOf(invoke(router, traced(lineage)));
      expect(stopped?.name).toBe('RecursiveInvocationException');
      expect(stopped?.$metadata?.httpStatusCode).toBe(400);
      expect(stopped?.message).toMatch(/recursive loop/);
    }
    // Another function's count does not count; the relay, whose template allows recursive loops,
    // runs whatever its count.
    expect((await invoke(router, traced(`${lineageKey(relay)}:40`))).StatusCode).toBe(202);
    expect((await invoke(relay, traced(`${lineageKey(relay)}:40`))).StatusCode).toBe(202);
    expect(invoked).toHaveLength(before + 3);
  });

  it('met no failure of its own along the way', () => {
    expect(gateway.failures).toEqual([]);
  });
});

/**
 * A handler that logs its hop and trace header, invokes its own ARN with the next hop until hop
 * `event.until` (default 2), logging why when Lambda refuses, and tries `event.other` once.
 */
const CHAIN_HANDLER = `
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
const lambda = new LambdaClient({});
const payload = (value) => new TextEncoder().encode(JSON.stringify(value));
export const handler = async (event, context) => {
  console.log(JSON.stringify({ hop: event.hop, trace: process.env._X_AMZN_TRACE_ID }));
  if (event.other) {
    const denied = await lambda
      .send(new InvokeCommand({ FunctionName: event.other, InvocationType: 'Event' }))
      .then(() => 'allowed', (error) => error.name);
    console.log(JSON.stringify({ other: denied }));
  }
  if (event.hop < (event.until ?? 2)) {
    const next = { hop: event.hop + 1, until: event.until };
    const refused = await lambda
      .send(new InvokeCommand({ FunctionName: context.invokedFunctionArn, InvocationType: 'Event', Payload: payload(next) }))
      .then(() => undefined, (error) => error.name);
    if (refused) console.log(JSON.stringify({ hop: event.hop, refused }));
  }
  return event.hop;
};`;

function chainFunction(recursiveLoop?: 'Allow' | 'Terminate'): CfnResource {
  return {
    Type: 'AWS::Lambda::Function',
    Properties: {
      Handler: 'index.handler',
      Runtime: 'nodejs22.x',
      Timeout: 10,
      ReservedConcurrentExecutions: 1,
      Role: { 'Fn::GetAtt': ['ChainRole', 'Arn'] },
      ...(recursiveLoop ? { RecursiveLoop: recursiveLoop } : {}),
    },
    Metadata: { 'aws:asset:path': 'asset.chain' },
  };
}

/**
 * One role for the three functions; a separate policy lets it invoke `Chain` (recursive loops
 * left to Lambda's default, Terminate) and `Loop` (RecursiveLoop Allow), not `Other`.
 */
const chainTemplate: CfnTemplate = {
  Resources: {
    ChainRole: {
      Type: 'AWS::IAM::Role',
      Properties: {
        AssumeRolePolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            { Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' },
          ],
        },
      },
    },
    Chain: chainFunction(),
    Loop: chainFunction('Allow'),
    Other: chainFunction(),
    ChainInvokesItself: {
      Type: 'AWS::IAM::Policy',
      Properties: {
        PolicyName: 'ChainInvokesItself',
        Roles: [{ Ref: 'ChainRole' }],
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Action: 'lambda:InvokeFunction',
              Resource: [{ 'Fn::GetAtt': ['Chain', 'Arn'] }, { 'Fn::GetAtt': ['Loop', 'Arn'] }],
            },
          ],
        },
      },
    },
  },
};

/** One line the chain handler logged. */
interface ChainEntry {
  readonly hop?: number;
  readonly trace?: string;
  readonly other?: string;
  readonly refused?: string;
}

/** The lines `fn`'s handler logged (from its `from`th log line on), parsed. */
function entriesOf(fn: LocalLambdaFunction, from = 0): ChainEntry[] {
  return fn.logs
    .slice(from)
    .map((l) => l.line.split('\t').pop() ?? '')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as ChainEntry);
}

/** The trace root of a trace header. */
const rootOf = (trace: string | undefined) => /Root=([^;]+)/.exec(trace ?? '')?.[1];

describe('a hosted function invoking itself through the local AWS endpoint', () => {
  let dir: string;
  let gateway: AwsGateway;
  let chain: LocalLambdaFunction;
  let loop: LocalLambdaFunction;
  const byArn = new Map<string, LocalLambdaFunction>();

  /** Resolves once `fn` logged an entry `done` accepts and ran everything it queued. */
  async function runUntil(
    fn: LocalLambdaFunction,
    done: (entry: ChainEntry) => boolean,
  ): Promise<ChainEntry[]> {
    const deadline = Date.now() + 30_000;
    while (!entriesOf(fn).some(done) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await fn.idle();
    return entriesOf(fn);
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'aws-gateway-lambda-'));
    await mkdir(join(dir, 'asset.chain'));
    await writeFile(join(dir, 'asset.chain', 'index.mjs'), CHAIN_HANDLER);
    gateway = await startAwsGateway({
      template: chainTemplate,
      target: TEST_TARGET,
      sqsEndpoint: 'http://127.0.0.1:9',
      invokeFunction: ({ functionArn, payload, traceHeader }) => {
        const fn = byArn.get(functionArn);
        if (!fn) throw new Error(`the test does not run ${functionArn}`);
        return fn.invokeAsync(payload, { traceHeader });
      },
    });
    await writeFile(join(dir, 'ca.pem'), gateway.caPem);
    const roleArn = gateway.stack.attribute('ChainRole', 'Arn');
    const host = async (logicalId: string) => {
      const credentials = gateway.issueRoleCredentials(roleArn, gateway.stack.ref(logicalId));
      const fn = await startLambdaFunction({
        stack: gateway.stack,
        logicalId,
        cdkOut: dir,
        sandboxParent: dir,
        asyncRetryDelaysMs: [],
        env: {
          AWS_ENDPOINT_URL: gateway.url,
          NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'),
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          AWS_ACCESS_KEY_ID: credentials.accessKeyId,
          AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
          AWS_SESSION_TOKEN: credentials.sessionToken ?? '',
        },
      });
      byArn.set(fn.arn, fn);
      return fn;
    };
    chain = await host('Chain');
    loop = await host('Loop');
  });

  afterAll(async () => {
    await chain?.stop();
    await loop?.stop();
    await gateway?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('runs each successor it invokes with its own ARN, one at a time, and is denied the other function', async () => {
    const other = gateway.stack.attribute('Other', 'Arn');
    await chain.invokeAsync({ hop: 0, other });
    const entries = await runUntil(chain, (e) => e.hop === 2);
    expect(entries.map(({ trace: _, ...entry }) => entry)).toEqual([
      { hop: 0 },
      { other: 'AccessDeniedException' },
      { hop: 1 },
      { hop: 2 },
    ]);
    // Each hop ran with the trace of the call that invoked it: one root, one more invocation each.
    const traces = entries.flatMap((e) => (e.trace ? [e.trace] : []));
    expect(traces.map((trace) => invocationsOf(trace, chain.arn))).toEqual([1, 2, 3]);
    expect(new Set(traces.map(rootOf)).size).toBe(1);
    expect(chain.stats).toMatchObject({
      invocations: 3,
      errors: 0,
      peakConcurrency: 1,
      containersStarted: 1,
    });
    expect(gateway.calls.map((c) => [c.action, c.resource, c.allowed])).toEqual([
      ['lambda:InvokeFunction', other, false],
      ['lambda:InvokeFunction', chain.arn, true],
      ['lambda:InvokeFunction', chain.arn, true],
    ]);
    expect(gateway.failures).toEqual([]);
  }, 40_000);

  it('is stopped after 16 invocations by one event, unless its RecursiveLoop is Allow', async () => {
    const from = chain.logs.length;
    await chain.invokeAsync({ hop: 0, until: 30 });
    await runUntil(chain, (e) => e.refused !== undefined);
    const stopped = entriesOf(chain, from);
    expect(stopped.filter((e) => e.trace).map((e) => e.hop)).toEqual([...Array(16).keys()]);
    expect(stopped.at(-1)).toEqual({ hop: 15, refused: 'RecursiveInvocationException' });

    await loop.invokeAsync({ hop: 0, until: 20 });
    const allowed = await runUntil(loop, (e) => e.hop === 20);
    expect(allowed.map((e) => e.hop)).toEqual([...Array(21).keys()]);
    expect(allowed.some((e) => e.refused)).toBe(false);
    expect(invocationsOf(allowed.at(-1)?.trace, loop.arn)).toBe(21);
    expect(gateway.failures).toEqual([]);
  }, 40_000);
});
