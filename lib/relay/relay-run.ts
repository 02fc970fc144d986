/**
 * One scheduled relay run on AWS, and the schedule arithmetic that makes consecutive runs overlap so
 * that no change falls between them.
 *
 * Let P = EVERYNODE_RELAY_RUN_SECONDS, the period of the stack's relay schedule (`relayEvery`,
 * default 300 s), and T = min(900, P + 60) s the function timeout the stack sets. Run i starts at
 * s_i = i·P (+ EventBridge delivery, under a second, + a cold start c of a few seconds), lists, and
 * watches until s_i + P + O, with the overlap O = {@link RELAY_OVERLAP_SECONDS} = 30 s, but never
 * past T − F, keeping F = {@link RELAY_FLUSH_RESERVE_SECONDS} = 15 s to publish what is queued and
 * write the checkpoint (P + O + F = P + 45 < T = P + 60).
 * - Gaps at every hand-over: the stack reserves a concurrency of 1, so two runs never publish side
 *   by side, and a run lasts longer than P (P + O of watching, plus its LIST and stop). Run i+1,
 *   invoked at s_{i+1} while run i still watches, is throttled; Lambda's asynchronous queue retries
 *   it with backoff (1 s doubling to 5 minutes) and it starts only when a retry finds run i gone,
 *   then resumes from the checkpoint run i wrote last, so nothing is lost — but nobody watches
 *   between run i's end and run i+1's start: seconds to minutes at every hand-over
 *   (`npm run bench -- relay-handover` models it at about 110 s per hour). The successor chain in
 *   relay-handover.ts is the design that removes the gap (docs/design.md, 25).
 * - Duplicates: a run resuming from the checkpoint publishes again what its predecessor published
 *   after its last checkpoint write; the router turns those into work messages with the same FIFO de-duplication id (the cause carries the object's
 *   resourceVersion) well within SQS's 5-minute window, so each is reconciled once.
 * - A run that does not start (throttled, failed): run i+1 resumes from the checkpoint in SSM, which
 *   run i kept within {@link RELAY_CHECKPOINT_EVERY_MS} of what it published. Within the API server's
 *   watch history (etcd compaction, 5 minutes by default) the watch replays the missed changes;
 *   beyond it the watch answers 410 Gone and the relay relists and publishes a resync trigger.
 * - One run writes the checkpoint at a time (concurrency 1), and only versions it has published, so
 *   resuming from it can replay (de-duplicated) events, never lose one.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type RelayOptions, startRelay } from './relay.ts';

/** Seconds a run watches past its period, overlapping the next run. */
export const RELAY_OVERLAP_SECONDS = 30;
/** Seconds kept before the function timeout to publish the last batch and write the checkpoint. */
export const RELAY_FLUSH_RESERVE_SECONDS = 15;
/** How often a run writes its checkpoint to SSM (PutParameter allows a few writes per second). */
export const RELAY_CHECKPOINT_EVERY_MS = 5_000;

/**
 * How long a run started with `remainingMillis` before its timeout watches: the period plus the
 * overlap, cut so that the flush reserve remains; never negative.
 */
export function relayWatchMillis(runSeconds: number, remainingMillis: number): number {
  const wanted = (runSeconds + RELAY_OVERLAP_SECONDS) * 1000;
  return Math.max(0, Math.min(wanted, remainingMillis - RELAY_FLUSH_RESERVE_SECONDS * 1000));
}

/** What one run did. */
export interface RelayRunReport {
  readonly watchedMillis: number;
  readonly forwarded: number;
  readonly dropped: number;
  readonly coalesced: number;
  readonly relists: number;
  readonly published: number;
}

/**
 * Runs the relay for `watchMillis`, then stops it (publishing what is queued and writing the final
 * checkpoint). Rejects when the relay could not start or publishing failed — the next run resumes
 * from the checkpoint.
 */
export async function runRelayFor(
  options: Readonly<RelayOptions>,
  watchMillis: number,
): Promise<RelayRunReport> {
  const started = Date.now();
  const relay = await startRelay(options);
  const timer = new AbortController();
  await Promise.race([
    sleep(watchMillis, undefined, { signal: timer.signal }).catch(() => undefined),
    relay.done,
  ]).finally(() => timer.abort());
  await relay.stop();
  return { watchedMillis: Date.now() - started, ...relay.stats, published: relay.published };
}
