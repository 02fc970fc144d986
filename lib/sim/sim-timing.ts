/**
 * How fast the simulated kubelets and controllers move. Every duration is given in the seconds a
 * real cluster would take and multiplied by `timeScale`, so tests can run a 30 s grace period in
 * 30 ms with `timeScale: 0.001` while the CLI runs at real speed.
 */

/** Durations of the simulated cluster, in real-cluster seconds (before `timeScale`). */
export interface SimTiming {
  /** Multiplies every duration below and every pod's grace period and tolerationSeconds. Default 1. */
  readonly timeScale: number;
  /** From a pod being bound to a Ready node until its containers run (phase Running). Default 1. */
  readonly podStartSeconds: number;
  /**
   * The part of `podStartSeconds` a new pod spends on its sandbox (network namespace, CNI, IP)
   * before its containers are created: a container restarted in place skips it, as the kubelet's
   * computePodActions keeps the sandbox when only a container changed. Default 0.
   */
  readonly podSandboxSeconds: number;
  /** From containers running until they are ready (condition Ready=True). Default 1. */
  readonly podReadySeconds: number;
  /** How long a container with a crash/fail/succeed image marker runs before it exits. Default 2. */
  readonly containerExitSeconds: number;
  /**
   * How long a container takes to exit on SIGTERM when its pod is killed (deleted, or set to a
   * terminal phase); the pod's grace period caps it, and `ignore-sigterm` images wait out the whole
   * grace period instead. Default 1.
   */
  readonly containerStopSeconds: number;
  /** First CrashLoopBackOff delay; doubles per restart up to `maxCrashLoopBackOffSeconds`. Default 10. */
  readonly crashLoopBackOffSeconds: number;
  /** Cap of the CrashLoopBackOff delay (kubelet's MaxContainerBackOff). Default 300. */
  readonly maxCrashLoopBackOffSeconds: number;
  /** How long pod GC waits before deleting a pod bound to a node that does not exist. Default 40. */
  readonly podGcQuarantineSeconds: number;
  /**
   * How long a container with the `break-node` image marker runs before its node's kubelet reports
   * Ready=False. Default 3.
   */
  readonly breakNodeSeconds: number;
  /**
   * How long the kubelet takes to apply an allocated in-place resize (PodResizeInProgress meanwhile).
   * Default 1.
   */
  readonly podResizeSeconds: number;
}

/** The durations a real cluster roughly shows (kubelet defaults where there is one). */
export const defaultSimTiming: SimTiming = {
  timeScale: 1,
  podStartSeconds: 1,
  podSandboxSeconds: 0,
  podReadySeconds: 1,
  containerExitSeconds: 2,
  containerStopSeconds: 1,
  crashLoopBackOffSeconds: 10,
  maxCrashLoopBackOffSeconds: 300,
  podGcQuarantineSeconds: 40,
  breakNodeSeconds: 3,
  podResizeSeconds: 1,
};

/** `partial` over the defaults; throws a RangeError on a negative or non-finite value. */
export function resolveSimTiming(partial: Readonly<Partial<SimTiming>> = {}): SimTiming {
  const timing = { ...defaultSimTiming, ...partial };
  if (timing.podSandboxSeconds > timing.podStartSeconds) {
    throw new RangeError(
      `simulated cluster timing podSandboxSeconds (${timing.podSandboxSeconds}) must not exceed podStartSeconds (${timing.podStartSeconds})`,
    );
  }
  for (const [name, value] of Object.entries(timing)) {
    if (!Number.isFinite(value) || value < 0) {
      throw new RangeError(`simulated cluster timing ${name} must be a finite number >= 0, got ${value}`);
    }
  }
  return timing;
}

/** `seconds` of simulated time as real milliseconds under `timing.timeScale`. */
export function scaledMs(timing: Readonly<SimTiming>, seconds: number): number {
  return seconds * 1000 * timing.timeScale;
}

let lastSecond = Number.NaN;
let lastText = '';

/** `ms` since the epoch as the API server writes times: RFC 3339 in UTC, whole seconds. */
export function rfc3339(ms: number): string {
  const second = Math.floor(ms / 1000);
  // Status writes ask for the same second thousands of times in a row: format it once.
  if (second !== lastSecond) {
    lastSecond = second;
    lastText = new Date(second * 1000).toISOString().replace('.000Z', 'Z');
  }
  return lastText;
}
