/**
 * The relay's Lambda handler, started by the relay schedule: one run (`relay-run.ts`) per
 * invocation, as long as the schedule arithmetic allows.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { RelayOptions } from './relay.ts';
import { type RelayRunReport, relayWatchMillis, runRelayFor } from './relay-run.ts';

/** What the handler is built from. */
export interface RelayHandlerTools {
  readonly relay: Omit<RelayOptions, 'logger'>;
  readonly logger: Logger;
  /** The schedule period, EVERYNODE_RELAY_RUN_SECONDS. */
  readonly runSeconds: number;
}

/** The handler: any event (the schedule's) in, the run's report out. */
export type RelayHandler = (event: unknown, context: Context) => Promise<RelayRunReport>;

/** The middy handler running one relay run per invocation and logging its report. */
export function createRelayHandler(tools: Readonly<RelayHandlerTools>): RelayHandler {
  const run = async (_event: unknown, context: Context): Promise<RelayRunReport> => {
    const watchMillis = relayWatchMillis(tools.runSeconds, context.getRemainingTimeInMillis());
    const report = await runRelayFor({ ...tools.relay, logger: tools.logger }, watchMillis);
    tools.logger.info('relay run finished', { ...report });
    return report;
  };
  return middy(run).use(injectLambdaContext(tools.logger));
}
