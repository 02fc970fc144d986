import type { V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { controllerRevisionFor } from '../../../lib/core/controller-revision.ts';
import { daemonPodFor } from '../../../lib/core/daemon-pod.ts';
import type { DaemonSet } from '../../../lib/core/daemon-set.ts';
import {
  DAEMONSETS_READY_CONDITION,
  GATE_RELEASED_ANNOTATION,
} from '../../../lib/core/node-gates/gate-decision.ts';
import { DEFAULT_GATE_TAINT_KEY } from '../../../lib/core/node-gates/gate-declaration.ts';
import { fromJson } from '../../../lib/kube/codec/object-codec.ts';
import { jsonBytes, MAX_PAIR_HINTS_BYTES } from '../../../lib/messages/hint-caps.ts';
import { MAX_NODE_HINTS_BYTES, nodeHintsSchema } from '../../../lib/messages/node-hints.ts';
import { RelayNodeContext } from '../../../lib/relay/cluster-view/node-context.ts';
import { aDaemonSet, aNode, aPod } from '../../support/builders.ts';

const agent = aDaemonSet('agent', { uid: 'ds-agent' }) as V1DaemonSet;
agent.metadata = { ...agent.metadata, resourceVersion: '7' };
const at = new Date('2026-11-30T00:00:00Z');

function withVersion<T extends { metadata?: { resourceVersion?: string } }>(
  object: T,
  resourceVersion: string,
): T {
  return { ...object, metadata: { ...object.metadata, resourceVersion } };
}

describe('RelayNodeContext', () => {
  it('hints name the node, every DaemonSet version and the pods targeting the node, bound or pinned', () => {
    const context = new RelayNodeContext();
    const bound = aPod('agent-n1', { owner: agent, nodeName: 'n1', uid: 'p1' });
    const pinned = daemonPodFor(agent as DaemonSet, 'n2', 'hash1');
    pinned.metadata = { ...pinned.metadata, uid: 'p2', resourceVersion: '3' };
    context.seed('pods', [bound, pinned, aPod('elsewhere', { owner: agent, nodeName: 'n3', uid: 'p3' })]);
    context.seed('daemonsets', [agent as DaemonSet]);
    const n1 = context.hintsFor(aNode('n1', { labels: { disk: 'ssd' } }), at);
    expect(n1).toMatchObject({
      observedAt: at.toISOString(),
      node: { name: 'n1', labels: { disk: 'ssd' } },
      daemonSets: [{ uid: 'ds-agent', resourceVersion: '7' }],
    });
    expect(n1?.pods.map((pod) => pod.uid)).toEqual(['p1']);
    expect(context.hintsFor(aNode('n2'), at)?.pods.map((pod) => pod.uid)).toEqual(['p2']);
  });

  it('follows watch events: a pod bound, modified, deleted; a DaemonSet updated and deleted', () => {
    const context = new RelayNodeContext();
    context.seed('pods', []);
    context.seed('daemonsets', [agent as DaemonSet]);
    const pod = aPod('agent-n1', { owner: agent, nodeName: 'n1', uid: 'p1', resourceVersion: '10' });
    context.observe('pods', { type: 'ADDED', object: pod, resourceVersion: '10' });
    const ready = withVersion(pod, '11') as V1Pod;
    context.observe('pods', { type: 'MODIFIED', object: ready, resourceVersion: '11' });
    expect(context.hintsFor(aNode('n1'), at)?.pods.map((p) => p.resourceVersion)).toEqual(['11']);
    context.observe('pods', { type: 'DELETED', object: ready, resourceVersion: '12' });
    expect(context.hintsFor(aNode('n1'), at)?.pods).toEqual([]);

    const updated = withVersion(agent, '8') as DaemonSet;
    context.observe('daemonsets', { type: 'MODIFIED', object: updated, resourceVersion: '8' });
    expect(context.hintsFor(aNode('n1'), at)?.daemonSets).toMatchObject([
      { uid: 'ds-agent', resourceVersion: '8', object: { metadata: { resourceVersion: '8' } } },
    ]);
    context.observe('daemonsets', { type: 'DELETED', object: updated, resourceVersion: '9' });
    expect(context.hintsFor(aNode('n1'), at)?.daemonSets).toEqual([]);
  });

  it("a pod event's pair hints: the DaemonSet's version, the node, its other pods there", () => {
    const context = new RelayNodeContext();
    const other = aDaemonSet('other', { uid: 'ds-other' }) as V1DaemonSet;
    context.seed('daemonsets', [{ ...agent, metadata: { ...agent.metadata, generation: 3 } } as DaemonSet]);
    context.seed('nodes', [aNode('n1', { labels: { disk: 'ssd' } })]);
    const old = aPod('agent-old', { owner: agent, nodeName: 'n1', uid: 'p-old' });
    const surge = aPod('agent-new', { owner: agent, nodeName: 'n1', uid: 'p-new' });
    context.seed('pods', [old, surge, aPod('other-n1', { owner: other, nodeName: 'n1', uid: 'p-other' })]);
    context.observe('pods', { type: 'DELETED', object: old, resourceVersion: '20' });
    expect(context.pairHintsFor(old, at)).toMatchObject({
      observedAt: at.toISOString(),
      daemonSet: { resourceVersion: '7', generation: 3 },
      node: { name: 'n1', labels: { disk: 'ssd' } },
      pods: [{ uid: 'p-new' }],
    });
    expect(context.pairHintsFor(aPod('elsewhere', { owner: agent, nodeName: 'n9' }), at)?.node).toBeNull();
    expect(context.pairHintsFor(aPod('orphan', { nodeName: 'n1' }), at)).toBeUndefined();
    expect(context.pairHintsFor(aPod('of-other', { owner: other, nodeName: 'n1' }), at)).toBeUndefined();
  });

  it('hints carry each DaemonSet whole, less its managedFields, and its revision hash once revisions are listed', () => {
    const context = new RelayNodeContext();
    const managedFields = [{ manager: 'kubectl', operation: 'Update', fieldsType: 'FieldsV1' }];
    context.seed('daemonsets', [{ ...agent, metadata: { ...agent.metadata, managedFields } } as DaemonSet]);
    const [unknown] = context.hintsFor(aNode('n1'), at)?.daemonSets ?? [];
    expect(unknown).not.toHaveProperty('revisionHash');
    expect(unknown?.object).toMatchObject({
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent', uid: 'ds-agent', resourceVersion: '7' },
      spec: { template: { spec: { containers: [{ name: 'main' }] } } },
    });
    expect(unknown?.object).not.toHaveProperty('metadata.managedFields');

    // No revision yet: the hash of the one the DaemonSet step will create.
    context.seed('controllerrevisions', []);
    const created = controllerRevisionFor(agent as DaemonSet, 1);
    const expected = created.metadata?.labels?.['controller-revision-hash'];
    expect(context.hintsFor(aNode('n1'), at)?.daemonSets[0]?.revisionHash).toBe(expected);

    // A revision whose data matches under another hash (made by another controller, or before a
    // collision) is the current one: its hash is what new pods get.
    const adopted = {
      ...created,
      metadata: {
        ...created.metadata,
        uid: 'rev-1',
        name: 'agent-upstream',
        labels: { 'controller-revision-hash': 'upstream' },
      },
    };
    context.observe('controllerrevisions', { type: 'ADDED', object: adopted, resourceVersion: '30' });
    expect(context.hintsFor(aNode('n1'), at)?.daemonSets[0]?.revisionHash).toBe('upstream');
    expect(context.pairHintsFor(aPod('agent-n1', { owner: agent, nodeName: 'n1' }), at)).toMatchObject({
      daemonSet: { resourceVersion: '7', revisionHash: 'upstream' },
    });
    context.observe('controllerrevisions', { type: 'DELETED', object: adopted, resourceVersion: '31' });
    expect(context.hintsFor(aNode('n1'), at)?.daemonSets[0]?.revisionHash).toBe(expected);
  });

  it("a DaemonSet's everynode extensions travel in its hint and come back out of it", () => {
    const context = new RelayNodeContext();
    const extended = structuredClone(agent) as DaemonSet;
    extended.spec = {
      ...(extended.spec as NonNullable<DaemonSet['spec']>),
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 3, paused: true } as object },
    };
    context.seed('daemonsets', [extended]);
    const object = context.hintsFor(aNode('n1'), at)?.daemonSets[0]?.object;
    const decoded = fromJson<DaemonSet>(structuredClone(object), 'V1DaemonSet');
    expect(decoded.spec?.updateStrategy?.rollingUpdate).toEqual({ partition: 3, paused: true });
    expect(decoded.spec?.template.spec?.containers[0]?.name).toBe('main');
  });

  it("another controller's revision taking the name of the DaemonSet's next one moves the hinted hash on", () => {
    const context = new RelayNodeContext();
    context.seed('daemonsets', [agent as DaemonSet]);
    const wanted = controllerRevisionFor(agent as DaemonSet, 1);
    const theirs = {
      ...wanted,
      metadata: {
        name: wanted.metadata?.name,
        namespace: 'default',
        uid: 'sts-rev',
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'agent', uid: 'sts', controller: true },
        ],
      },
      data: { spec: { template: { metadata: { labels: { app: 'other' } } } } },
    };
    context.seed('controllerrevisions', [theirs]);
    const bumped = controllerRevisionFor(agent as DaemonSet, 1, 1).metadata?.labels?.[
      'controller-revision-hash'
    ];
    expect(context.hintsFor(aNode('n1'), at)?.daemonSets[0]?.revisionHash).toBe(bumped);
  });

  it('hints carry DaemonSet versions only when the DaemonSets whole would not fit', () => {
    const context = new RelayNodeContext();
    const big = Array.from({ length: 40 }, (_, i) => {
      const ds = aDaemonSet(`big-${i}`, { uid: `ds-${i}` }) as V1DaemonSet;
      ds.metadata = { ...ds.metadata, resourceVersion: '1', annotations: { note: 'x'.repeat(2000) } };
      return ds as DaemonSet;
    });
    context.seed('daemonsets', big);
    const hints = context.hintsFor(aNode('n1'), at);
    expect(hints?.daemonSets).toHaveLength(40);
    expect(hints?.daemonSets.every((entry) => entry.object === undefined)).toBe(true);
    expect(JSON.stringify(hints).length).toBeLessThanOrEqual(MAX_NODE_HINTS_BYTES);
  });

  it("node hints carry the node's readiness gate state as the node watch last saw it, and only that", () => {
    const context = new RelayNodeContext();
    context.seed('daemonsets', [agent as DaemonSet]);
    context.seed('nodes', [aNode('n1', { taints: [{ key: DEFAULT_GATE_TAINT_KEY, effect: 'NoSchedule' }] })]);
    expect(context.nodeHintsFor('n1', at)?.node.gate).toEqual({});

    // The node step released the node: the taint gone, the marker set, our condition True. The
    // relay drops that update as a trigger, but follows it for the hints of later events.
    const released = withVersion(aNode('n1'), '5');
    const marker = JSON.stringify({ [DEFAULT_GATE_TAINT_KEY]: '2026-11-30T00:00:00.000Z' });
    released.metadata = {
      ...released.metadata,
      annotations: { [GATE_RELEASED_ANNOTATION]: marker, 'node.alpha.kubernetes.io/ttl': '0' },
    };
    released.status = {
      conditions: [
        { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' },
        {
          type: DAEMONSETS_READY_CONDITION,
          status: 'True',
          reason: 'DaemonSetsReady',
          message: 'every gating DaemonSet that should run here has an available pod',
          lastTransitionTime: at,
        },
      ],
    };
    context.observe('nodes', { type: 'MODIFIED', object: released, resourceVersion: '5' });
    const gate = {
      released: marker,
      condition: {
        type: DAEMONSETS_READY_CONDITION,
        status: 'True',
        reason: 'DaemonSetsReady',
        message: 'every gating DaemonSet that should run here has an available pod',
        lastTransitionTime: at.toISOString(),
      },
    };
    const hints = context.nodeHintsFor('n1', at);
    expect(hints?.node).toMatchObject({ resourceVersion: '5', gate });
    expect(hints?.node.taints).toBeUndefined();
    expect(context.hintsFor(released, at)?.node.gate).toEqual(gate);
    const pod = aPod('agent-n1', { owner: agent, nodeName: 'n1', uid: 'p1' });
    expect(context.pairHintsFor(pod, at)?.node).toMatchObject({ resourceVersion: '5', gate });
    // Only the marker and our condition's texts: not the node's other annotations, not the kubelet's.
    const text = JSON.stringify(hints);
    expect(text).not.toContain('node.alpha.kubernetes.io/ttl');
    expect(text).not.toContain('kubelet is posting ready status');
    expect(nodeHintsSchema.parse(JSON.parse(text)).node.gate).toEqual(gate);
  });

  it('the gate state counts in the size limit of the hints', () => {
    const context = new RelayNodeContext();
    const big = Array.from({ length: 12 }, (_, i) => {
      const ds = aDaemonSet(`big-${i}`, { uid: `ds-${i}` }) as V1DaemonSet;
      ds.metadata = { ...ds.metadata, resourceVersion: '1', annotations: { note: 'x'.repeat(3000) } };
      return ds as DaemonSet;
    });
    context.seed('daemonsets', big);
    const node = aNode('n1');
    expect(context.hintsFor(node, at)?.daemonSets.every((entry) => entry.object !== undefined)).toBe(true);
    // A long condition message tips the DaemonSets whole over the limit: they go as versions only.
    const message = `waiting for an available pod of ${'default/agent, '.repeat(700)}`;
    node.status = { conditions: [{ type: DAEMONSETS_READY_CONDITION, status: 'False', message }] };
    const hints = context.hintsFor(node, at);
    expect(hints?.node.gate?.condition?.message).toBe(message);
    expect(hints?.daemonSets.every((entry) => entry.object === undefined)).toBe(true);
    expect(JSON.stringify(hints).length).toBeLessThanOrEqual(MAX_NODE_HINTS_BYTES);
  });

  it('pair hints carry a capped pod hint for a pod of thousands of labels, and none past their bound', () => {
    const context = new RelayNodeContext();
    context.seed('daemonsets', [agent as DaemonSet]);
    const labels = Object.fromEntries(
      Array.from({ length: 2_000 }, (_, i) => [`example.com/label-${i}`, 'v'.repeat(63)]),
    );
    const wide = aPod('agent-n1', { owner: agent, nodeName: 'n1', uid: 'p1', labels });
    context.seed('pods', [wide]);
    context.seed('nodes', [aNode('n1')]);
    const pair = context.pairHintsFor(wide, at, '9');
    expect(pair?.pods).toHaveLength(1);
    expect(pair?.pods[0]?.capped).toBe(true);
    expect(jsonBytes(pair)).toBeLessThanOrEqual(MAX_PAIR_HINTS_BYTES);
    expect(jsonBytes(context.hintsFor(aNode('n1'), at))).toBeLessThanOrEqual(MAX_NODE_HINTS_BYTES);
    // A node of thousands of labels: the pair hints would not fit, and go not at all.
    context.seed('nodes', [aNode('n1', { labels })]);
    expect(context.pairHintsFor(wide, at, '9')).toBeUndefined();
    expect(context.hintsFor(aNode('n1', { labels }), at)).toBeUndefined();
  });

  it('measures the bound of node hints in UTF-8 bytes, not characters', () => {
    const context = new RelayNodeContext();
    const node = aNode('n1');
    // 20,000 characters of three bytes each: within the bound counted in characters, not in bytes.
    const message = '\u2603'.repeat(20_000);
    node.status = { conditions: [{ type: DAEMONSETS_READY_CONDITION, status: 'False', message }] };
    expect(JSON.stringify(node.status).length).toBeLessThan(MAX_NODE_HINTS_BYTES);
    expect(context.hintsFor(node, at)).toBeUndefined();
  });

  it('a relist replaces what was known', () => {
    const context = new RelayNodeContext();
    context.seed('pods', [aPod('old', { owner: agent, nodeName: 'n1', uid: 'p-old' })]);
    context.seed('pods', [aPod('new', { owner: agent, nodeName: 'n1', uid: 'p-new' })]);
    expect(context.hintsFor(aNode('n1'), at)?.pods.map((p) => p.uid)).toEqual(['p-new']);
  });

  it('gives no hints when they would not fit in a trigger', () => {
    const context = new RelayNodeContext();
    const many = Array.from({ length: 200 }, (_, i) =>
      aPod(`pod-${i}`, { owner: agent, nodeName: 'n1', uid: `p-${i}`, labels: { big: 'x'.repeat(60) } }),
    );
    context.seed('pods', many);
    expect(MAX_NODE_HINTS_BYTES).toBeLessThan(64 * 1024);
    expect(context.hintsFor(aNode('n1'), at)).toBeUndefined();
    expect(context.hintsFor(aNode('n2'), at)).toBeDefined();
  });
});
