/**
 * `slimNode`: a node as the API server sends it, reduced to what the relay reads of it — identity
 * and times, labels, the gate's released marker, taints, unschedulable, the conditions without
 * their heartbeats, the allocatable cpu, memory and pods node sizing reads — so its facets and its
 * hint are the whole node's.
 */
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  DAEMONSETS_READY_CONDITION,
  GATE_RELEASED_ANNOTATION,
} from '../../../lib/core/node-gates/gate-decision.ts';
import { nodeHintOf } from '../../../lib/messages/pair-hints.ts';
import { facetsOf } from '../../../lib/relay/cluster-view/decision-facets.ts';
import { slimNode } from '../../../lib/relay/watches/slim-node.ts';

const t = (s: string) => new Date(s);
const released = JSON.stringify({ 'everynode.dev/not-ready': '2026-11-30T00:00:05.000Z' });

/** What the relay reads of the node's metadata: kept as it is. */
const identity = {
  name: 'ip-10-0-1-23.eu-west-1.compute.internal',
  uid: 'uid-n1',
  resourceVersion: '4711',
  creationTimestamp: t('2026-11-30T00:00:00Z'),
  deletionTimestamp: t('2026-11-30T01:00:00Z'),
  labels: { 'kubernetes.io/os': 'linux', 'topology.kubernetes.io/zone': 'eu-west-1a' },
};
const taints = [
  { key: 'everynode.dev/not-ready', effect: 'NoSchedule', timeAdded: t('2026-11-30T00:00:01Z') },
];
/** The node's conditions as kept: without their heartbeats. */
const conditions = [
  {
    type: 'Ready',
    status: 'True',
    reason: 'KubeletReady',
    message: 'kubelet is posting ready status',
    lastTransitionTime: t('2026-11-30T00:00:02Z'),
  },
  {
    type: DAEMONSETS_READY_CONDITION,
    status: 'True',
    reason: 'DaemonSetsReady',
    message: 'every gating DaemonSet that should run here has an available pod',
    lastTransitionTime: t('2026-11-30T00:00:05Z'),
  },
];

/** A node as a kubelet and the control plane leave it. */
function wholeNode(): V1Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      ...structuredClone(identity),
      generation: 3,
      annotations: {
        [GATE_RELEASED_ANNOTATION]: released,
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
      },
      finalizers: ['example.com/drain'],
      managedFields: [{ manager: 'kubelet', operation: 'Update', fieldsType: 'FieldsV1' }],
    },
    spec: {
      providerID: 'aws:///eu-west-1a/i-0123456789abcdef0',
      podCIDR: '10.0.1.0/24',
      podCIDRs: ['10.0.1.0/24'],
      taints: structuredClone(taints),
      unschedulable: true,
    },
    status: {
      addresses: [{ type: 'InternalIP', address: '10.0.1.23' }],
      allocatable: { cpu: '3920m', memory: '15Gi', pods: '110', 'ephemeral-storage': '20Gi' },
      capacity: { cpu: '4', memory: '16Gi', pods: '110' },
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      images: [{ names: ['registry.example/agent:1.2'], sizeBytes: 123_456_789 }],
      nodeInfo: {
        architecture: 'amd64',
        bootID: 'b',
        containerRuntimeVersion: 'containerd://1.7.0',
        kernelVersion: '6.1.0',
        kubeProxyVersion: 'v1.33.0',
        kubeletVersion: 'v1.33.0',
        machineID: 'm',
        operatingSystem: 'linux',
        osImage: 'Amazon Linux 2023',
        systemUUID: 's',
      },
      conditions: conditions.map((c) => ({ ...c, lastHeartbeatTime: t('2026-11-30T00:10:00Z') })),
    },
  };
}

describe('slimNode', () => {
  it('keeps identity, times, labels, the released marker, taints, unschedulable, the conditions less heartbeats and the allocatable node sizing reads', () => {
    expect(slimNode(wholeNode())).toStrictEqual({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { ...identity, annotations: { [GATE_RELEASED_ANNOTATION]: released } },
      spec: { taints, unschedulable: true },
      status: { conditions, allocatable: { cpu: '3920m', memory: '15Gi', pods: '110' } },
    });
  });

  it('drops images, addresses, capacity, node info, the other annotations, managedFields and the rest', () => {
    const text = JSON.stringify(slimNode(wholeNode()));
    for (const dropped of [
      'lastHeartbeatTime',
      'images',
      'addresses',
      'ephemeral-storage',
      'capacity',
      'daemonEndpoints',
      'nodeInfo',
      'providerID',
      'podCIDR',
      'node.alpha.kubernetes.io/ttl',
      'controller-managed-attach-detach',
      'managedFields',
      'finalizers',
      'generation',
    ])
      expect(text).not.toContain(dropped);
    // About half of even this small node (one image); a real node's images alone are kilobytes.
    expect(text.length).toBeLessThan(JSON.stringify(wholeNode()).length * 0.55);
  });

  it('gives the whole node its facets and its hint', () => {
    const node = wholeNode();
    expect(facetsOf('nodes', slimNode(node))).toEqual(facetsOf('nodes', node));
    expect(JSON.stringify(nodeHintOf(slimNode(node)))).toBe(JSON.stringify(nodeHintOf(node)));
    const bare: V1Node = { metadata: { name: 'bare', resourceVersion: '1' } };
    expect(facetsOf('nodes', slimNode(bare))).toEqual(facetsOf('nodes', bare));
    expect(nodeHintOf(slimNode(bare))).toEqual(nodeHintOf(bare));
  });

  it('adds nothing the node lacks: no annotations without the marker, no apiVersion or kind', () => {
    const { apiVersion: _, kind: __, ...node } = wholeNode();
    node.metadata = { ...node.metadata, annotations: { 'node.alpha.kubernetes.io/ttl': '0' } };
    const slim = slimNode(node);
    expect(slim).not.toHaveProperty('apiVersion');
    expect(slim).not.toHaveProperty('kind');
    expect(slim.metadata).not.toHaveProperty('annotations');
  });

  it('leaves the node it is given as it was', () => {
    const node = wholeNode();
    slimNode(node);
    expect(node).toEqual(wholeNode());
  });
});
