/**
 * `everynode replay`: re-injects a window of archived triggers — from the local journal into the
 * running `everynode run`, or on AWS by an EventBridge `StartReplay` of the bus archive. Replayed
 * triggers take the same path as the originals; once the cluster is right they change nothing.
 */
import { EventBridgeClient, StartReplayCommand } from '@aws-sdk/client-eventbridge';
import { localReplayName, replayJournal } from '../local/local-pipeline-replay.ts';
import { localSqsClient } from '../queue/local-sqs-client.ts';
import { sendMessages } from '../queue/send-messages.ts';
import {
  type CliIo,
  type Flags,
  parseFlags,
  processIo,
  runCommand,
  stringFlag,
  timeFlag,
  UsageError,
} from './cli-args.ts';
import { readPipelineState } from './pipeline-state.ts';

/** Usage of `everynode replay`. */
export const REPLAY_USAGE = `Usage: everynode replay --journal FILE [--since TIME] [--until TIME] [--state-dir DIR]
       everynode replay --since TIME --until TIME --archive-arn ARN --event-bus-arn ARN [--name NAME]

Re-injects the triggers recorded in a time window (since inclusive, until exclusive; TIME like
2026-01-01T10:00:00Z). Replayed triggers are routed like the originals.
  --journal FILE       the local journal (e.g. .everynode/journal.jsonl) to replay into the
                       running everynode run of --state-dir (default .everynode)
  --archive-arn ARN    on AWS: the everynode bus archive to replay from
  --event-bus-arn ARN  on AWS: the everynode bus to replay to
  --name NAME          on AWS: the replay's name (default everynode-<time>)
  -h, --help           this help
`;

/** `--since` and `--until`, each when given; UsageError when unreadable or when the window is empty. */
function windowOf(flags: Flags): { since: Date | undefined; until: Date | undefined } {
  const since = timeFlag(flags, 'since');
  const until = timeFlag(flags, 'until');
  if (since && until && since.getTime() >= until.getTime()) {
    throw new UsageError(`--since (${since.toISOString()}) must be before --until (${until.toISOString()})`);
  }
  return { since, until };
}

async function replayLocally(flags: Flags, journal: string, io: CliIo): Promise<number> {
  const { since, until } = windowOf(flags);
  const state = await readPipelineState(stringFlag(flags, 'state-dir') ?? '.everynode');
  const sqs = localSqsClient(state.sqsEndpoint);
  const replayName = localReplayName(new Date());
  const result = await replayJournal({
    journalPath: journal,
    window: { ...(since ? { since } : {}), ...(until ? { until } : {}) },
    replayName,
    deliver: (envelopes) =>
      sendMessages(
        sqs,
        state.queues.ingress,
        envelopes.map((e) => ({ body: JSON.stringify(e) })),
      ),
    onBadLine: (line, reason) =>
      io.stderr(`everynode replay: skipping line ${line} of ${journal}: ${reason}\n`),
  });
  io.stdout(
    `everynode replay: ${replayName} re-injected ${result.replayed} trigger(s)${result.skipped ? `, skipped ${result.skipped}` : ''}\n`,
  );
  return 0;
}

async function replayOnAws(flags: Flags, io: CliIo): Promise<number> {
  const { since, until } = windowOf(flags);
  const archive = stringFlag(flags, 'archive-arn');
  const bus = stringFlag(flags, 'event-bus-arn');
  if (!since || !until || !archive || !bus) {
    throw new UsageError(
      'give --journal FILE, or all of --since, --until, --archive-arn and --event-bus-arn',
    );
  }
  const name = stringFlag(flags, 'name') ?? `everynode-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  const answer = await new EventBridgeClient({}).send(
    new StartReplayCommand({
      ReplayName: name,
      EventSourceArn: archive,
      EventStartTime: since,
      EventEndTime: until,
      Destination: { Arn: bus },
    }),
  );
  io.stdout(`everynode replay: started EventBridge replay ${name} (${answer.State ?? 'STARTING'})\n`);
  return 0;
}

/** Runs `everynode replay` with `args`; resolves to the exit code. */
export function runReplayCommand(args: readonly string[], io: CliIo = processIo): Promise<number> {
  return runCommand('replay', REPLAY_USAGE, args, io, async () => {
    const flags = parseFlags(args, {
      journal: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      'state-dir': { type: 'string' },
      'archive-arn': { type: 'string' },
      'event-bus-arn': { type: 'string' },
      name: { type: 'string' },
    });
    const journal = stringFlag(flags, 'journal');
    return journal === undefined ? replayOnAws(flags, io) : replayLocally(flags, journal, io);
  });
}
