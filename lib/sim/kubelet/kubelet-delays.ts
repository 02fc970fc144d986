/** The simulated cluster's timing as the real milliseconds the kubelet's pod runs wait. */
import { type SimTiming, scaledMs } from '../sim-timing.ts';
import type { RunDelays } from './kubelet-pod-run.ts';

/** Each RunDelays entry from `timing`, scaled by its timeScale. */
export function runDelaysOf(t: Readonly<SimTiming>): RunDelays {
  return {
    startMs: scaledMs(t, t.podStartSeconds),
    sandboxMs: scaledMs(t, t.podSandboxSeconds),
    readyMs: scaledMs(t, t.podReadySeconds),
    exitMs: scaledMs(t, t.containerExitSeconds),
    backOffMs: scaledMs(t, t.crashLoopBackOffSeconds),
    maxBackOffMs: scaledMs(t, t.maxCrashLoopBackOffSeconds),
    stopMs: scaledMs(t, t.containerStopSeconds),
  };
}

/** The earlier of two due times, either of which may be unset. */
export function earliest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.min(a, b);
}
