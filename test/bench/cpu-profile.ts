/**
 * The benchmarks' `--cpu-profile FILE`: a V8 CPU profile of the calling thread over one phase.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

/** A running profile; `stop()` writes it. */
export interface CpuProfile {
  stop(): Promise<void>;
}

/**
 * Starts profiling this thread when `file` is given; `stop()` then writes the profile to `file`
 * (load it in Chrome DevTools or `speedscope`). Without `file`, both are no-ops.
 */
export async function startCpuProfile(file: string | undefined): Promise<CpuProfile> {
  if (file === undefined) return { stop: async () => undefined };
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    stop: async () => {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}
