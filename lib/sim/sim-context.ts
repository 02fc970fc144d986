/**
 * What every in-process part of the simulated cluster (scheduler, kubelets, controllers) shares:
 * the store it reads and writes without HTTP, the cluster's single due-time queue, the timing, and
 * the clock.
 */

import type { DueQueue } from './due-queue.ts';
import { SimApiError } from './schema/api-error.ts';
import type { SimTiming } from './sim-timing.ts';
import type { ClusterStore, KubeObject } from './storage/store.ts';

/** Shared runtime of one simulated cluster. */
export interface SimContext {
  readonly store: ClusterStore;
  readonly queue: DueQueue;
  readonly timing: SimTiming;
  /** Milliseconds since the epoch. */
  readonly now: () => number;
}

/** A part of the cluster that follows the store until stopped. */
export interface SimController {
  start(): void;
  stop(): void;
}

/** `ns/name` of a namespaced object (the queue and cache key the runtime uses). */
export function objectKey(obj: Readonly<KubeObject>): string {
  return `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
}

/**
 * True for an error telling a controller its write is moot: the object is gone (404) or was
 * replaced by one with another uid (409 on a uid precondition).
 */
export function isGoneOrReplaced(error: unknown): boolean {
  return error instanceof SimApiError && (error.status === 404 || error.status === 409);
}
