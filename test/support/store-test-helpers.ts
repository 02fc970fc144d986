/**
 * Helpers for the store tests: objects as a client sends them for creation (no server-owned
 * metadata), built from the shared fixture builders.
 */
import type { V1DaemonSet, V1Node, V1Pod } from '@kubernetes/client-node';
import { SimApiError } from '../../lib/sim/schema/api-error.ts';
import type { KubeObject } from '../../lib/sim/storage/store.ts';
import { aDaemonSet, aNode, aPod, type DaemonSetOptions, type PodOptions } from './builders.ts';

/** `obj` without the metadata the server owns, as a client would POST it. */
export function forCreate(obj: V1Pod | V1DaemonSet | V1Node): KubeObject {
  const { uid: _u, resourceVersion: _r, creationTimestamp: _c, ...metadata } = obj.metadata ?? {};
  return { ...(obj as unknown as KubeObject), metadata };
}

/** A pod to create (status dropped: the server sets it). */
export function newPod(name: string, options: PodOptions = {}): KubeObject {
  const { status: _s, ...pod } = forCreate(aPod(name, options));
  return pod as KubeObject;
}

/** A DaemonSet to create. */
export function newDaemonSet(name: string, options: DaemonSetOptions = {}): KubeObject {
  return forCreate(aDaemonSet(name, options));
}

/** A node to create. */
export function newNode(name: string, options: Parameters<typeof aNode>[1] = {}): KubeObject {
  return forCreate(aNode(name, options));
}

/** The SimApiError `run` throws (fails the test when it throws something else or nothing). */
export function apiErrorOf(run: () => unknown): SimApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof SimApiError) return error;
    throw error;
  }
  throw new Error('expected a SimApiError, but nothing was thrown');
}
