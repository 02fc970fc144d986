/**
 * Replays of the local pipeline's journal for property tests: a window of it, chosen by its
 * distinct times, replayed several times, overlapping or each worked off before the next.
 */

import { replayJournal } from '../../lib/local/local-pipeline-replay.ts';
import { readJournal } from '../../lib/queue/journal.ts';
import type { PipelineWorld } from './pipeline-harness.ts';

/**
 * Resolves once nothing is queued or in flight on the work and ingress queues — and, with `delayed`,
 * once the delayed status refreshes and requeues have run too — three looks in a row.
 */
export async function pipelineIdle(world: PipelineWorld, delayed = false): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (let looks = 0; looks < 3; ) {
    if (Date.now() > deadline) throw new Error('the pipeline is not idle after 30 s');
    await new Promise((resolve) => setTimeout(resolve, 25));
    const d = await world.pipeline.queueDepths();
    looks = d.ingress + d.work + (delayed ? d.ingressDelayed : 0) === 0 ? looks + 1 : 0;
  }
}

/** The distinct times of the journal's entries, in order. */
export async function journalTimes(world: PipelineWorld): Promise<number[]> {
  const times: number[] = [];
  for await (const entry of readJournal(world.pipeline.journalPath)) {
    const at = Date.parse(entry.time);
    if (times.at(-1) !== at) times.push(at);
  }
  return times;
}

/** A window of the journal (indexes into its times, wrapped), how often it is replayed, and how. */
export interface ReplayScenario {
  readonly from: number;
  readonly length: number;
  readonly times: number;
  readonly overlap: boolean;
}

/** Replays the scenario's window of `journal` (its times); each replay named `<name>-<n>`. */
export async function replayWindow(
  world: PipelineWorld,
  journal: readonly number[],
  scenario: Readonly<ReplayScenario>,
  name: () => string,
): Promise<void> {
  const start = scenario.from % journal.length;
  const end = Math.min(journal.length, start + 1 + (scenario.length % journal.length));
  const window = {
    since: new Date(journal[start] as number),
    ...(end < journal.length ? { until: new Date(journal[end] as number) } : {}),
  };
  for (let i = 0; i < scenario.times; i++) {
    const result = await replayJournal({
      journalPath: world.pipeline.journalPath,
      window,
      replayName: name(),
      deliver: (envelopes) => world.pipeline.bus.deliver(envelopes),
    });
    if (result.replayed === 0) throw new Error('the replay window holds no trigger');
    if (!scenario.overlap) await pipelineIdle(world);
  }
  await pipelineIdle(world);
}
