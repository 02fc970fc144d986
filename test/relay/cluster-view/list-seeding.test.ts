import type { V1DaemonSet, V1Node, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { podHintOf } from '../../../lib/messages/pair-hints.ts';
import { RelayObjectCache } from '../../../lib/relay/cluster-view/facet-cache.ts';
import { seedingInPlace } from '../../../lib/relay/cluster-view/list-seeding.ts';
import { RelayNodeContext } from '../../../lib/relay/cluster-view/node-context.ts';
import { aDaemonSet, aNode, aPod } from '../../support/builders.ts';

const agent = aDaemonSet('agent', { uid: 'ds-agent' }) as V1DaemonSet;
const at = new Date('2026-11-30T00:00:00Z');

const pod = (name: string, resourceVersion: string, labels: Record<string, string> = {}): V1Pod =>
  aPod(name, { owner: agent, nodeName: 'n1', uid: `uid-${name}`, resourceVersion, labels });

const nodeAt = (resourceVersion: string, labels: Record<string, string> = {}): V1Node => {
  const node = aNode('n1', { labels });
  node.metadata = { ...node.metadata, resourceVersion };
  return node;
};

describe('seedingInPlace', () => {
  it('puts each listed object as it comes and forgets at the commit what the list did not show', () => {
    const known = new Map([
      ['a', 1],
      ['b', 1],
    ]);
    const seeding = seedingInPlace<{ key: string }>(
      known,
      ({ key }) => {
        known.set(key, 2);
        return key;
      },
      (key) => known.delete(key),
    );
    seeding.add([{ key: 'b' }]);
    seeding.add([{ key: 'c' }]);
    expect([...known]).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 2],
    ]);
    seeding.commit();
    expect([...known]).toEqual([
      ['b', 2],
      ['c', 2],
    ]);
  });
});

describe("a relist of the relay's cache and context", () => {
  it('makes an object the watch saw at the listed version a listed one: a replay at that version is forwarded, a newer event compared', () => {
    const cache = new RelayObjectCache('nodes');
    cache.seed([nodeAt('10')]);
    cache.observe({ type: 'MODIFIED', object: nodeAt('12', { disk: 'ssd' }), resourceVersion: '12' });
    cache.seed([nodeAt('12', { disk: 'ssd' })]);
    // At the listed version the event's "before" is unknown (a replay after a resume): forwarded.
    expect(
      cache.observe({ type: 'MODIFIED', object: nodeAt('12', { disk: 'ssd' }), resourceVersion: '12' }),
    ).toMatchObject({ forward: true });
    const heartbeat = {
      type: 'MODIFIED' as const,
      object: nodeAt('13', { disk: 'ssd' }),
      resourceVersion: '13',
    };
    expect(cache.observe(heartbeat)).toEqual({ forward: false });
  });

  it('keeps the unchanged, takes the changed, drops the unlisted, and hints each pod as listed', () => {
    const context = new RelayNodeContext();
    context.seed('daemonsets', [agent]);
    context.seed('nodes', [nodeAt('5')]);
    context.seed('pods', [pod('a', '1'), pod('b', '1'), pod('c', '1')]);
    const relisted = [pod('a', '1'), pod('c', '2', { tier: 'x' }), pod('d', '1')];
    context.seed('pods', relisted);
    context.seed('nodes', [nodeAt('6', { disk: 'ssd' })]);
    const hints = context.nodeHintsFor('n1', at);
    expect(hints?.node).toMatchObject({ resourceVersion: '6', labels: { disk: 'ssd' } });
    const byName = new Map(hints?.pods.map((hint) => [hint.name, hint]));
    expect([...byName.keys()].sort()).toEqual(['a', 'c', 'd']);
    for (const listed of relisted) expect(byName.get(listed.metadata?.name ?? '')).toEqual(podHintOf(listed));
  });
});
