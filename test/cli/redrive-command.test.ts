import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writePipelineState } from '../../lib/cli/pipeline-state.ts';
import { runRedriveCommand } from '../../lib/cli/redrive-command.ts';
import { type LocalQueues, startLocalQueues } from '../../lib/queue/local-queues.ts';
import { queueDepth } from '../../lib/queue/queue-depth.ts';
import { sendMessages } from '../../lib/queue/send-messages.ts';
import {
  type DeadLetteringConsumer,
  startDeadLetteringConsumer,
  until,
} from '../queue/reconcile-dead-letters.ts';

const POISON = ['{"v":1,"kind":"teleport"}', 'not json', '{"v":9}', '{"v":1,"kind":"pair"}'];

describe('everynode redrive against a running pipeline', () => {
  let queues: LocalQueues | undefined;
  let consumer: DeadLetteringConsumer | undefined;
  afterEach(async () => {
    await consumer?.stop();
    await queues?.stop();
  });

  it('moves 4 unparseable messages once; the reconcile handler dead-letters all 4 again', async () => {
    const q = await startLocalQueues();
    queues = q;
    const live = startDeadLetteringConsumer(q);
    consumer = live;
    const depth = async (url: string) => (await queueDepth(q.sqs, url)).now;
    await sendMessages(
      q.sqs,
      q.urls.work,
      POISON.map((body, i) => ({ body, groupId: `poison-${i}`, deduplicationId: `poison-${i}` })),
    );
    await until('the four are dead-lettered', async () => (await depth(q.urls.workDlq)) === 4);

    const stateDir = mkdtempSync(join(tmpdir(), 'everynode-redrive-'));
    await writePipelineState(stateDir, {
      pid: process.pid,
      startedAt: new Date().toISOString(),
      sqsEndpoint: q.endpoint,
      queues: q.urls,
      journalPath: join(stateDir, 'journal.ndjson'),
      kubeconfigPath: join(stateDir, 'kubeconfig'),
      managedKind: 'apps/v1',
    });
    const out: string[] = [];
    const code = await runRedriveCommand(['--state-dir', stateDir], {
      stdout: (text) => out.push(text),
      stderr: (text) => out.push(text),
      isTTY: false,
    });
    expect(out.join('')).toBe('everynode redrive: moved 4 message(s) back to the work queue\n');
    expect(code).toBe(0);

    await until('the handler dead-lettered the four again', () => live.deadLettered.length === 8);
    await until('the DLQ holds the four again', async () => (await depth(q.urls.workDlq)) === 4);
    expect(await depth(q.urls.work)).toBe(0);
  });
});
