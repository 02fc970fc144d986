/**
 * The address of a stored object, as the garbage collector (store-gc.ts, store-gc-owner.ts) tracks it.
 */
import type { ResourceKey } from '../schema/resources.ts';

/** A stored object's address. */
export interface ObjectRef {
  readonly key: ResourceKey;
  readonly namespace: string | undefined;
  readonly name: string;
}
