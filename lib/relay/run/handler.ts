/**
 * The relay's Lambda handler: one link of the chain of relay runs per invocation (`run/run.ts`),
 * started by its predecessor or by the watchdog schedule.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { RelaySuccessorEvent } from './handover.ts';
import type { RelayOptions } from './relay.ts';
import { type RelayRunReport, relayDeadlineMillis, runRelay } from './run.ts';

/** What the handler is built from. */
export interface RelayHandlerTools {
  readonly relay: Omit<RelayOptions, 'logger'>;
  readonly logger: Logger;
  /** The period after which a run hands over, EVERYNODE_RELAY_RUN_SECONDS. */
  readonly runSeconds: number;
  /** Invokes the function `functionArn` asynchronously with `event` (Lambda `Invoke`, `Event`). */
  readonly invokeFunction: (functionArn: string, event: RelaySuccessorEvent) => Promise<void>;
  /** Called after each checkpoint write as lease holder (the heartbeat metric). */
  readonly onHeartbeat?: () => void;
}

/** The handler: the schedule's or a predecessor's event in, the run's report out. */
export type RelayHandler = (event: unknown, context: Context) => Promise<RelayRunReport>;

/** The middy handler running one relay run per invocation and logging its report. */
export function createRelayHandler(tools: Readonly<RelayHandlerTools>): RelayHandler {
  const run = async (event: unknown, context: Context): Promise<RelayRunReport> => {
    const report = await runRelay({
      relay: { ...tools.relay, logger: tools.logger },
      event,
      runId: context.awsRequestId,
      runSeconds: tools.runSeconds,
      watchMillis: relayDeadlineMillis(context.getRemainingTimeInMillis()),
      invokeSuccessor: (successorEvent) => tools.invokeFunction(context.invokedFunctionArn, successorEvent),
      ...(tools.onHeartbeat ? { onHeartbeat: tools.onHeartbeat } : {}),
    });
    tools.logger.info('relay run finished', { ...report });
    return report;
  };
  return middy(run).use(injectLambdaContext(tools.logger));
}
