import { describe, expect, it } from 'vitest';
import { sizeBatches } from '../../lib/queue/size-batches.ts';

/** Items named by their size, so a batch reads as the sizes it holds. */
const sized = (...sizes: number[]): number[] => sizes;

describe('sizeBatches', () => {
  it.each([
    { name: 'no items', items: sized(), maxCount: 10, maxBytes: 100, batches: [] },
    { name: 'few small items', items: sized(1, 2, 3), maxCount: 10, maxBytes: 100, batches: [[1, 2, 3]] },
    {
      name: 'many small items, cut by count',
      items: sized(1, 1, 1, 1, 1),
      maxCount: 2,
      maxBytes: 100,
      batches: [[1, 1], [1, 1], [1]],
    },
    {
      name: 'large items, cut by size',
      items: sized(40, 40, 40, 40, 40),
      maxCount: 10,
      maxBytes: 100,
      batches: [[40, 40], [40, 40], [40]],
    },
    {
      name: 'a batch filled to exactly the bound',
      items: sized(60, 40, 1),
      maxCount: 10,
      maxBytes: 100,
      batches: [[60, 40], [1]],
    },
    {
      name: 'whichever bound comes first',
      items: sized(10, 10, 10, 90, 5, 5, 5),
      maxCount: 3,
      maxBytes: 100,
      batches: [[10, 10, 10], [90, 5, 5], [5]],
    },
    {
      name: 'an item above the bound, alone in its own batch',
      items: sized(10, 150, 10),
      maxCount: 10,
      maxBytes: 100,
      batches: [[10], [150], [10]],
    },
    {
      name: 'items of size zero, cut by count only',
      items: sized(0, 0, 0),
      maxCount: 2,
      maxBytes: 0,
      batches: [[0, 0], [0]],
    },
  ])('cuts $name in order', ({ items, maxCount, maxBytes, batches }) => {
    expect(sizeBatches(items, { maxCount, maxBytes, sizeOf: (size) => size })).toEqual(batches);
  });
});
