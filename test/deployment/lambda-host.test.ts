/**
 * Local Lambda functions running small handler bundles, written into a temp cloud assembly, in real
 * child processes.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type CfnResource, type CfnTemplate, DeployedStack } from '../support/aws/deployed-stack.ts';
import {
  type LambdaLogLine,
  type LocalLambdaFunction,
  startLambdaFunction,
} from '../support/aws/lambda-host.ts';

const bundles: Record<string, Record<string, string>> = {
  echo: {
    'index.mjs': `
      let invocations = 0;
      export const handler = async (event, context) => {
        invocations += 1;
        console.log('seen', JSON.stringify(event));
        if (event.loadSdk) await import('@aws-sdk/client-sqs');
        const { getRemainingTimeInMillis, ...fields } = context;
        return { event, invocations, pid: process.pid, env: process.env, context: fields, remaining: getRemainingTimeInMillis() };
      };`,
  },
  thrower: {
    'index.mjs': `export const handler = async () => { throw new TypeError('bad input'); };`,
  },
  callback: {
    'index.js': `exports.handler = (event, context, callback) => { setTimeout(() => callback(null, { via: 'callback', event }), 10); };`,
  },
  sleeper: {
    'index.mjs': `
      import { spawn } from 'node:child_process';
      export const handler = async (event) => {
        const child = spawn('sleep', ['30'], { stdio: 'ignore' });
        console.log(JSON.stringify({ grandchild: child.pid }));
        await new Promise((resolve) => setTimeout(resolve, event.ms));
        child.kill();
        return 'woke';
      };`,
  },
  crasher: { 'index.mjs': `export const handler = async () => { process.exit(3); };` },
  initFails: { 'index.mjs': `throw new Error('init boom');\nexport const handler = async () => 1;` },
  rejecter: {
    'index.mjs': `export const handler = async () => { Promise.reject(new Error('nobody waits')); await new Promise((r) => setTimeout(r, 100)); return 1; };`,
  },
};

function fn(asset: string, props: Record<string, unknown> = {}): CfnResource {
  return {
    Type: 'AWS::Lambda::Function',
    Properties: { Handler: 'index.handler', Runtime: 'nodejs22.x', Timeout: 5, ...props },
    Metadata: { 'aws:asset:path': `asset.${asset}` },
  };
}

const template: CfnTemplate = {
  Resources: {
    Queue: { Type: 'AWS::SQS::Queue' },
    Logs: { Type: 'AWS::Logs::LogGroup', Properties: { LogGroupName: '/everynode/echo' } },
    Echo: fn('echo', {
      Timeout: 2,
      MemorySize: 256,
      Environment: { Variables: { QUEUE_URL: { Ref: 'Queue' }, PLAIN: 'x' } },
      LoggingConfig: { LogFormat: 'JSON', LogGroup: { Ref: 'Logs' } },
    }),
    Thrower: fn('thrower'),
    Callback: fn('callback'),
    Sleeper: fn('sleeper', { Timeout: 1 }),
    Crasher: fn('crasher'),
    InitFails: fn('initFails'),
    Missing: fn('echo', { Handler: 'missing.handler' }),
    NoExport: fn('echo', { Handler: 'index.nope' }),
    Rejecter: fn('rejecter'),
    Pair: fn('sleeper', { ReservedConcurrentExecutions: 2 }),
  },
};

const stack = new DeployedStack(template, {
  account: '111122223333',
  region: 'eu-west-1',
  stackName: 'Everynode',
  endpoint: 'https://127.0.0.1:4566',
});

/** What the echo handler answers. */
interface EchoResult {
  readonly event: unknown;
  readonly invocations: number;
  readonly pid: number;
  readonly env: Record<string, string | undefined>;
  readonly context: Record<string, unknown>;
  readonly remaining: number;
}

/** The pid the sleeper logged (text log format: `time\trequestId\tINFO\tmessage`). */
function grandchildOf(f: LocalLambdaFunction): number {
  const line = f.logs.find((l) => l.line.includes('grandchild'))?.line ?? '';
  return JSON.parse(line.split('\t').pop() ?? '{}').grandchild;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('local Lambda functions', () => {
  let cdkOut: string;
  const started: LocalLambdaFunction[] = [];
  const start = async (
    logicalId: string,
    extra: { maxContainers?: number; onLog?: (l: LambdaLogLine) => void } = {},
  ) => {
    const f = await startLambdaFunction({
      stack,
      logicalId,
      cdkOut,
      sandboxParent: cdkOut,
      env: { AWS_ACCESS_KEY_ID: 'AKIDLOCAL', AWS_ENDPOINT_URL: 'https://127.0.0.1:4566' },
      asyncRetryDelaysMs: [50],
      ...extra,
    });
    started.push(f);
    return f;
  };

  beforeAll(async () => {
    cdkOut = await mkdtemp(join(tmpdir(), 'lambda-host-test-'));
    for (const [asset, files] of Object.entries(bundles)) {
      await mkdir(join(cdkOut, `asset.${asset}`));
      for (const [file, text] of Object.entries(files))
        await writeFile(join(cdkOut, `asset.${asset}`, file), text);
    }
  });
  afterEach(async () => {
    await Promise.all(started.splice(0).map((f) => f.stop()));
  });
  afterAll(async () => {
    await rm(cdkOut, { recursive: true, force: true });
  });

  it('runs the bundle in a warm child process with the function environment and the Lambda context', async () => {
    process.env.EVERYNODE_TEST_SECRET = 'must not leak';
    const seen: LambdaLogLine[] = [];
    const echo = await start('Echo', { onLog: (line) => seen.push(line) });
    delete process.env.EVERYNODE_TEST_SECRET;
    const first = await echo.invoke({ hello: 'world', loadSdk: true });
    const second = await echo.invoke({ again: true });
    if (!first.ok || !second.ok) throw new Error('the echo handler failed');
    const one = first.result as EchoResult;
    const two = second.result as EchoResult;
    expect(one.event).toEqual({ hello: 'world', loadSdk: true });
    expect([one.invocations, two.invocations, two.pid]).toEqual([1, 2, one.pid]);
    expect(echo.stats.containersStarted).toBe(1);
    expect(one.pid).not.toBe(process.pid);
    expect(one.env).toMatchObject({
      QUEUE_URL: 'https://127.0.0.1:4566/111122223333/Everynode-Queue',
      PLAIN: 'x',
      AWS_REGION: 'eu-west-1',
      AWS_DEFAULT_REGION: 'eu-west-1',
      AWS_LAMBDA_FUNCTION_NAME: 'Everynode-Echo',
      AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '256',
      AWS_LAMBDA_LOG_GROUP_NAME: '/everynode/echo',
      AWS_LAMBDA_LOG_FORMAT: 'JSON',
      AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
      AWS_ACCESS_KEY_ID: 'AKIDLOCAL',
      AWS_ENDPOINT_URL: 'https://127.0.0.1:4566',
      PATH: process.env.PATH,
      _HANDLER: 'index.handler',
    });
    expect(one.env.LAMBDA_TASK_ROOT).toMatch(/var\/task$/);
    expect(one.env.AWS_LAMBDA_LOG_STREAM_NAME).toMatch(/^\d{4}\/\d{2}\/\d{2}\/\[\$LATEST\][0-9a-f]{32}$/);
    expect(one.env.EVERYNODE_TEST_SECRET).toBeUndefined();
    expect(one.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED).toBeUndefined();
    expect(one.context).toEqual({
      callbackWaitsForEmptyEventLoop: true,
      functionName: 'Everynode-Echo',
      functionVersion: '$LATEST',
      invokedFunctionArn: 'arn:aws:lambda:eu-west-1:111122223333:function:Everynode-Echo',
      memoryLimitInMB: '256',
      awsRequestId: first.requestId,
      logGroupName: '/everynode/echo',
      logStreamName: one.env.AWS_LAMBDA_LOG_STREAM_NAME,
    });
    expect(one.remaining).toBeGreaterThan(1000);
    expect(one.remaining).toBeLessThanOrEqual(2000);
    const line = seen.find((l) => l.requestId === first.requestId);
    expect(JSON.parse(line?.line ?? '{}')).toMatchObject({
      level: 'INFO',
      requestId: first.requestId,
      message: 'seen {"hello":"world","loadSdk":true}',
    });
    expect(echo.logs).toEqual(seen);
  });

  it('answers handler errors as function errors and keeps the container; runs callback handlers', async () => {
    const thrower = await start('Thrower');
    const [a, b] = [await thrower.invoke({}), await thrower.invoke({})];
    expect(a.ok || b.ok).toBe(false);
    if (a.ok) return;
    expect([a.error.errorType, a.error.errorMessage]).toEqual(['TypeError', 'bad input']);
    expect(a.error.trace[0]).toContain('TypeError: bad input');
    expect(thrower.stats).toMatchObject({ containersStarted: 1, invocations: 2, errors: 2 });
    const callback = await start('Callback');
    expect(await callback.invoke({ n: 1 })).toMatchObject({
      ok: true,
      result: { via: 'callback', event: { n: 1 } },
    });
  });

  it('types init failures as Lambda does and initializes again on the next invocation', async () => {
    const cases: Array<[string, string, RegExp]> = [
      ['InitFails', 'Error', /init boom/],
      ['Missing', 'Runtime.ImportModuleError', /Cannot find module 'missing'/],
      ['NoExport', 'Runtime.HandlerNotFound', /index.nope is undefined or not exported/],
    ];
    for (const [logicalId, errorType, message] of cases) {
      const f = await start(logicalId);
      const outcomes = [await f.invoke({}), await f.invoke({})];
      for (const outcome of outcomes) {
        expect(outcome.ok).toBe(false);
        if (!outcome.ok)
          expect([outcome.error.errorType, outcome.error.errorMessage]).toEqual([
            errorType,
            expect.stringMatching(message),
          ]);
      }
      expect(f.stats.containersStarted).toBe(2);
    }
  });

  it('kills a timed-out container with its process group and replaces it', async () => {
    const sleeper = await start('Sleeper');
    const timedOut = await sleeper.invoke({ ms: 3000 });
    expect(timedOut.ok).toBe(false);
    if (timedOut.ok) return;
    expect(timedOut.error.errorType).toBe('Sandbox.Timedout');
    expect(timedOut.error.errorMessage).toBe(`${timedOut.requestId} Task timed out after 1.00 seconds`);
    const grandchild = grandchildOf(sleeper);
    expect(typeof grandchild).toBe('number');
    await expect.poll(() => alive(grandchild), { timeout: 2000 }).toBe(false);
    expect(await sleeper.invoke({ ms: 10 })).toMatchObject({ ok: true, result: 'woke' });
    expect(sleeper.stats.containersStarted).toBe(2);
  });

  it('reports a crash and an unhandled rejection, then starts a new container', async () => {
    const crasher = await start('Crasher');
    const crashed = await crasher.invoke({});
    expect(crashed.ok ? 'ok' : [crashed.error.errorType, crashed.error.errorMessage]).toEqual([
      'Runtime.ExitError',
      `RequestId: ${crashed.requestId} Error: Runtime exited with error: exit status 3`,
    ]);
    const rejecter = await start('Rejecter');
    const rejected = await rejecter.invoke({});
    expect(rejected.ok ? 'ok' : rejected.error.errorType).toBe('Runtime.UnhandledPromiseRejection');
    expect(await rejecter.invoke({})).toMatchObject({ ok: false });
    expect(rejecter.stats.containersStarted).toBe(2);
  });

  it('runs at most ReservedConcurrentExecutions containers; asynchronous invocations queue and retry', async () => {
    const pair = await start('Pair');
    expect(pair.concurrency).toBe(2);
    const began = Date.now();
    const outcomes = await Promise.all([1, 2, 3, 4].map(() => pair.invoke({ ms: 300 })));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(Date.now() - began).toBeGreaterThanOrEqual(600);
    expect(pair.stats).toMatchObject({ containersStarted: 2, peakConcurrency: 2 });

    const thrower = await start('Thrower');
    const accepted = Date.now();
    await thrower.invokeAsync({ async: true });
    expect(Date.now() - accepted).toBeLessThan(50);
    expect(thrower.stats.asyncFailures).toBe(0);
    await expect.poll(() => thrower.stats.asyncFailures, { timeout: 5000 }).toBe(2);
    await thrower.idle();
    expect(thrower.stats.invocations).toBe(2);
  });

  it('stops every container', async () => {
    const pair = await start('Pair');
    const running = pair.invoke({ ms: 5000 });
    await expect.poll(() => pair.logs.length, { timeout: 5000 }).toBeGreaterThan(0);
    const grandchild = grandchildOf(pair);
    await pair.stop();
    await expect.poll(() => alive(grandchild), { timeout: 2000 }).toBe(false);
    expect(await running).toMatchObject({ ok: false });
    await expect(pair.invoke({})).rejects.toThrow(/stopped/);
  });
});
