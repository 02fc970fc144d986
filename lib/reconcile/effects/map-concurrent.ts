/** Requests of one plan in flight at once: enough to keep the budget busy, few enough to stop early on errors. */
const EXECUTION_CONCURRENCY = 16;

/**
 * `fn` over `items` with at most {@link EXECUTION_CONCURRENCY} in flight; resolves to the results in
 * order, or rejects with the first error once every started call has settled.
 */
export async function mapConcurrent<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (next < items.length && failure === undefined) {
      const index = next++;
      try {
        results[index] = await fn(items[index] as T);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(EXECUTION_CONCURRENCY, items.length) }, worker));
  if (failure !== undefined) throw failure.error;
  return results;
}
