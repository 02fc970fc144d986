/**
 * A running local Lambda function (started by lambda-host.ts): a pool of containers
 * (lambda-container.ts) that initialize once and stay warm, one invocation at a time each, at most
 * `concurrency` of them; further invocations wait for a free one. Synchronous invocations answer the
 * handler's result or a {@link FunctionError} typed as Lambda types it; a container that failed to
 * initialize, timed out, crashed or exited after an unhandled rejection is discarded, and the next
 * invocation starts a new one. Asynchronous invocations queue the same way; failed ones are logged
 * and retried after `asyncRetryDelaysMs` (Lambda: twice, one then two minutes later).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ContainerOutcome, type FunctionErrorPayload, LambdaContainer } from './lambda-container.ts';
import type { LambdaTaskRoot } from './lambda-task-root.ts';
import { invocationTraceHeader } from './lambda-trace-header.ts';

/** A function error: what Lambda answers with `X-Amz-Function-Error`. */
export class FunctionError extends Error {
  override readonly name = 'FunctionError';
  readonly errorType: string;
  readonly errorMessage: string;
  readonly trace: readonly string[];

  constructor(payload: Readonly<FunctionErrorPayload>) {
    super(`${payload.errorType}: ${payload.errorMessage}`);
    this.errorType = payload.errorType;
    this.errorMessage = payload.errorMessage;
    this.trace = payload.trace ?? [];
  }
}

/** The function was stopped while the invocation waited or ran. */
export class LambdaStoppedError extends Error {
  override readonly name = 'LambdaStoppedError';
}

/** How one invocation ended. */
export type InvocationOutcome =
  | { readonly ok: true; readonly requestId: string; readonly result: unknown }
  | { readonly ok: false; readonly requestId: string; readonly error: FunctionError };

/** What caused an invocation, as far as Lambda tracks it. */
export interface InvocationCause {
  /**
   * The `X-Amzn-Trace-Id` of the call that invoked the function (a Lambda Invoke from another
   * invocation): the invocation continues its trace and lineage (lambda-trace-header.ts).
   */
  readonly traceHeader?: string | undefined;
}

/** One line a container wrote. */
export interface LambdaLogLine {
  readonly functionName: string;
  readonly containerId: number;
  readonly stream: 'stdout' | 'stderr';
  /** The invocation running when the line was written (none during init). */
  readonly requestId?: string;
  readonly line: string;
}

/** A running local function. */
export interface LocalLambdaFunction {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  readonly timeoutSeconds: number;
  readonly memorySize: number;
  /** Containers (concurrent invocations) at most. */
  readonly concurrency: number;
  /** Every line the containers wrote, oldest first (the last 10 000). */
  readonly logs: readonly LambdaLogLine[];
  readonly stats: LambdaStats;
  /** Runs `event`; the handler sees the invocation's trace header in `_X_AMZN_TRACE_ID`. */
  invoke(event: unknown, cause?: InvocationCause): Promise<InvocationOutcome>;
  /** Queues `event` (resolves at once with its request id); retries keep its id and trace. */
  invokeAsync(event: unknown, cause?: InvocationCause): Promise<{ requestId: string }>;
  /** Resolves when no invocation runs or waits (retries not yet due aside). */
  idle(): Promise<void>;
  /**
   * Kills every container's process group at once, as a crash of their execution environments (out
   * of memory, a runtime fault): the invocations they ran end with `Runtime.ExitError` (an
   * asynchronous one is then retried), the next invocation starts a new container. Answers how many
   * containers were alive.
   */
  crash(): number;
  /** Kills every container's process group and removes the sandbox. */
  stop(): Promise<void>;
}

/** Counters for tests. */
export interface LambdaStats {
  containersStarted: number;
  invocations: number;
  errors: number;
  /** The most invocations that ran at once. */
  peakConcurrency: number;
  /** Asynchronous invocations that failed, retries included. */
  asyncFailures: number;
}

/** How the host runs the function's containers. */
export interface FunctionRuntimeSettings {
  readonly logicalId: string;
  /** Variables set last: credentials, `AWS_ENDPOINT_URL`, `NODE_EXTRA_CA_CERTS`… */
  readonly env?: Readonly<Record<string, string>>;
  readonly onLog?: (line: LambdaLogLine) => void;
  /** Lambda's on-demand init limit (default 10 s). */
  readonly initTimeoutMs?: number;
  /** Waits before the retries of a failed asynchronous invocation (default one, then two minutes). */
  readonly asyncRetryDelaysMs?: readonly number[];
}

/** What the template says about the function, resolved. */
export interface FunctionIdentity {
  readonly name: string;
  readonly arn: string;
  readonly timeoutSeconds: number;
  readonly memorySize: number;
  readonly concurrency: number;
  /** The function's environment but the per-container variables. */
  readonly env: Readonly<Record<string, string>>;
}

const shimPath = fileURLToPath(new URL('./lambda-runtime-shim.mjs', import.meta.url));
const MAX_LOG_LINES = 10_000;

/**
 * The Node.js options the Lambda runtime's bootstrap passes: `--expose-gc`, the larger HTTP header
 * limit, and heap sizes from the function's memory (a tenth for the young generation).
 */
function runtimeNodeArgs(memorySize: number): string[] {
  const newSpace = Math.floor(memorySize / 10);
  return [
    '--expose-gc',
    '--max-http-header-size=81920',
    `--max-semi-space-size=${Math.floor(newSpace / 2)}`,
    `--max-old-space-size=${memorySize - newSpace}`,
  ];
}

/** Lambda's log stream name for a new execution environment. */
function logStreamName(): string {
  const day = new Date().toISOString().slice(0, 10).replaceAll('-', '/');
  return `${day}/[$LATEST]${randomBytes(16).toString('hex')}`;
}

/** The running function (see the file comment). */
export class LocalFunction implements LocalLambdaFunction {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  readonly timeoutSeconds: number;
  readonly memorySize: number;
  readonly concurrency: number;
  readonly logs: LambdaLogLine[] = [];
  readonly stats: LambdaStats = {
    containersStarted: 0,
    invocations: 0,
    errors: 0,
    peakConcurrency: 0,
    asyncFailures: 0,
  };
  private readonly warm: LambdaContainer[] = [];
  private readonly containers = new Set<LambdaContainer>();
  private readonly waiting: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private readonly idleWaiters: Array<() => void> = [];
  private active = 0;
  private queued = 0;
  private stopped = false;

  constructor(
    private readonly options: Readonly<FunctionRuntimeSettings>,
    private readonly task: LambdaTaskRoot,
    private readonly identity: FunctionIdentity,
  ) {
    this.logicalId = options.logicalId;
    ({
      name: this.name,
      arn: this.arn,
      timeoutSeconds: this.timeoutSeconds,
      memorySize: this.memorySize,
      concurrency: this.concurrency,
    } = identity);
  }

  invoke(event: unknown, cause: InvocationCause = {}): Promise<InvocationOutcome> {
    return this.invokeAs(randomUUID(), event, invocationTraceHeader(cause.traceHeader, this.arn));
  }

  /** One invocation under `requestId` (an asynchronous one keeps its id and trace across retries). */
  private async invokeAs(requestId: string, event: unknown, traceId: string): Promise<InvocationOutcome> {
    this.queued++;
    try {
      await this.acquire();
    } finally {
      this.queued--;
    }
    this.stats.invocations++;
    this.stats.peakConcurrency = Math.max(this.stats.peakConcurrency, this.active);
    try {
      const outcome = await this.run(requestId, event, traceId);
      if (!outcome.ok) this.stats.errors++;
      return outcome;
    } finally {
      this.release();
    }
  }

  async invokeAsync(event: unknown, cause: InvocationCause = {}): Promise<{ requestId: string }> {
    if (this.stopped) throw new LambdaStoppedError(`${this.name} is stopped`);
    const requestId = randomUUID();
    const traceId = invocationTraceHeader(cause.traceHeader, this.arn);
    const delays = this.options.asyncRetryDelaysMs ?? [60_000, 120_000];
    const attempt = (retry: number): void => {
      void this.invokeAs(requestId, event, traceId).then(
        (outcome) => {
          if (outcome.ok) return;
          this.stats.asyncFailures++;
          this.log(`asynchronous invocation failed: ${outcome.error.message}`);
          const delay = delays[retry];
          if (delay === undefined || this.stopped) return;
          const timer = setTimeout(() => {
            this.retryTimers.delete(timer);
            attempt(retry + 1);
          }, delay);
          this.retryTimers.add(timer);
        },
        () => undefined,
      );
    };
    attempt(0);
    return { requestId };
  }

  idle(): Promise<void> {
    if (this.active === 0 && this.queued === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  crash(): number {
    const alive = [...this.containers].filter((container) => container.alive);
    for (const container of alive) container.kill();
    return alive.length;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.retryTimers) clearTimeout(timer);
    for (const waiter of this.waiting.splice(0))
      waiter.reject(new LambdaStoppedError(`${this.name} stopped`));
    const containers = [...this.containers];
    for (const container of containers) container.kill();
    await Promise.all(
      containers.map((c) => Promise.race([c.closed, new Promise((r) => setTimeout(r, 2_000))])),
    );
    await rm(this.task.root, { recursive: true, force: true });
  }

  private acquire(): Promise<void> {
    if (this.stopped) return Promise.reject(new LambdaStoppedError(`${this.name} is stopped`));
    if (this.active < this.concurrency) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next.resolve();
    else this.active--;
    if (this.active === 0 && this.queued === 0) for (const done of this.idleWaiters.splice(0)) done();
  }

  private async run(requestId: string, event: unknown, traceId: string): Promise<InvocationOutcome> {
    let container = this.warm.pop();
    while (container && !container.alive) {
      this.containers.delete(container);
      container = this.warm.pop();
    }
    container ??= await this.startContainer();
    const init = await container.initialized;
    if (init.kind !== 'ready') return this.discard(container, requestId, init, 'init');
    const deadline = Date.now() + this.timeoutSeconds * 1000;
    const outcome = await container.invoke(
      requestId,
      { event, deadline, invokedFunctionArn: this.arn, traceId },
      this.timeoutSeconds * 1000,
    );
    if (outcome.kind === 'result') {
      this.warm.push(container);
      return { ok: true, requestId, result: JSON.parse(outcome.payload) };
    }
    // After an unhandled rejection the runtime exits: the container is not reused.
    if (
      outcome.kind === 'error' &&
      container.alive &&
      outcome.error.errorType !== 'Runtime.UnhandledPromiseRejection'
    ) {
      this.warm.push(container);
      return { ok: false, requestId, error: new FunctionError(outcome.error) };
    }
    return this.discard(container, requestId, outcome, 'invoke');
  }

  /** Kills a container that failed to init or died, and the invocation's error. */
  private discard(
    container: LambdaContainer,
    requestId: string,
    outcome: ContainerOutcome,
    phase: 'init' | 'invoke',
  ): InvocationOutcome {
    container.kill();
    this.containers.delete(container);
    const seconds = (
      phase === 'init' ? (this.options.initTimeoutMs ?? 10_000) / 1000 : this.timeoutSeconds
    ).toFixed(2);
    const payload: FunctionErrorPayload =
      outcome.kind === 'error'
        ? outcome.error
        : outcome.kind === 'timeout'
          ? {
              errorType: 'Sandbox.Timedout',
              errorMessage: `${requestId} Task timed out after ${seconds} seconds`,
            }
          : {
              errorType: 'Runtime.ExitError',
              errorMessage: `RequestId: ${requestId} Error: Runtime exited ${
                outcome.kind === 'exit' && outcome.signal
                  ? `with signal: ${outcome.signal}`
                  : `with error: exit status ${outcome.kind === 'exit' ? outcome.code : '?'}`
              }`,
            };
    if (this.stopped)
      return {
        ok: false,
        requestId,
        error: new FunctionError({ errorType: 'LambdaStopped', errorMessage: `${this.name} stopped` }),
      };
    return { ok: false, requestId, error: new FunctionError(payload) };
  }

  private async startContainer(): Promise<LambdaContainer> {
    const id = ++this.stats.containersStarted;
    const tmp = join(this.task.root, 'tmp', String(id));
    await mkdir(tmp, { recursive: true });
    const container = new LambdaContainer({
      id,
      nodeArgs: [...this.task.nodeArgs, ...runtimeNodeArgs(this.memorySize)],
      shimPath,
      cwd: this.task.taskDir,
      env: {
        ...this.identity.env,
        AWS_LAMBDA_LOG_STREAM_NAME: logStreamName(),
        TMPDIR: tmp,
        ...this.options.env,
        PATH: process.env.PATH ?? '/usr/bin:/bin',
      },
      initTimeoutMs: this.options.initTimeoutMs ?? 10_000,
      onLine: (line, stream, requestId) => {
        const entry: LambdaLogLine = {
          functionName: this.name,
          containerId: id,
          stream,
          line,
          ...(requestId ? { requestId } : {}),
        };
        this.logs.push(entry);
        if (this.logs.length > MAX_LOG_LINES) this.logs.shift();
        this.options.onLog?.(entry);
      },
    });
    this.containers.add(container);
    if (this.stopped) container.kill();
    return container;
  }

  private log(message: string): void {
    const entry: LambdaLogLine = {
      functionName: this.name,
      containerId: 0,
      stream: 'stderr',
      line: `[harness] ${message}`,
    };
    this.logs.push(entry);
    this.options.onLog?.(entry);
  }
}
