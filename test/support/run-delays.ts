/** Kubelet run delays for the pure kubelet tests: a second to start and to turn ready. */
import type { RunDelays } from '../../lib/sim/kubelet/kubelet-pod-run.ts';

export const TEST_RUN_DELAYS: RunDelays = {
  startMs: 1000,
  readyMs: 1000,
  exitMs: 2000,
  backOffMs: 10_000,
  maxBackOffMs: 300_000,
  stopMs: 1000,
};
