/**
 * `RelayPodIndex`: everynode's pods as the relay's pod watch last saw them, by uid and by the node
 * they target (bound or pinned), in the order they were last put; how many of each controller's
 * pods are not ready; and its seeding from a LIST taken page by page.
 */
import type { V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { daemonPodFor } from '../../../lib/core/daemon-pod.ts';
import type { DaemonSet } from '../../../lib/core/daemon-set.ts';
import { podHintOf } from '../../../lib/messages/pair-hints.ts';
import { RelayPodIndex } from '../../../lib/relay/cluster-view/pod-index.ts';
import { Interner } from '../../../lib/relay/cluster-view/shared-values.ts';
import { aDaemonSet, aPod } from '../../support/builders.ts';

const agent = aDaemonSet('agent', { uid: 'ds-agent' }) as V1DaemonSet;
const logs = aDaemonSet('logs', { uid: 'ds-logs' }) as V1DaemonSet;

const pod = (
  uid: string,
  node: string,
  options: { ready?: boolean; owner?: V1DaemonSet; rv?: string } = {},
) =>
  aPod(`pod-${uid}`, {
    uid,
    nodeName: node,
    owner: options.owner ?? agent,
    ready: options.ready ?? true,
    resourceVersion: options.rv ?? '1',
  });

const index = (pods: V1Pod[] = []) => {
  const known = new RelayPodIndex(new Interner());
  for (const p of pods) known.put(p);
  return known;
};

const uidsOn = (known: RelayPodIndex, node: string) => known.podsOn(node).map((p) => p.uid);

describe('RelayPodIndex', () => {
  it("files each pod under the node it targets, as its hint, and gives each node's in the order put", () => {
    const pinned = daemonPodFor(agent as DaemonSet, 'n2', 'hash1');
    pinned.metadata = { ...pinned.metadata, uid: 'p-pinned', resourceVersion: '4' };
    const pods = [pod('p1', 'n1'), pinned, pod('p2', 'n1', { owner: logs })];
    const known = index();
    expect(pods.map((p) => known.put(p))).toEqual(['p1', 'p-pinned', 'p2']);
    expect(known.size).toBe(3);
    expect(JSON.stringify(known.podsOn('n1'))).toBe(
      JSON.stringify([pods[0], pods[2]].map((p) => podHintOf(p as V1Pod))),
    );
    expect(known.podsOn('n2')).toEqual([podHintOf(pinned)]);
    expect(known.podsOn('n3')).toEqual([]);
  });

  it('moves an updated pod to the end of its node, and to its new node when it targets another', () => {
    const known = index([pod('p1', 'n1'), pod('p2', 'n1'), pod('p3', 'n1')]);
    known.put(pod('p1', 'n1', { rv: '2' }));
    expect(uidsOn(known, 'n1')).toEqual(['p2', 'p3', 'p1']);
    expect(known.podsOn('n1').at(-1)?.resourceVersion).toBe('2');
    known.put(pod('p2', 'n2', { rv: '3' }));
    expect(uidsOn(known, 'n1')).toEqual(['p3', 'p1']);
    expect(uidsOn(known, 'n2')).toEqual(['p2']);
    expect(known.size).toBe(3);
  });

  it('keeps no pod without uid or target node, and forgets the one that stops targeting a node', () => {
    const known = index([pod('p1', 'n1')]);
    const nameless = pod('', 'n1');
    expect(known.put(nameless)).toBe('');
    const unplaced = aPod('pod-p1', { uid: 'p1', owner: agent, ready: false });
    expect(known.put(unplaced)).toBe('p1');
    expect(known.size).toBe(0);
    expect(known.podsOn('n1')).toEqual([]);
    expect(known.unreadyOf('ds-agent')).toBe(0);
  });

  it('drops a pod by uid; an unknown uid changes nothing', () => {
    const known = index([pod('p1', 'n1'), pod('p2', 'n1'), pod('p3', 'n2')]);
    known.drop('p1');
    known.drop('p1');
    known.drop('unknown');
    expect(known.size).toBe(2);
    expect(uidsOn(known, 'n1')).toEqual(['p2']);
    known.drop('p2');
    expect(known.podsOn('n1')).toEqual([]);
    expect(uidsOn(known, 'n2')).toEqual(['p3']);
  });

  it("counts each controller's pods not ready, as they are put, turn ready and go", () => {
    const known = index([
      pod('p1', 'n1', { ready: false }),
      pod('p2', 'n2', { ready: false }),
      pod('p3', 'n3'),
      pod('l1', 'n1', { owner: logs, ready: false }),
      aPod('orphan', { uid: 'o1', nodeName: 'n1', ready: false }),
    ]);
    expect([known.unreadyOf('ds-agent'), known.unreadyOf('ds-logs'), known.unreadyOf('')]).toEqual([2, 1, 0]);
    known.put(pod('p1', 'n1', { rv: '2' }));
    expect(known.unreadyOf('ds-agent')).toBe(1);
    known.put(pod('p1', 'n1', { rv: '3', ready: false }));
    known.put(pod('p3', 'n3', { rv: '2', ready: false }));
    expect(known.unreadyOf('ds-agent')).toBe(3);
    for (const uid of ['p1', 'p2', 'p3', 'p3', 'l1']) known.drop(uid);
    expect([known.unreadyOf('ds-agent'), known.unreadyOf('ds-logs')]).toEqual([0, 0]);
    expect(known.unreadyOf('never-seen')).toBe(0);
  });
});

describe('RelayPodIndex seeding', () => {
  it('from nothing: takes each page as it comes', () => {
    const known = index();
    const seeding = known.seeding();
    seeding.add([pod('p1', 'n1'), pod('p2', 'n2')]);
    expect(known.size).toBe(2);
    seeding.add([pod('p3', 'n1', { ready: false })]);
    seeding.commit();
    expect(uidsOn(known, 'n1')).toEqual(['p1', 'p3']);
    expect(known.unreadyOf('ds-agent')).toBe(1);
  });

  it('a relist: shows each pod as listed or, not listed yet, as known; forgets the unlisted at the commit', () => {
    const known = index([
      pod('p1', 'n1'),
      pod('p2', 'n1', { ready: false }),
      pod('gone', 'n2', { ready: false }),
    ]);
    const seeding = known.seeding();
    seeding.add([pod('p2', 'n1', { rv: '5' })]);
    expect(known.size).toBe(3);
    expect(known.unreadyOf('ds-agent')).toBe(1);
    seeding.add([pod('p1', 'n1')]);
    expect(uidsOn(known, 'n2')).toEqual(['gone']);
    seeding.commit();
    expect(known.size).toBe(2);
    expect(known.podsOn('n2')).toEqual([]);
    expect(known.unreadyOf('ds-agent')).toBe(0);
    expect(known.podsOn('n1').map((p) => [p.uid, p.resourceVersion])).toEqual([
      ['p1', '1'],
      ['p2', '5'],
    ]);
  });

  it('keeps a pod listed at the version it knows as it is: its place on the node does not move', () => {
    const known = index([pod('p1', 'n1'), pod('p2', 'n1')]);
    const seeding = known.seeding();
    // p1 at the same version: kept; p2 at a new one: put again, so it moves to the end (already there).
    seeding.add([pod('p2', 'n1', { rv: '2' }), pod('p1', 'n1')]);
    seeding.commit();
    expect(uidsOn(known, 'n1')).toEqual(['p1', 'p2']);
    // A pod without a version is always taken as listed: nothing says it is unchanged.
    const before = index([pod('p1', 'n1', { rv: '', ready: false })]);
    const again = before.seeding();
    again.add([pod('p1', 'n1', { rv: '' })]);
    again.commit();
    expect(before.podsOn('n1').map((p) => p.ready)).toEqual([true]);
    expect(before.unreadyOf('ds-agent')).toBe(0);
  });

  it('a relist that shows no pod forgets every one', () => {
    const known = index([pod('p1', 'n1'), pod('p2', 'n2', { ready: false })]);
    const seeding = known.seeding();
    seeding.add([]);
    seeding.commit();
    expect(known.size).toBe(0);
    expect(known.unreadyOf('ds-agent')).toBe(0);
  });
});
