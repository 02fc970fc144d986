/**
 * Types shared by the store's modules and its users (the HTTP layer and the in-process runtime).
 */
import type { V1ObjectMeta } from '@kubernetes/client-node';
import type { ResourceKey } from './resources.ts';

/** A Kubernetes object as stored and sent on the wire: plain JSON, timestamps as RFC 3339 strings. */
export type KubeObject = { apiVersion: string; kind: string; metadata: V1ObjectMeta; [key: string]: unknown };

/**
 * One change of the store. `object` is the new state (for DELETED: the final state, carrying the
 * resourceVersion of the deletion); `oldObject` the state before, absent for ADDED. Both are frozen
 * shared references: copy before changing.
 */
export interface StoreEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  key: ResourceKey;
  object: KubeObject;
  oldObject?: KubeObject;
}

/** Which objects a list or watch selects. */
export interface ListFilter {
  /** Only objects of this namespace; undefined or '' for all namespaces. */
  namespace?: string;
  /** A label selector string (`app=x,tier in (a,b),!legacy`). */
  labelSelector?: string;
  /** A field selector string (`spec.nodeName=n1,status.phase!=Failed`). */
  fieldSelector?: string;
}

/** DeleteOptions the store honours. */
export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

/**
 * Sees the fields of an object being written that its schema does not know (paths in the
 * decoder's order, possibly none) and the object as it came, before they are dropped; throwing
 * refuses the write (fieldValidation=Strict). Without it they are dropped silently.
 */
export type UnknownFieldsHook = (
  paths: readonly string[],
  original: Readonly<Record<string, unknown>>,
) => void;

/** Options of create. */
export interface CreateOptions {
  dryRun?: boolean;
  onUnknownFields?: UnknownFieldsHook;
}

/** Options of update and patch. */
export interface UpdateOptions {
  /** `status`: only the status is taken; `resize` (pods): only container resources and resizePolicy. */
  subresource?: 'status' | 'resize';
  dryRun?: boolean;
  onUnknownFields?: UnknownFieldsHook;
}

/** Patch content types the API server accepts. */
export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';
