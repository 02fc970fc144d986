/**
 * Invoking the next relay run on AWS: an asynchronous Lambda `Invoke` of the relay function itself.
 * The Lambda client is loaded on the first invocation, minutes into a run, so the relay's cold
 * start does not pay for it; the bundle leaves it to the runtime's SDK, like the router's EC2 client.
 */
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { RelaySuccessorEvent } from './handover.ts';

type LambdaSdk = typeof import('@aws-sdk/client-lambda');

/** Raised when Lambda did not accept the invocation for asynchronous processing. */
export class SuccessorNotAcceptedError extends Error {
  constructor(
    readonly functionArn: string,
    readonly statusCode: number | undefined,
  ) {
    super(`Lambda answered ${statusCode ?? 'no status'} to invoking ${functionArn}, not 202 Accepted`);
    this.name = 'SuccessorNotAcceptedError';
  }
}

let loading: Promise<{ client: LambdaClient; InvokeCommand: LambdaSdk['InvokeCommand'] }> | undefined;

/** Queues `event` for the function `functionArn` (InvocationType `Event`: 202 once queued). */
export async function invokeSuccessorWithLambda(
  functionArn: string,
  event: RelaySuccessorEvent,
): Promise<void> {
  loading ??= import('@aws-sdk/client-lambda').then((sdk) => ({
    client: new sdk.LambdaClient({}),
    InvokeCommand: sdk.InvokeCommand,
  }));
  const { client, InvokeCommand } = await loading;
  const answer = await client.send(
    new InvokeCommand({
      FunctionName: functionArn,
      InvocationType: 'Event',
      Payload: new TextEncoder().encode(JSON.stringify(event)),
    }),
  );
  if (answer.StatusCode !== 202) throw new SuccessorNotAcceptedError(functionArn, answer.StatusCode);
}
