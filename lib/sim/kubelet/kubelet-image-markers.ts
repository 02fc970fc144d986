/**
 * Image markers: the simulated kubelet runs no containers, so a test chooses how a container
 * behaves through its image. An image `everynode.dev/sim:<marker>[anything]` — e.g.
 * `everynode.dev/sim:crashloop`, or `everynode.dev/sim:crashloop-v2` for a second revision —
 * behaves as follows; every other image starts, becomes ready, keeps running and exits
 * `containerStopSeconds` after SIGTERM when its pod is killed.
 *
 * | marker           | behaviour                                                                     |
 * |------------------|-------------------------------------------------------------------------------|
 * | `crashloop`      | runs, exits with code 1 after `containerExitSeconds`, restarts after a        |
 * |                  | doubling CrashLoopBackOff; `restartCount` grows; never ready; pod `Running`   |
 * | `fail`           | runs, exits with code 1 after `containerExitSeconds`; the pod becomes `Failed` |
 * | `succeed`        | runs, exits with code 0; when every container has, the pod is `Succeeded`     |
 * | `unready`        | runs but never becomes ready (a readiness probe that never passes)            |
 * | `ignore-sigterm` | runs like any image but ignores SIGTERM: a pod being killed waits out its     |
 * |                  | whole grace period, then SIGKILL ends the container (exit code 137)           |
 * | `break-node`     | runs and becomes ready like any image, but `breakNodeSeconds` after it starts |
 * |                  | the node's kubelet reports Ready=False (KubeletNotReady, network plugin not   |
 * |                  | ready) until no such container of a pod not ended runs there any more         |
 */

/** How a simulated container behaves. */
export type ContainerBehavior =
  | 'run'
  | 'crashloop'
  | 'fail'
  | 'succeed'
  | 'unready'
  | 'ignore-sigterm'
  | 'break-node';

/** The repository whose tags are markers. */
export const SIM_IMAGE_REPOSITORY = 'everynode.dev/sim';

const markers: readonly ContainerBehavior[] = [
  'crashloop',
  'fail',
  'succeed',
  'unready',
  'ignore-sigterm',
  'break-node',
];

/** The behaviour an image asks for: its marker when it is `everynode.dev/sim:<marker>…`, else `run`. */
export function containerBehaviorOf(image: string | undefined): ContainerBehavior {
  const prefix = `${SIM_IMAGE_REPOSITORY}:`;
  if (!image?.startsWith(prefix)) return 'run';
  const tag = image.slice(prefix.length);
  return markers.find((marker) => tag.startsWith(marker)) ?? 'run';
}
