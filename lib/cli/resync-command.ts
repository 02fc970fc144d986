/**
 * `everynode resync`: publishes a resync trigger, so that every managed DaemonSet (or the one named)
 * is checked again — to the running `everynode run` (journalled like any trigger), or to the
 * EventBridge bus on AWS.
 */
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { RELAY_SOURCE, RESYNC_DETAIL_TYPE } from '../messages/trigger.ts';
import type { BusEvent, EventBus } from '../queue/event-bus.ts';
import { EventBridgeEventBus } from '../queue/event-bus-eventbridge.ts';
import { LocalEventBus } from '../queue/event-bus-local.ts';
import { Journal } from '../queue/journal.ts';
import { localSqsClient } from '../queue/local-sqs-client.ts';
import { type CliIo, parseFlags, processIo, runCommand, stringFlag, UsageError } from './cli-args.ts';
import { readPipelineState } from './pipeline-state.ts';

/** Usage of `everynode resync`. */
export const RESYNC_USAGE = `Usage: everynode resync [--daemonset NAMESPACE/NAME] [--state-dir DIR]
       everynode resync [--daemonset NAMESPACE/NAME] --event-bus NAME

Asks for every managed DaemonSet, or the one named, to be checked again: all its nodes and pods.
  --daemonset NS/NAME   only this DaemonSet
  --state-dir DIR       the running everynode run to send it to (default .everynode)
  --event-bus NAME      on AWS: the everynode EventBridge bus (name or ARN) to publish to
  -h, --help            this help
`;

/**
 * The resync trigger. Its source is the relay's: the bus rule that feeds the ingress queue on AWS
 * matches `everynode.relay` (and EC2), and a resync from the command is the same request as the
 * relay's after a relist.
 */
export function resyncEvent(scope: { namespace: string; name: string } | undefined, now: Date): BusEvent {
  return {
    source: RELAY_SOURCE,
    detailType: RESYNC_DETAIL_TYPE,
    detail: { v: 1, reason: 'everynode resync command', ...(scope ? { scope } : {}) },
    time: now,
  };
}

function scopeOf(text: string | undefined): { namespace: string; name: string } | undefined {
  if (text === undefined) return undefined;
  const match = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/.exec(text);
  if (!match?.[1] || !match[3]) throw new UsageError(`--daemonset must be NAMESPACE/NAME, got '${text}'`);
  return { namespace: match[1], name: match[3] };
}

async function busFor(eventBus: string | undefined, stateDir: string): Promise<EventBus> {
  if (eventBus !== undefined)
    return new EventBridgeEventBus({ client: new EventBridgeClient({}), eventBusName: eventBus });
  const state = await readPipelineState(stateDir);
  return new LocalEventBus({
    sqs: localSqsClient(state.sqsEndpoint),
    ingressUrl: state.queues.ingress,
    journal: new Journal(state.journalPath),
  });
}

/** Runs `everynode resync` with `args`; resolves to the exit code. */
export function runResyncCommand(args: readonly string[], io: CliIo = processIo): Promise<number> {
  return runCommand('resync', RESYNC_USAGE, args, io, async () => {
    const flags = parseFlags(args, {
      daemonset: { type: 'string' },
      'state-dir': { type: 'string' },
      'event-bus': { type: 'string' },
    });
    const scope = scopeOf(stringFlag(flags, 'daemonset'));
    const bus = await busFor(stringFlag(flags, 'event-bus'), stringFlag(flags, 'state-dir') ?? '.everynode');
    await bus.publish([resyncEvent(scope, new Date())]);
    io.stdout(
      `everynode resync: asked for a resync of ${scope ? `${scope.namespace}/${scope.name}` : 'every managed DaemonSet'}\n`,
    );
    return 0;
  });
}
