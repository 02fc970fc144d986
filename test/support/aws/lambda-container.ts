/**
 * One execution environment ("container") of a local Lambda function (lambda-host.ts): a Node.js
 * child process in its own process group, running lambda-runtime-shim.mjs in the function's task
 * root with the function's environment. It initializes once, then runs one invocation at a time
 * until it is killed: on a timeout, a crash, or when the function stops.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** A function error as Lambda reports it (`errorType`, `errorMessage`, `trace`). */
export interface FunctionErrorPayload {
  readonly errorType: string;
  readonly errorMessage: string;
  readonly trace?: readonly string[];
}

/** How an init or an invocation ended. */
export type ContainerOutcome =
  | { readonly kind: 'ready' }
  | { readonly kind: 'result'; readonly payload: string }
  | { readonly kind: 'error'; readonly error: FunctionErrorPayload }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'exit'; readonly code: number | null; readonly signal: NodeJS.Signals | null };

/** What a container is started with. */
export interface ContainerLaunch {
  readonly id: number;
  readonly nodeArgs: readonly string[];
  readonly shimPath: string;
  /** The task root (`LAMBDA_TASK_ROOT`), the process's working directory. */
  readonly cwd: string;
  /** The whole environment of the process. */
  readonly env: Readonly<Record<string, string>>;
  readonly initTimeoutMs: number;
  /** Each line the process writes, with the request it ran for, if any. */
  readonly onLine: (line: string, stream: 'stdout' | 'stderr', requestId: string | undefined) => void;
}

const END_MARK = '\u001e';
/** How long an answered invocation waits for its end markers (its last log lines) at most. */
const MARKER_GRACE_MS = 1_000;

interface Running {
  readonly requestId: string;
  readonly marks: Set<'stdout' | 'stderr'>;
  answer?: ContainerOutcome;
  settle(outcome: ContainerOutcome): void;
}

/** A running container process (see the file comment). */
export class LambdaContainer {
  readonly id: number;
  /** `ready`, or how the init failed (the container is then dead). */
  readonly initialized: Promise<ContainerOutcome>;
  /** Resolves when the process has exited and its output is read. */
  readonly closed: Promise<void>;
  private readonly child: ChildProcess;
  private running: Running | undefined;
  private exitOutcome: ContainerOutcome | undefined;

  constructor(private readonly launch: ContainerLaunch) {
    this.id = launch.id;
    this.child = spawn(process.execPath, [...launch.nodeArgs, launch.shimPath], {
      cwd: launch.cwd,
      env: { ...launch.env },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      detached: true,
    });
    for (const stream of ['stdout', 'stderr'] as const) {
      const source = this.child[stream];
      if (source) createInterface({ input: source }).on('line', (line) => this.onLine(line, stream));
    }
    this.closed = new Promise((resolve) => {
      this.child.on('close', (code, signal) => {
        this.exitOutcome = { kind: 'exit', code, signal };
        this.running?.settle(this.exitOutcome);
        resolve();
      });
      this.child.on('error', () => resolve());
    });
    this.initialized = this.track('init', launch.initTimeoutMs);
    this.child.on(
      'message',
      (message: { type: string; requestId?: string; payload?: string; error?: FunctionErrorPayload }) => {
        const running = this.running;
        if (!running) return;
        if (message.type === 'ready') running.settle({ kind: 'ready' });
        else if (message.type === 'init-error' && message.error)
          running.settle({ kind: 'error', error: message.error });
        else if (message.requestId === running.requestId) {
          running.answer =
            message.type === 'result'
              ? { kind: 'result', payload: message.payload ?? 'null' }
              : {
                  kind: 'error',
                  error: message.error ?? { errorType: 'Runtime.Unknown', errorMessage: 'no error' },
                };
          this.settleWhenMarked(running);
        }
      },
    );
  }

  /** Whether the process still runs. */
  get alive(): boolean {
    return this.exitOutcome === undefined;
  }

  /** Runs one invocation; a timeout kills the container. */
  invoke(
    requestId: string,
    message: Readonly<Record<string, unknown>>,
    timeoutMs: number,
  ): Promise<ContainerOutcome> {
    if (this.running) throw new Error(`container ${this.id} is busy`);
    const outcome = this.track(requestId, timeoutMs);
    if (this.alive) this.child.send({ type: 'invoke', requestId, ...message });
    return outcome;
  }

  /** Kills the container's whole process group. */
  kill(): void {
    if (!this.alive || this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }

  private track(requestId: string, timeoutMs: number): Promise<ContainerOutcome> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.kill();
        running.settle({ kind: 'timeout' });
      }, timeoutMs);
      const running: Running = {
        requestId,
        marks: new Set(),
        settle: (outcome) => {
          if (this.running !== running) return;
          clearTimeout(timer);
          this.running = undefined;
          resolve(outcome);
        },
      };
      this.running = running;
      if (this.exitOutcome) running.settle(this.exitOutcome);
    });
  }

  private settleWhenMarked(running: Running): void {
    const { answer } = running;
    if (!answer) return;
    if (running.marks.size === 2) running.settle(answer);
    else setTimeout(() => running.settle(answer), MARKER_GRACE_MS).unref();
  }

  private onLine(line: string, stream: 'stdout' | 'stderr'): void {
    const running = this.running;
    if (line.startsWith(END_MARK)) {
      if (running && line === `${END_MARK}${running.requestId}`) {
        running.marks.add(stream);
        this.settleWhenMarked(running);
      }
      return;
    }
    const requestId = running && running.requestId !== 'init' ? running.requestId : undefined;
    this.launch.onLine(line, stream, requestId);
  }
}
