/**
 * The cutting of a list into the batches an AWS batch API takes (PutEvents, SendMessageBatch):
 * those APIs bound both the number of entries of one request and their summed size.
 */

/**
 * `items` cut, in order, into consecutive batches of at most `maxCount` items (at least 1) whose
 * `sizeOf` sum to at most `maxBytes`, each batch taking items for as long as the next one fits.
 * An item larger than `maxBytes` on its own gets a batch of its own, so that the caller can refuse
 * it with an error of its own; no items give no batches.
 */
export function sizeBatches<T>(
  items: readonly T[],
  limits: Readonly<{ maxCount: number; maxBytes: number; sizeOf: (item: T) => number }>,
): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = limits.sizeOf(item);
    if (current.length > 0 && (current.length >= limits.maxCount || bytes + size > limits.maxBytes)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
