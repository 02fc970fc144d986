/**
 * A work-queue consumer for the redrive tests: each record goes through the reconcile handler's
 * own `reconcileRecord`, so a body that is not a work message is dead-lettered at once through
 * `sqsDeadLetterSender`, as `everynode run` and the reconcile function do.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { silentLogger } from '../../lib/log/structured-logger.ts';
import type { LocalQueues } from '../../lib/queue/local-queues.ts';
import { type SqsEventSource, startSqsEventSource } from '../../lib/queue/sqs-event-source.ts';
import { sqsDeadLetterSender } from '../../lib/queue/sqs-senders.ts';
import type { ReconcileDeps } from '../../lib/reconcile/deps/reconcile-deps.ts';
import { planBatch, reconcileRecord } from '../../lib/reconcile/handler/work-record.ts';

/** The running consumer and the bodies it has dead-lettered so far. */
export interface DeadLetteringConsumer {
  readonly deadLettered: readonly string[];
  stop(): Promise<void>;
}

/** Consumes the work queue of `queues`, dead-lettering what does not parse (nothing else is sent). */
export function startDeadLetteringConsumer(queues: LocalQueues): DeadLetteringConsumer {
  const deadLettered: string[] = [];
  const sender = sqsDeadLetterSender(queues.sqs, queues.urls.workDlq);
  // Only the ports an unparseable record touches: the logger and the DLQ.
  const deps = {
    ports: {
      logger: silentLogger,
      deadLetter: {
        deadLetter: async (body: string, reason: string, groupId?: string) => {
          await sender.deadLetter(body, reason, groupId);
          deadLettered.push(body);
        },
      },
    },
  } as unknown as ReconcileDeps;
  const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const plan = planBatch(event.Records);
    for (const entry of plan.records.values()) {
      if (entry.parsed.ok) throw new Error(`the test consumer got a work message: ${entry.record.body}`);
      await reconcileRecord(deps, entry, plan);
    }
    return { batchItemFailures: [] };
  };
  const source: SqsEventSource = startSqsEventSource({
    sqs: queues.sqs,
    queueUrl: queues.urls.work,
    handler,
    onError: (error) => console.error('the dead-lettering test consumer failed', error),
  });
  return { deadLettered, stop: () => source.stop() };
}

/** Resolves once `check` holds, polling; rejects naming `what` after `timeoutMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not reached in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
