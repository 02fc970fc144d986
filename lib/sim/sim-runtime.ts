/**
 * Everything of a simulated cluster that is not the API server: the scheduler, the kubelets, the
 * node lifecycle and taint eviction controllers and pod GC, sharing one due-time queue over one
 * store. There is no DaemonSet controller (nor ReplicaSet, Deployment…): that is everynode's job.
 */

import { NodeLifecycleController } from './controllers/node-lifecycle.ts';
import { TaintEvictionController } from './controllers/node-lifecycle-eviction.ts';
import { PodGarbageCollector } from './controllers/pod-gc.ts';
import { DueQueue } from './due-queue.ts';
import { SimKubelets } from './kubelet/kubelet.ts';
import { SimScheduler } from './scheduler/scheduler.ts';
import type { SimContext } from './sim-context.ts';
import { resolveSimTiming, type SimTiming } from './sim-timing.ts';
import type { ClusterStore } from './storage/store.ts';

/** The running controllers of a simulated cluster. */
export interface SimRuntime {
  readonly context: SimContext;
  /** Stops every controller and the timer; the store is left as it is. */
  stop(): void;
}

/** Options of startSimRuntime. */
export interface SimRuntimeOptions {
  /** Durations (see SimTiming); unspecified ones take the defaults. */
  readonly timing?: Partial<SimTiming>;
  /** Clock in ms; defaults to Date.now. */
  readonly now?: () => number;
}

/** Starts the scheduler, kubelets and controllers over `store`; they act on what is already there too. */
export function startSimRuntime(store: ClusterStore, options: SimRuntimeOptions = {}): SimRuntime {
  const now = options.now ?? Date.now;
  const queue = new DueQueue({ now });
  const context: SimContext = { store, queue, timing: resolveSimTiming(options.timing), now };
  const controllers = [
    new NodeLifecycleController(context),
    new SimKubelets(context),
    new SimScheduler(context),
    new TaintEvictionController(context),
    new PodGarbageCollector(context),
  ];
  for (const controller of controllers) controller.start();
  return {
    context,
    stop: () => {
      for (const controller of controllers) controller.stop();
      queue.stop();
    },
  };
}
