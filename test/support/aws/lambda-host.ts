/**
 * A template's `AWS::Lambda::Function` run offline as Lambda runs it: its bundle
 * (`<cdkOut>/<Metadata aws:asset:path>`) laid out as a task root (lambda-task-root.ts), executed in
 * containers — child Node.js processes (lambda-container.ts) with the function's environment — that
 * initialize once and stay warm across invocations, one invocation at a time each.
 *
 * - The environment is the template's `Environment.Variables` resolved by the DeployedStack, what
 *   Lambda sets (region, function name, version, memory, log group and stream, log format, init
 *   type, the runtime's module loading) and the caller's `env` (credentials, endpoint, CA); of the
 *   test process's own environment only PATH. Each container gets its own TMPDIR (Lambda's /tmp).
 * - `invoke` is the synchronous invocation event source mappings make: it resolves with the handler's
 *   result or a {@link FunctionError} typed as Lambda types it — the handler's throw, an init failure
 *   (the container is discarded, the next invocation initializes again), `Sandbox.Timedout` after the
 *   template's `Timeout` (the container is killed and replaced), `Runtime.ExitError` for a crash.
 * - At most `maxContainers` containers run (default `ReservedConcurrentExecutions`, else 1); further
 *   invocations wait for a free one.
 * - `invokeAsync` is the asynchronous invocation EventBridge makes: accepted at once, queued until a
 *   container is free, errors logged and retried twice, one then two minutes later, as Lambda does
 *   (`asyncRetryDelaysMs`).
 */
import { join } from 'node:path';
import type { DeployedStack } from './deployed-stack.ts';
import { type LambdaLogLine, LocalFunction, type LocalLambdaFunction } from './lambda-function.ts';
import { type LambdaTaskRoot, layOutTaskRoot } from './lambda-task-root.ts';

export {
  FunctionError,
  type InvocationCause,
  type InvocationOutcome,
  type LambdaLogLine,
  type LambdaStats,
  LambdaStoppedError,
  type LocalLambdaFunction,
} from './lambda-function.ts';

export interface LambdaFunctionOptions {
  readonly stack: DeployedStack;
  readonly logicalId: string;
  /** The cloud assembly folder holding the function's `asset.*` folder. */
  readonly cdkOut: string;
  /** Variables set last: credentials, `AWS_ENDPOINT_URL`, `NODE_EXTRA_CA_CERTS`… */
  readonly env?: Readonly<Record<string, string>>;
  readonly onLog?: (line: LambdaLogLine) => void;
  readonly maxContainers?: number;
  /** Where the sandbox folder is made (default the system temp dir). */
  readonly sandboxParent?: string;
  /** Lambda's on-demand init limit (default 10 s). */
  readonly initTimeoutMs?: number;
  /** Waits before the retries of a failed asynchronous invocation (default one, then two minutes). */
  readonly asyncRetryDelaysMs?: readonly number[];
}

interface CfnFunction {
  readonly Handler?: string;
  readonly Runtime?: string;
  readonly Timeout?: number;
  readonly MemorySize?: number;
  readonly ReservedConcurrentExecutions?: number;
  readonly FunctionName?: string;
}

/** The function's own variables and what Lambda sets (without the per-container stream). */
function functionEnvironment(options: Readonly<LambdaFunctionOptions>, task: LambdaTaskRoot) {
  const { stack, logicalId } = options;
  const raw = stack.resource(logicalId).Properties ?? {};
  const props = raw as CfnFunction;
  const variables = stack.resolve<Record<string, unknown>>(
    (raw.Environment as { Variables?: unknown } | undefined)?.Variables ?? {},
  );
  const logging = stack.resolve<{ LogFormat?: string; LogGroup?: string; ApplicationLogLevel?: string }>(
    raw.LoggingConfig ?? {},
  );
  const name = stack.ref(logicalId);
  return {
    ...Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, String(v)])),
    AWS_REGION: stack.region,
    AWS_DEFAULT_REGION: stack.region,
    AWS_LAMBDA_FUNCTION_NAME: name,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(props.MemorySize ?? 128),
    AWS_LAMBDA_LOG_GROUP_NAME: logging.LogGroup ?? `/aws/lambda/${name}`,
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    ...(logging.LogFormat ? { AWS_LAMBDA_LOG_FORMAT: logging.LogFormat } : {}),
    ...(logging.ApplicationLogLevel ? { AWS_LAMBDA_LOG_LEVEL: logging.ApplicationLogLevel } : {}),
    ...task.env,
    AWS_EXECUTION_ENV: `AWS_Lambda_${props.Runtime}`,
  };
}

/** Starts the function `logicalId` of `stack` (no container runs before the first invocation). */
export async function startLambdaFunction(
  options: Readonly<LambdaFunctionOptions>,
): Promise<LocalLambdaFunction> {
  const { stack, logicalId } = options;
  const resource = stack.resource(logicalId);
  if (resource.Type !== 'AWS::Lambda::Function') throw new Error(`${logicalId} is a ${resource.Type}`);
  const props = stack.resolve<CfnFunction>({
    Handler: resource.Properties?.Handler,
    Runtime: resource.Properties?.Runtime,
    Timeout: resource.Properties?.Timeout,
    MemorySize: resource.Properties?.MemorySize,
    ReservedConcurrentExecutions: resource.Properties?.ReservedConcurrentExecutions,
  });
  const assetPath = resource.Metadata?.['aws:asset:path'];
  if (typeof assetPath !== 'string')
    throw new Error(`${logicalId} has no aws:asset:path: the harness runs bundled assets only`);
  if (!props.Runtime?.startsWith('nodejs') || !props.Handler) {
    throw new Error(`${logicalId}: the harness runs Node.js functions with a Handler, not ${props.Runtime}`);
  }
  const reserved = props.ReservedConcurrentExecutions;
  if (reserved === 0)
    throw new Error(`${logicalId} has reserved concurrency 0: Lambda throttles every invocation`);
  const task = await layOutTaskRoot(join(options.cdkOut, assetPath), props.Handler, options.sandboxParent);
  return new LocalFunction(options, task, {
    name: stack.ref(logicalId),
    arn: stack.attribute(logicalId, 'Arn'),
    timeoutSeconds: props.Timeout ?? 3,
    memorySize: props.MemorySize ?? 128,
    concurrency: options.maxContainers ?? reserved ?? 1,
    env: functionEnvironment(options, task),
  });
}
