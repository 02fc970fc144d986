/**
 * The triggers the relay publishes, as the router reads them: a watch event's detail (identity,
 * the pod's controller and target node, the changed facets, the flags that are set, the hints) and
 * its bus event, and the resync request (with the gate change of a relist).
 */
import type { V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { daemonPodFor } from '../../../lib/core/daemon-pod.ts';
import type { DaemonSet } from '../../../lib/core/daemon-set.ts';
import { parseTrigger } from '../../../lib/messages/parse-trigger.ts';
import {
  RELAY_SOURCE,
  RESYNC_DETAIL_TYPE,
  WATCH_DETAIL_TYPE,
  type WatchEventDetail,
  watchEventDetailSchema,
} from '../../../lib/messages/trigger.ts';
import { type BusEvent, eventEnvelopeOf } from '../../../lib/queue/event-bus.ts';
import { RelayNodeContext } from '../../../lib/relay/cluster-view/node-context.ts';
import { resyncTriggerEvent, watchDetailOf, watchTriggerEvent } from '../../../lib/relay/output/trigger.ts';
import { aDaemonSet, aNode, aPod } from '../../support/builders.ts';

const agent = aDaemonSet('agent', { uid: 'ds-agent', namespace: 'tools' }) as V1DaemonSet;
const at = new Date('2026-11-30T00:00:00.250Z');

/** A context knowing `agent`, node n1 and one pod of `agent` there: the hints of every test. */
function context(): RelayNodeContext {
  const known = new RelayNodeContext();
  known.seed('daemonsets', [agent as DaemonSet]);
  known.seed('nodes', [aNode('n1', { labels: { disk: 'ssd' } })]);
  known.seed('pods', [aPod('agent-n1', { owner: agent, nodeName: 'n1', uid: 'p1' })]);
  return known;
}

/** The trigger the router reads off the ingress queue for `event`. */
function routed(event: BusEvent) {
  const parsed = parseTrigger(JSON.stringify(eventEnvelopeOf(event)));
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.trigger;
}

describe('watchDetailOf', () => {
  it('a node event: its identity, the changes (a copy), its hints; never a node version of its own', () => {
    const node = aNode('n1', { labels: { disk: 'ssd' } });
    const hints = context().hintsFor(node, at);
    const changes = ['labels', 'taints'];
    const event = { type: 'MODIFIED' as const, object: node, resourceVersion: '12' };
    const detail = watchDetailOf('nodes', event, changes, 'apps/v1', { node: hints, nodesVersion: '12' });
    expect(detail).toEqual({
      v: 1,
      event: 'MODIFIED',
      kind: 'Node',
      apiVersion: 'v1',
      name: 'n1',
      uid: 'uid-node-n1',
      resourceVersion: '12',
      changes: ['labels', 'taints'],
      hints,
    });
    expect(detail.changes).not.toBe(changes);
    expect(watchEventDetailSchema.parse(detail)).toEqual(detail);
  });

  it("a pod event: its namespace, controller reference and node, the flags set, its pair's and node's hints", () => {
    const known = context();
    const pod = aPod('agent-n1', { owner: agent, nodeName: 'n1', uid: 'p1', resourceVersion: '20' });
    const event = { type: 'MODIFIED' as const, object: pod, resourceVersion: '20' };
    const pair = known.pairHintsFor(pod, at, '20');
    const node = known.nodeHintsFor('n1', at);
    const flags = { gatesNode: true, rolloutSlot: false, settles: true };
    const detail = watchDetailOf('pods', event, ['ready'], 'everynode.dev/v1', {
      node,
      pair,
      ...flags,
      nodesVersion: '9',
    });
    expect(detail).toEqual({
      v: 1,
      event: 'MODIFIED',
      kind: 'Pod',
      apiVersion: 'v1',
      name: 'agent-n1',
      namespace: 'tools',
      uid: 'p1',
      resourceVersion: '20',
      // The reference's identity only: not `controller` nor `blockOwnerDeletion`.
      controller: { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: 'ds-agent' },
      nodeName: 'n1',
      changes: ['ready'],
      gatesNode: true,
      settles: true,
      hints: node,
      pairHints: pair,
      nodesVersion: '9',
    });
    expect(pair).toBeDefined();
    expect(node).toBeDefined();
    expect(watchEventDetailSchema.parse(detail)).toEqual(detail);
  });

  it.each<{ name: string; pod: () => V1Pod; fields: Partial<WatchEventDetail> }>([
    {
      name: 'pinned to a node, not bound yet: its target node',
      pod: () => {
        const pod = daemonPodFor(agent as DaemonSet, 'n2', 'hash1');
        pod.metadata = { ...pod.metadata, uid: 'p2' };
        return pod;
      },
      fields: { nodeName: 'n2', controller: expect.objectContaining({ uid: 'ds-agent' }) },
    },
    { name: 'of no controller, on no node', pod: () => aPod('bare', { uid: 'p3' }), fields: {} },
  ])('a pod event of a pod $name', ({ pod, fields }) => {
    const detail = watchDetailOf(
      'pods',
      { type: 'ADDED', object: pod(), resourceVersion: '21' },
      [],
      'apps/v1',
    );
    expect(detail).toEqual({
      v: 1,
      event: 'ADDED',
      kind: 'Pod',
      apiVersion: 'v1',
      name: expect.any(String),
      namespace: expect.any(String),
      uid: expect.any(String),
      resourceVersion: '21',
      ...fields,
    });
  });

  it('a DaemonSet event: the managed kind as its apiVersion, the gate change (a copy), the node version', () => {
    const gateChange = { keys: ['everynode.dev/not-ready', 'example.com/agent'] };
    const ds = { ...agent, apiVersion: 'everynode.dev/v1' } as DaemonSet;
    const deleted = { type: 'DELETED' as const, object: ds, resourceVersion: '30' };
    const detail = watchDetailOf('daemonsets', deleted, [], 'everynode.dev/v1', {
      gateChange,
      nodesVersion: '28',
      gatesNode: false,
    });
    expect(detail).toEqual({
      v: 1,
      event: 'DELETED',
      kind: 'DaemonSet',
      apiVersion: 'everynode.dev/v1',
      name: 'agent',
      namespace: 'tools',
      uid: 'ds-agent',
      resourceVersion: '30',
      gateChange: { keys: ['everynode.dev/not-ready', 'example.com/agent'] },
      nodesVersion: '28',
    });
    expect(detail.gateChange?.keys).not.toBe(gateChange.keys);
    const appsV1 = watchDetailOf('daemonsets', { ...deleted, type: 'MODIFIED' }, ['spec'], 'apps/v1', {
      gateChange: undefined,
    });
    expect(appsV1).toMatchObject({ apiVersion: 'apps/v1', changes: ['spec'] });
    expect(appsV1).not.toHaveProperty('gateChange');
    expect(appsV1).not.toHaveProperty('nodesVersion');
  });
});

describe('the bus events', () => {
  it('a watch trigger: the relay as source, the watch detail-type, the time; the router reads the detail back', () => {
    const pod = aPod('agent-n1', { owner: agent, nodeName: 'n1', uid: 'p1' });
    const pair = context().pairHintsFor(pod, at, '20');
    const detail = watchDetailOf(
      'pods',
      { type: 'MODIFIED', object: pod, resourceVersion: '20' },
      ['phase'],
      'apps/v1',
      {
        pair,
        rolloutSlot: true,
      },
    );
    const event = watchTriggerEvent(detail, at);
    expect(event).toEqual({ source: RELAY_SOURCE, detailType: WATCH_DETAIL_TYPE, detail, time: at });
    expect(event.source).toBe('everynode.relay');
    expect(event.detailType).toBe('Kubernetes Watch Event');
    const trigger = routed(event);
    expect(trigger).toMatchObject({ type: 'watch', time: '2026-11-30T00:00:00Z', watch: detail });
  });

  it('a resync request: its reason, and the gate change of the relist only when there is one', () => {
    const plain = resyncTriggerEvent('relay relisted pods after 410 Gone', at);
    expect(plain).toEqual({
      source: RELAY_SOURCE,
      detailType: RESYNC_DETAIL_TYPE,
      detail: { v: 1, reason: 'relay relisted pods after 410 Gone' },
      time: at,
    });
    expect(plain.detailType).toBe('Everynode Resync');
    const keys = ['example.com/agent'];
    const gated = resyncTriggerEvent('relay relisted daemonsets after 410 Gone', at, { keys });
    expect(gated.detail).toEqual({
      v: 1,
      reason: 'relay relisted daemonsets after 410 Gone',
      gateChange: { keys: ['example.com/agent'] },
    });
    expect((gated.detail.gateChange as { keys: string[] }).keys).not.toBe(keys);
    expect(routed(gated)).toMatchObject({
      type: 'resync',
      reason: 'relay relisted daemonsets after 410 Gone',
      gateChange: { keys: ['example.com/agent'] },
    });
    expect(routed(plain)).not.toHaveProperty('gateChange');
  });
});
