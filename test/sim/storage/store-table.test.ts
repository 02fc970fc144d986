import { describe, expect, it } from 'vitest';
import { ClusterStore } from '../../../lib/sim/storage/store.ts';
import { newNode, newPod } from '../../support/store-test-helpers.ts';

/** Names of the pods a list with `filter` returns. */
function podNames(store: ClusterStore, filter: { labelSelector?: string; fieldSelector?: string }): string[] {
  return store.view('pods', filter).map((p) => p.metadata.name ?? '');
}

describe('ResourceTable indexes after writes', () => {
  const cases: {
    name: string;
    change: (store: ClusterStore) => void;
    lists: { filter: { labelSelector?: string; fieldSelector?: string }; names: string[] }[];
  }[] = [
    {
      name: 'a label value changed',
      change: (store) =>
        store.mutate('pods', 'default', 'a', (p) => {
          p.metadata.labels = { ...p.metadata.labels, tier: 'back' };
        }),
      lists: [
        { filter: { labelSelector: 'tier=front' }, names: ['b'] },
        { filter: { labelSelector: 'tier=back' }, names: ['a'] },
        { filter: { labelSelector: 'app=web' }, names: ['a', 'b'] },
      ],
    },
    {
      name: 'a label removed',
      change: (store) =>
        store.mutate('pods', 'default', 'a', (p) => {
          p.metadata.labels = { app: 'web' };
        }),
      lists: [
        { filter: { labelSelector: 'tier' }, names: ['b'] },
        { filter: { labelSelector: '!tier' }, names: ['a'] },
      ],
    },
    {
      name: 'moved to another node, then its status written',
      change: (store) => {
        store.mutate('pods', 'default', 'a', (p) => {
          (p.spec as { nodeName?: string }).nodeName = 'n2';
        });
        store.mutate(
          'pods',
          'default',
          'a',
          (p) => {
            p.status = { phase: 'Running' };
          },
          { subresource: 'status' },
        );
      },
      lists: [
        { filter: { fieldSelector: 'spec.nodeName=n1' }, names: ['b'] },
        { filter: { fieldSelector: 'spec.nodeName=n2' }, names: ['a'] },
        { filter: { labelSelector: 'tier=front', fieldSelector: 'spec.nodeName=n2' }, names: ['a'] },
      ],
    },
  ];
  it.each(cases)('$name', ({ change, lists }) => {
    const store = new ClusterStore();
    for (const node of ['n1', 'n2']) store.create('nodes', newNode(node));
    for (const name of ['a', 'b'])
      store.create('pods', newPod(name, { nodeName: 'n1', labels: { app: 'web', tier: 'front' } }));
    change(store);
    for (const { filter, names } of lists)
      expect(podNames(store, filter), JSON.stringify(filter)).toEqual(names);
  });
});
