/**
 * What a step's failure does to its record (docs/design.md, 13. Failures: retries, backoff and the
 * DLQ), with the reconcile deps of a harness whose API server fails as each case says.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiErrorOf } from '../../../lib/kube/errors/to-kube-error.ts';
import { transientBackoffSeconds } from '../../../lib/kube/errors/transient-failure.ts';
import type { KubePort } from '../../../lib/kube/kube-port.ts';
import { formatWorkMessage, type WorkMessage } from '../../../lib/messages/work-message.ts';
import type { ReconcileDeps } from '../../../lib/reconcile/deps/reconcile-deps.ts';
import {
  MAX_FAILURE_REQUEUES,
  planBatch,
  type RecordOutcome,
  reconcileRecord,
} from '../../../lib/reconcile/handler/work-record.ts';
import { buildReconcileDeps } from '../../../lib/reconcile/setup/deps-for-config.ts';
import { aDaemonSet } from '../../support/builders.ts';
import { createDaemonSet, pairMessage } from '../../support/reconcile-cluster.ts';
import type { Harness } from '../../support/reconcile-harness.ts';
import {
  coldDeps,
  type Requeued,
  recordingRequeue,
  startStepHarness,
} from '../../support/reconcile-step-deps.ts';

/** A kube port whose every call rejects with `error()` (managedKind kept). */
function failingKube(kube: KubePort, error: () => unknown): KubePort {
  return new Proxy(kube, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? () => Promise.reject(error()) : value;
    },
  });
}

/** A record of `message` as the event source hands it over. */
function recordOf(message: WorkMessage, id: string): SQSRecord {
  return {
    messageId: id,
    receiptHandle: id,
    body: formatWorkMessage(message),
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: String(Date.now()),
      SenderId: 'test',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
      MessageGroupId: 'pair:test',
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:work.fifo',
    awsRegion: 'us-east-1',
  } as SQSRecord;
}

async function runRecord(deps: ReconcileDeps, message: WorkMessage, id: string): Promise<RecordOutcome> {
  const record = recordOf(message, id);
  const plan = planBatch([record]);
  const parsed = plan.records.get(id);
  if (!parsed) throw new Error('unplanned');
  return reconcileRecord(deps, parsed, plan);
}

describe('a failed step', () => {
  let harness: Harness;
  let ds: ReturnType<typeof createDaemonSet>;
  beforeAll(async () => {
    harness = await startStepHarness();
    ds = createDaemonSet(harness, aDaemonSet('agent'));
  });
  afterAll(async () => harness?.stop());

  /** Deps failing every API call with `error()`, recording requeues and dead letters. */
  function failingDeps(error: () => unknown) {
    const requeues = recordingRequeue();
    const letters: { reason: string }[] = [];
    const deps = coldDeps(harness.deps, {
      kube: failingKube(harness.deps.ports.kube, error),
      requeue: requeues.requeue,
      deadLetter: {
        async deadLetter(_body, reason) {
          letters.push({ reason });
        },
      },
    });
    return { deps, sent: requeues.sent, letters };
  }

  /** Runs `message` and each requeue of it `times` times; resolves with the outcomes and requeues. */
  async function chain(deps: ReconcileDeps, sent: Requeued[], times: number) {
    const outcomes: RecordOutcome[] = [];
    let message = pairMessage(ds, 'n1');
    for (let i = 0; i < times; i++) {
      outcomes.push(await runRecord(deps, message, `m${i}`));
      const last = sent.at(-1);
      if (!last) break;
      message = last.message;
    }
    return outcomes;
  }

  it.each([
    { name: '503', error: () => apiErrorOf({ code: 503, body: '', headers: {} }, 'listing pods') },
    { name: '500', error: () => apiErrorOf({ code: 500, body: '', headers: {} }, 'listing pods') },
    { name: '504', error: () => apiErrorOf({ code: 504, body: '', headers: {} }, 'listing pods') },
    {
      name: 'connection reset',
      error: () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
    },
  ])('sends work failing with $name back with a growing delay, never to the DLQ', async ({ error }) => {
    const { deps, sent, letters } = failingDeps(error);
    const outcomes = await chain(deps, sent, 12);
    expect(outcomes.map((o) => o.type)).toEqual(Array(12).fill('retried'));
    expect(sent.map((s) => s.afterSeconds)).toEqual(
      Array.from({ length: 12 }, (_, i) => transientBackoffSeconds(i)),
    );
    expect(sent.map((s) => s.message.cause)).toEqual(
      sent.map((_, i) => expect.objectContaining({ type: 'requeue', failures: i + 1, attempt: i })),
    );
    expect(letters).toEqual([]);
  });

  it('honours a 429 Retry-After, keeps counting the failures, and grows the backoff after it', async () => {
    let calls = 0;
    const { deps, sent } = failingDeps(() =>
      ++calls <= 2
        ? apiErrorOf({ code: 503, body: '', headers: {} }, 'listing pods')
        : calls === 3
          ? apiErrorOf({ code: 429, body: '', headers: { 'Retry-After': '7' } }, 'listing pods')
          : apiErrorOf({ code: 503, body: '', headers: {} }, 'listing pods'),
    );
    const outcomes = await chain(deps, sent, 4);
    expect(outcomes.map((o) => o.type)).toEqual(['retried', 'retried', 'throttled', 'retried']);
    expect(sent.map((s) => s.afterSeconds)).toEqual([1, 2, 7, 8]);
  });

  it(`dead-letters with its reason work failing otherwise after ${MAX_FAILURE_REQUEUES} requeues`, async () => {
    const { deps, sent, letters } = failingDeps(() => new TypeError('a bug'));
    const outcomes = await chain(deps, sent, MAX_FAILURE_REQUEUES + 1);
    expect(outcomes.map((o) => o.type)).toEqual([
      ...Array(MAX_FAILURE_REQUEUES).fill('retried'),
      'dead-lettered',
    ]);
    expect(sent.map((s) => s.afterSeconds)).toEqual([1, 2, 4, 8]);
    expect(letters).toEqual([{ reason: expect.stringMatching(/failed 5 times in a row, the last: a bug/) }]);
  });

  it('counts a failure after an outage as a first one: the outage spent no retries', async () => {
    let calls = 0;
    const { deps, sent, letters } = failingDeps(() =>
      ++calls <= 6
        ? apiErrorOf({ code: 503, body: '', headers: {} }, 'listing pods')
        : new TypeError('a bug'),
    );
    const outcomes = await chain(deps, sent, 7);
    expect(outcomes.map((o) => o.type)).toEqual(Array(7).fill('retried'));
    expect(sent.at(-1)?.afterSeconds).toBe(1);
    expect(letters).toEqual([]);
  });

  it('fails the record when its requeue cannot be sent, so SQS redelivers it', async () => {
    const { deps } = failingDeps(() => apiErrorOf({ code: 503, body: '', headers: {} }, 'listing pods'));
    const downDeps: ReconcileDeps = {
      ...deps,
      ports: {
        ...deps.ports,
        requeue: { requeue: () => Promise.reject(new Error('ingress queue unavailable')) },
      },
    };
    await expect(runRecord(downDeps, pairMessage(ds, 'n1'), 'down')).rejects.toThrow(/HTTP 503/);
  });

  it('sends work back when the API server refuses connections', async () => {
    const refused = join(harness.kubeconfigPath, '..', 'refused-kubeconfig');
    // Port 9 (discard) on the loopback: nothing listens, so every connection is refused.
    writeFileSync(
      refused,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: c, cluster: {server: "http://127.0.0.1:9"}}]',
        'users: [{name: u, user: {token: t}}]',
        'contexts: [{name: x, context: {cluster: c, user: u}}]',
        'current-context: x',
      ].join('\n'),
    );
    const down = buildReconcileDeps({
      config: {
        managedKind: 'apps/v1',
        cluster: { type: 'kubeconfig', path: refused },
        apiQps: 100,
        apiBurst: 100,
        queues: { work: 'unused', workDlq: 'unused', ingress: 'unused' },
      },
      logger: new Logger({ serviceName: 'reconcile-test', logLevel: 'SILENT' }),
      sqs: harness.queues.sqs,
    });
    const requeues = recordingRequeue();
    const deps = coldDeps(down, { requeue: requeues.requeue });
    const outcome = await runRecord(deps, pairMessage(ds, 'n1'), 'refused');
    expect(outcome).toMatchObject({ type: 'retried', transient: true, afterSeconds: 1, failures: 1 });
    expect(requeues.sent[0]?.message.cause).toMatchObject({
      reason: expect.stringMatching(/^unavailable: /),
    });
  });
});
