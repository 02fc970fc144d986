/**
 * Lambda's Invoke behind the local AWS endpoint, as the relay calls it to start its successor run
 * (docs/design.md, 25. The relay's hand-over on AWS):
 * `POST /2015-03-31/functions/{FunctionName}/invocations`, the function named by its name, ARN or
 * partial ARN, optionally qualified (`:qualifier` or the `Qualifier` query parameter). The call is
 * authorized as `lambda:InvokeFunction` on the function's ARN (qualified when the call names a
 * qualifier, as IAM sees it), then answered as Lambda does:
 *
 * - a function the template does not hold, or a qualifier other than `$LATEST` (the harness deploys
 *   no versions or aliases), is a 404 ResourceNotFoundException;
 * - `Event` hands the parsed payload to the harness (`invokeFunction`, which queues it on the hosted
 *   function like Lambda's asynchronous queue) and answers 202 with an empty body; a payload that is
 *   not JSON is an InvalidRequestContentException, one over 1 MB a 413 RequestTooLargeException;
 * - recursive loop detection: the caller's `X-Amzn-Trace-Id` (which the SDK copies from the calling
 *   invocation's `_X_AMZN_TRACE_ID`) goes on with the invocation; when its `Lineage` says the event
 *   has invoked the function 16 times already, the call is refused with RecursiveInvocationException
 *   unless the function's `RecursiveLoop` is `Allow` (lambda-trace-header.ts). Lambda may instead
 *   accept such an `Event` invocation and drop it later; either way the 17th link never runs;
 * - `DryRun` answers 204 once authorized, invoking nothing;
 * - `RequestResponse` (the SDK's default) is refused as an UnsupportedOperation: a synchronous
 *   invocation would have to answer 429 when the function's concurrency is used up, and the hosted
 *   functions queue instead.
 */
import { randomUUID } from 'node:crypto';
import type { AwsPrincipal } from './authorization.ts';
import {
  type AwsService,
  AwsServiceError,
  type DecodedRequest,
  type GatewayResponse,
} from './aws-gateway-protocol.ts';
import type { DeployedStack } from './deployed-stack.ts';
import { invocationsOf, RECURSIVE_INVOCATION_LIMIT } from './lambda-trace-header.ts';
import type { ReceivedRequest } from './sigv4-verifier.ts';

/** One asynchronous invocation the gateway accepted. */
export interface LambdaInvocation {
  /** The function's unqualified ARN. */
  readonly functionArn: string;
  /** The event: the request's JSON payload, parsed (`{}` when the request carries none). */
  readonly payload: unknown;
  /** Who invoked it. */
  readonly principal: AwsPrincipal;
  /** The call's `X-Amzn-Trace-Id`, whose trace and lineage the invocation continues. */
  readonly traceHeader?: string;
}

/**
 * The harness's side of an accepted `Event` invocation: queues it on the hosted function and
 * answers its request id; throwing (a function the harness does not run) is a harness failure.
 */
export type InvokeFunctionHandler = (
  invocation: LambdaInvocation,
) => Promise<{ readonly requestId: string }> | { readonly requestId: string };

/** Lambda's limit on an asynchronous invocation's payload. */
const MAX_EVENT_PAYLOAD_BYTES = 1024 * 1024;
const INVOKE_ROUTE = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;
/** A function name as Lambda's API accepts it (name, ARN or partial ARN, optional qualifier). */
const FUNCTION_NAME =
  /^(?:arn:aws[a-zA-Z-]*:lambda:)?(?:([a-z]{2}(?:-gov|-iso[a-z]?)?-[a-z]+-\d):)?(?:(\d{12}):)?(?:function:)?([a-zA-Z0-9_.-]+)(?::(\$LATEST|[a-zA-Z0-9_-]+))?$/;
const INVOCATION_TYPES = ['Event', 'RequestResponse', 'DryRun'];

/** The function an Invoke names: its unqualified ARN and the qualifier, if any. */
interface InvokeTarget {
  readonly functionArn: string;
  readonly qualifier: string | undefined;
}

/** Reads an Invoke from its route, `Qualifier` query parameter, headers and body. */
function decodeInvoke(request: ReceivedRequest): DecodedRequest {
  const url = new URL(request.url, 'https://gateway.invalid');
  const route = request.method === 'POST' ? INVOKE_ROUTE.exec(url.pathname) : null;
  if (!route) return { operation: '', input: {} };
  const qualifier = url.searchParams.get('Qualifier');
  return {
    operation: 'Invoke',
    input: {
      FunctionName: decodeURIComponent(route[1] ?? ''),
      ...(qualifier !== null ? { Qualifier: qualifier } : {}),
      InvocationType: request.headers['x-amz-invocation-type'] ?? 'RequestResponse',
      Payload: request.body,
    },
  };
}

/** The function `input` names, in `region` and `account` unless its ARN says otherwise. */
function targetOf(input: Readonly<Record<string, unknown>>, region: string, account: string): InvokeTarget {
  const name = String(input.FunctionName ?? '');
  const match = FUNCTION_NAME.exec(name);
  if (!match || name.length > 140) {
    throw new AwsServiceError(
      'ValidationException',
      `1 validation error detected: Value '${name}' at 'functionName' failed to satisfy constraint: Member must satisfy regular expression pattern: ${FUNCTION_NAME.source}`,
    );
  }
  const [, inRegion, inAccount, functionName, derived] = match;
  const queried = input.Qualifier === undefined ? undefined : String(input.Qualifier);
  if (derived !== undefined && queried !== undefined && derived !== queried) {
    throw new AwsServiceError(
      'InvalidParameterValueException',
      'The derived qualifier from the function name does not match the specified qualifier.',
    );
  }
  return {
    functionArn: `arn:aws:lambda:${inRegion ?? region}:${inAccount ?? account}:function:${functionName}`,
    qualifier: derived ?? queried,
  };
}

/** The ARN IAM and error messages name: qualified when the call names a qualifier. */
function qualifiedArn(target: InvokeTarget): string {
  return target.qualifier === undefined ? target.functionArn : `${target.functionArn}:${target.qualifier}`;
}

/** The event an `Event` payload carries; throws Lambda's errors for an oversized or non-JSON one. */
function eventOf(payload: unknown): unknown {
  const body = Buffer.isBuffer(payload) ? payload : Buffer.alloc(0);
  if (body.length > MAX_EVENT_PAYLOAD_BYTES) {
    throw new AwsServiceError(
      'RequestTooLargeException',
      `${body.length} byte payload is too large for the Event invocation type (limit ${MAX_EVENT_PAYLOAD_BYTES} bytes)`,
      413,
    );
  }
  if (body.length === 0) return {};
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new AwsServiceError(
      'InvalidRequestContentException',
      `Could not parse request body into json: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/**
 * The Lambda service of the gateway over the functions of `stack`, handing `Event` invocations to
 * `invokeFunction`; without it every Lambda call is UnsupportedOperation.
 */
export function lambdaService(
  stack: DeployedStack,
  invokeFunction: InvokeFunctionHandler | undefined,
): AwsService {
  // Each function's ARN and its recursive loop setting (Lambda's default is Terminate).
  const recursiveLoops = new Map(
    stack
      .resourcesOfType('AWS::Lambda::Function')
      .map(([logicalId, resource]) => [
        stack.attribute(logicalId, 'Arn'),
        stack.resolve<string | undefined>(resource.Properties?.RecursiveLoop) ?? 'Terminate',
      ]),
  );
  return {
    protocol: 'rest-json',
    decode: decodeInvoke,
    supports: (operation) => operation === 'Invoke' && invokeFunction !== undefined,
    requirements(call) {
      const target = targetOf(call.input, call.region, stack.account);
      return [{ action: 'lambda:InvokeFunction', resource: qualifiedArn(target) }];
    },
    async handle(call): Promise<GatewayResponse> {
      if (!invokeFunction) throw new Error('no Invoke handler');
      const target = targetOf(call.input, call.region, stack.account);
      if (!recursiveLoops.has(target.functionArn) || (target.qualifier ?? '$LATEST') !== '$LATEST') {
        throw new AwsServiceError(
          'ResourceNotFoundException',
          `Function not found: ${qualifiedArn(target)}`,
          404,
        );
      }
      const invocationType = String(call.input.InvocationType);
      if (!INVOCATION_TYPES.includes(invocationType)) {
        throw new AwsServiceError(
          'ValidationException',
          `1 validation error detected: Value '${invocationType}' at 'invocationType' failed to satisfy constraint: Member must satisfy enum value set: [${INVOCATION_TYPES.join(', ')}]`,
        );
      }
      if (invocationType === 'RequestResponse') {
        throw new AwsServiceError(
          'UnsupportedOperation',
          'the local AWS endpoint does not implement synchronous lambda:Invoke (InvocationType RequestResponse): the offline harness supports InvocationType Event and DryRun only',
        );
      }
      if (invocationType === 'DryRun') {
        return { status: 204, headers: { 'x-amzn-requestid': randomUUID() }, body: '' };
      }
      const payload = eventOf(call.input.Payload);
      const traceHeader = call.headers['x-amzn-trace-id'];
      if (
        recursiveLoops.get(target.functionArn) !== 'Allow' &&
        invocationsOf(traceHeader, target.functionArn) >= RECURSIVE_INVOCATION_LIMIT
      ) {
        throw new AwsServiceError(
          'RecursiveInvocationException',
          "Lambda has detected your function being invoked in a recursive loop with other AWS resources and stopped your function's invocation.",
        );
      }
      const { requestId } = await invokeFunction({
        functionArn: target.functionArn,
        payload,
        principal: call.principal,
        ...(traceHeader ? { traceHeader } : {}),
      });
      return { status: 202, headers: { 'x-amzn-requestid': requestId }, body: '' };
    },
  };
}
