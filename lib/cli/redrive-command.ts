/**
 * `everynode redrive`: moves the work DLQ's messages back to the work queue — of the running
 * `everynode run` (receive, send, delete: fauxqs has no move task), or on AWS by
 * `StartMessageMoveTask`.
 */
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { localSqsClient } from '../queue/local-sqs-client.ts';
import { type RedriveResult, redrive } from '../queue/redrive.ts';
import {
  type CliIo,
  integerFlag,
  parseFlags,
  processIo,
  runCommand,
  stringFlag,
  UsageError,
} from './cli-args.ts';
import { readPipelineState } from './pipeline-state.ts';

/** Usage of `everynode redrive`. */
export const REDRIVE_USAGE = `Usage: everynode redrive [--state-dir DIR] [--limit N]
       everynode redrive --dlq-url URL --queue-url URL

Moves the messages of the work DLQ back to the work queue, to be reconciled again.
  --state-dir DIR    the running everynode run whose DLQ to redrive (default .everynode)
  --limit N          move at most N messages (local only)
  --dlq-url URL      on AWS: the work DLQ (a message move task is started)
  --queue-url URL    on AWS: the work queue to move them to
  -h, --help         this help
`;

async function arnOf(sqs: SQSClient, url: string): Promise<string> {
  const answer = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
  );
  const arn = answer.Attributes?.QueueArn;
  if (!arn) throw new Error(`reading the ARN of ${url}: no QueueArn in the answer`);
  return arn;
}

/**
 * The exit code after `result`: 1, with a line on stderr, when messages were sent back but could
 * not be deleted from the DLQ (not counted as moved); a redrive run again within five minutes
 * sends them with the same de-duplication id, so they run once.
 */
function reportNotDeleted(result: Readonly<RedriveResult>, io: CliIo): number {
  const notDeleted = result.mode === 'copied' ? (result.notDeleted ?? 0) : 0;
  if (notDeleted === 0) return 0;
  io.stderr(
    `everynode redrive: ${notDeleted} message(s) sent back but not deleted from the DLQ; run everynode redrive again\n`,
  );
  return 1;
}

/** Runs `everynode redrive` with `args`; resolves to the exit code. */
export function runRedriveCommand(args: readonly string[], io: CliIo = processIo): Promise<number> {
  return runCommand('redrive', REDRIVE_USAGE, args, io, async () => {
    const flags = parseFlags(args, {
      'state-dir': { type: 'string' },
      limit: { type: 'string' },
      'dlq-url': { type: 'string' },
      'queue-url': { type: 'string' },
    });
    const limit = integerFlag(flags, 'limit', 0, 1);
    const dlqUrl = stringFlag(flags, 'dlq-url');
    const queueUrl = stringFlag(flags, 'queue-url');
    if ((dlqUrl === undefined) !== (queueUrl === undefined))
      throw new UsageError('--dlq-url and --queue-url go together');
    if (dlqUrl && queueUrl) {
      const sqs = new SQSClient({});
      const [dlqArn, targetArn] = await Promise.all([arnOf(sqs, dlqUrl), arnOf(sqs, queueUrl)]);
      const result = await redrive(sqs, { dlqUrl, dlqArn, targetUrl: queueUrl, targetArn });
      io.stdout(
        result.mode === 'move-task'
          ? `everynode redrive: started message move task ${result.taskHandle}\n`
          : `everynode redrive: moved ${result.moved} message(s)\n`,
      );
      return reportNotDeleted(result, io);
    }
    const state = await readPipelineState(stringFlag(flags, 'state-dir') ?? '.everynode');
    const sqs = localSqsClient(state.sqsEndpoint);
    const result = await redrive(sqs, {
      dlqUrl: state.queues.workDlq,
      targetUrl: state.queues.work,
      ...(limit > 0 ? { limit } : {}),
    });
    io.stdout(
      `everynode redrive: moved ${result.mode === 'copied' ? result.moved : 0} message(s) back to the work queue\n`,
    );
    return reportNotDeleted(result, io);
  });
}
