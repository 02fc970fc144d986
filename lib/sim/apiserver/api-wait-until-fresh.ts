/**
 * How a read at a resourceVersion the store has not reached waits for it, as kube-apiserver's watch
 * cache does (staging/src/k8s.io/apiserver/pkg/storage/cacher/watch_cache.go
 * `waitUntilFreshAndBlock`): up to `blockTimeout`, 3 s, then 504 "Too large resource version".
 */
import { SimApiError } from '../schema/api-error.ts';
import type { ClusterStore } from '../storage/store.ts';

/** How long a read waits for the store to reach its version (watch_cache.go `blockTimeout`). */
export const BLOCK_TIMEOUT_MS = 3_000;

/**
 * Resolves once `store` is at `resourceVersion` or later (at once when it already is); rejects with
 * the 504 Too large resource version error after {@link BLOCK_TIMEOUT_MS} without it.
 */
export function waitUntilFresh(store: ClusterStore, resourceVersion: number): Promise<void> {
  if (store.resourceVersion >= resourceVersion) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const finish = (error?: SimApiError) => {
      clearTimeout(timer);
      unsubscribe();
      if (error) reject(error);
      else resolve();
    };
    const timer = setTimeout(
      () => finish(SimApiError.tooLargeResourceVersion(resourceVersion, store.resourceVersion)),
      BLOCK_TIMEOUT_MS,
    );
    const unsubscribe = store.subscribe(() => {
      if (store.resourceVersion >= resourceVersion) finish();
    });
  });
}
