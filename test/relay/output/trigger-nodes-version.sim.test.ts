/**
 * The node version the relay stamps on pod and DaemonSet triggers, against the simulated cluster
 * through the real client: the version of its node LIST at first, moved by every node change it
 * forwards (one that can move a placement) and by no other; the router passes it on to the
 * `daemonset` messages it makes, where a DaemonSet step may plan on a node LIST at least that new
 * (docs/design.md, 15. The DaemonSet step).
 */
import type { V1DaemonSet } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecentlySent, routeIngressMessage } from '../../../lib/router/router.ts';
import type { KubeObject } from '../../../lib/sim/storage/store.ts';
import { eventually } from '../../support/journal-triggers.ts';
import { type RelayWorld, startRelayWorld } from '../../support/relay-world.ts';
import { newDaemonSet } from '../../support/store-test-helpers.ts';

describe('the node version on pod and DaemonSet triggers: relay → router', () => {
  let world: RelayWorld;

  beforeAll(async () => {
    world = await startRelayWorld({ nodes: 2, timeScale: 0.1, visibilityTimeoutSeconds: 1 });
  });
  afterAll(() => world?.stop());

  const nodeNames = () => world.sim.store.list('nodes').map((n) => n.metadata.name ?? '');
  const versionOf = (name: string) =>
    (world.sim.store.get('nodes', undefined, name) as KubeObject).metadata.resourceVersion ?? '';

  it('stamps the newest forwarded node change, not a change placement ignores, and the router passes it on', async () => {
    const [first, second] = nodeNames();
    const relay = await world.relay('journal');
    const triggerOf = async (kind: string, name: string) => {
      const named = async () =>
        (await world.triggers('journal'))
          .map((s) => s.detail)
          .filter((d) => d.kind === kind && d.name === name);
      return (await eventually(named, (seen) => seen.length > 0))[0];
    };
    let stamped: { ds?: string; afterLabel?: string; afterAnnotation?: string } = {};
    let bodies: string[] = [];
    let added = '';
    let labelled = '';
    try {
      const ds = world.sim.store.create('apps/daemonsets', newDaemonSet('agent')) as unknown as V1DaemonSet;
      // A second DaemonSet: a pod's creation is the first change of its DaemonSet's status window.
      const other = world.sim.store.create(
        'apps/daemonsets',
        newDaemonSet('other'),
      ) as unknown as V1DaemonSet;
      const listed = (await triggerOf('DaemonSet', 'agent'))?.nodesVersion;
      // A label moves placements: forwarded, so it moves the version.
      world.sim.store.mutate('nodes', undefined, first ?? '', (n) => {
        n.metadata.labels = { ...n.metadata.labels, zone: 'b' };
      });
      labelled = versionOf(first ?? '');
      await triggerOf('Node', first ?? '');
      world.createPodOf(ds, first ?? '', { name: 'agent-a' });
      const afterLabel = (await triggerOf('Pod', 'agent-a'))?.nodesVersion;
      // An annotation moves none: dropped as a trigger, so the version stays.
      world.sim.store.mutate('nodes', undefined, second ?? '', (n) => {
        n.metadata.annotations = { ...n.metadata.annotations, note: 'x' };
      });
      world.createPodOf(other, second ?? '', { name: 'other-b' });
      const afterAnnotation = (await triggerOf('Pod', 'other-b'))?.nodesVersion;
      stamped = { ...(listed ? { ds: listed } : {}), afterLabel, afterAnnotation } as typeof stamped;
      bodies = (await world.triggers('journal'))
        .filter((s) => s.detail.kind === 'Pod' && s.detail.name === 'agent-a' && s.detail.event === 'ADDED')
        .map((s) => s.body);
      added =
        (await world.triggers('journal')).find(
          (s) => s.detail.kind === 'Pod' && s.detail.name === 'agent-a' && s.detail.event === 'ADDED',
        )?.detail.resourceVersion ?? '';
    } finally {
      await relay.stop();
    }
    expect(stamped.ds).toBeDefined();
    // The node LIST's version at first, older than the label's change.
    expect(BigInt(stamped.ds ?? '0')).toBeLessThan(BigInt(labelled));
    expect(stamped.afterLabel).toBe(labelled);
    expect(stamped.afterAnnotation).toBe(labelled);

    // The router's status refresh of the pod's event carries the version to the DaemonSet step, and
    // the pod event's own version, up to which the step catches its kept pods up.
    expect(added).not.toBe('');
    const { deps, delayed } = world.router();
    for (const body of bodies) await routeIngressMessage(body, deps, new RecentlySent());
    expect(await world.drainWork()).toEqual([]);
    expect(delayed.map((e) => e.message)).toMatchObject([
      { kind: 'daemonset', daemonSet: { name: 'agent' }, nodesVersion: labelled, podsVersion: added },
    ]);
  });
});
