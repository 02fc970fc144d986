import type { V1Affinity, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { createPodAction } from '../../lib/core/create-pod-action.ts';
import {
  daemonPodFor,
  daemonPodName,
  NODE_LABEL,
  nodeLabelValue,
  pinToNode,
  targetNodeName,
} from '../../lib/core/daemon-pod.ts';
import { labelValueErrors } from '../../lib/core/object-names.ts';
import { templateHash } from '../../lib/core/template-hash.ts';
import { automaticTolerations } from '../../lib/core/tolerations.ts';
import { aDaemonSet, aPod } from '../support/builders.ts';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const pinned = (node: string) => ({
  matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }],
});
const preferred = [
  { weight: 5, preference: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] } },
];

describe('daemonPodName', () => {
  const long = 'x'.repeat(253);
  it.each([
    { name: 'short names', ds: 'fluentd', node: 'worker-1' },
    { name: '253-character node name', ds: 'fluentd', node: `${long}` },
    { name: '253-character DaemonSet name', ds: long, node: 'worker-1' },
    { name: 'both 253 characters', ds: long, node: 'y'.repeat(253) },
    { name: 'dotted node name', ds: 'fluentd', node: 'ip-10-0-0-1.eu-west-1.compute.internal' },
  ])('is a DNS-1123 label of at most 63 characters: $name', ({ ds, node }) => {
    const name = daemonPodName(ds, node, 'abc123', 7);
    expect(name.length).toBeLessThanOrEqual(63);
    expect(name).toMatch(DNS1123_LABEL);
  });

  it('is readable for short names', () => {
    expect(daemonPodName('fluentd', 'worker-1', 'h1')).toMatch(
      /^fluentd-worker-1-[bcdfghjklmnpqrstvwxz2456789]{10}$/,
    );
  });

  it('is deterministic, with attempt defaulting to 0', () => {
    expect(daemonPodName('ds', 'node', 'h1')).toBe(daemonPodName('ds', 'node', 'h1', 0));
  });

  const base = { ds: 'ds'.repeat(40), node: 'n'.repeat(100), hash: 'h1', attempt: 0 };
  it.each([
    { name: 'node', other: { ...base, node: `${'n'.repeat(99)}m` } },
    { name: 'revision', other: { ...base, hash: 'h2' } },
    { name: 'attempt', other: { ...base, attempt: 1 } },
    { name: 'DaemonSet', other: { ...base, ds: `${'ds'.repeat(39)}dx` } },
  ])('differs by $name even when the readable parts are truncated alike', ({ other }) => {
    expect(daemonPodName(other.ds, other.node, other.hash, other.attempt)).not.toBe(
      daemonPodName(base.ds, base.node, base.hash, base.attempt),
    );
  });
});

describe('daemonPodFor with names at the limits', () => {
  /** A DNS subdomain of `length` characters: dotted labels of `part`, cut, ending alphanumeric. */
  const dnsName = (part: string, length: number) => `${`${part}.`.repeat(length).slice(0, length - 1)}z`;
  const cases = [1, 63, 223, 243, 253].flatMap((dsLength) =>
    [1, 63, 64, 253].map((nodeLength) => ({
      name: `DaemonSet of ${dsLength}, node of ${nodeLength} characters`,
      ds: dnsName('fluent-bit', dsLength),
      node: dnsName('ip-10-0-0-1', nodeLength),
    })),
  );
  it.each(cases)('$name: a valid pod name and label values', ({ ds, node }) => {
    // A real uid has 36 characters; the builder's default embeds the name.
    const owner = aDaemonSet(ds, { labels: { app: 'agent' }, uid: '0b6f8c1e-3f7a-4d2b-9a51-7c2e4f9d1a3b' });
    const pod = daemonPodFor(owner, node, 'bcdfghjklm', { attempt: 3 });
    expect(pod.metadata?.name?.length).toBeLessThanOrEqual(63);
    expect(pod.metadata?.name).toMatch(DNS1123_LABEL);
    for (const value of Object.values(pod.metadata?.labels ?? {}))
      expect(labelValueErrors(value)).toEqual([]);
    expect(pod.metadata?.labels?.[NODE_LABEL]).toBe(node.length <= 63 ? node : nodeLabelValue(node));
    expect(targetNodeName(pod)).toBe(node);
  });

  it('two 253-character nodes differing in their last character get different pod names and labels', () => {
    const [a, b] = [`${dnsName('ip-10-0-0-1', 252)}a`, `${dnsName('ip-10-0-0-1', 252)}b`];
    const ds = aDaemonSet(dnsName('agent', 253), { labels: { app: 'agent' } });
    const [podA, podB] = [daemonPodFor(ds, a, 'h'), daemonPodFor(ds, b, 'h')];
    expect(podA.metadata?.name).not.toBe(podB.metadata?.name);
    expect(podA.metadata?.labels?.[NODE_LABEL]).not.toBe(podB.metadata?.labels?.[NODE_LABEL]);
  });
});

describe('daemonPodFor', () => {
  const ds = aDaemonSet('agent', {
    namespace: 'kube-system',
    annotations: { 'deprecated.daemonset.template.generation': '3' },
    labels: { tier: 'node' },
    tolerations: [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 },
    ],
    podSpec: {
      nodeName: 'ignored',
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'os', operator: 'In', values: ['linux'] }] }],
          },
          preferredDuringSchedulingIgnoredDuringExecution: preferred,
        },
      },
    },
  });
  const pod = daemonPodFor(ds, 'node-1', 'rev1', {
    attempt: 2,
    annotations: { 'everynode.dev/failure-backoff': '1/2' },
  });

  it('is named by daemonPodName in the DaemonSet namespace', () => {
    expect(pod.metadata?.name).toBe(daemonPodName('agent', 'node-1', 'rev1', 2));
    expect(pod.metadata?.namespace).toBe('kube-system');
  });

  it('carries template labels, pod-template-generation, controller-revision-hash and the DaemonSet uid', () => {
    expect(pod.metadata?.labels).toEqual({
      app: 'agent',
      tier: 'node',
      'pod-template-generation': '3',
      'controller-revision-hash': 'rev1',
      'everynode.dev/daemonset-uid': 'uid-ds-agent',
      'everynode.dev/node': 'node-1',
    });
  });

  it('omits pod-template-generation when the DaemonSet has no generation annotation', () => {
    expect(daemonPodFor(aDaemonSet('plain'), 'n', 'h').metadata?.labels).not.toHaveProperty(
      'pod-template-generation',
    );
  });

  it('merges the given annotations over the template annotations', () => {
    expect(pod.metadata?.annotations).toEqual({ 'everynode.dev/failure-backoff': '1/2' });
  });

  it('has a controller ownerReference with blockOwnerDeletion', () => {
    expect(pod.metadata?.ownerReferences).toEqual([
      {
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        name: 'agent',
        uid: 'uid-ds-agent',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
  });

  it('is pinned to the node: required terms replaced, preferred kept, nodeName empty', () => {
    expect(pod.spec?.affinity?.nodeAffinity).toEqual({
      requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [pinned('node-1')] },
      preferredDuringSchedulingIgnoredDuringExecution: preferred,
    });
    expect(pod.spec?.nodeName).toBeUndefined();
    expect(targetNodeName(pod)).toBe('node-1');
  });

  it('has the automatic tolerations, replacing the same user toleration', () => {
    expect(pod.spec?.tolerations).toEqual(automaticTolerations(false));
  });

  it('does not modify the DaemonSet', () => {
    const before = structuredClone(ds);
    daemonPodFor(ds, 'node-2', 'rev1');
    expect(ds).toEqual(before);
  });

  it('is deterministic', () => {
    expect(daemonPodFor(ds, 'node-1', 'rev1')).toEqual(daemonPodFor(ds, 'node-1', 'rev1'));
  });
});

describe('daemonPodFor and createPodAction with node readiness gate keys', () => {
  const KEY = 'example.com/agent-not-ready';
  const gateToleration = (key: string) => ({ key, operator: 'Exists', effect: 'NoSchedule' });
  const userToleration = { key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' };
  const ds = aDaemonSet('agent', { tolerations: [userToleration] });
  const plain = [userToleration, ...automaticTolerations(false)];

  it.each([
    { name: 'no gate keys: the template and automatic tolerations only', gateKeys: [], expected: plain },
    {
      name: 'one gate key: tolerated NoSchedule Exists',
      gateKeys: [KEY],
      expected: [...plain, gateToleration(KEY)],
    },
    {
      name: 'two gate keys: each tolerated, in the order given',
      gateKeys: [KEY, 'everynode.dev/not-ready'],
      expected: [...plain, gateToleration(KEY), gateToleration('everynode.dev/not-ready')],
    },
  ])('daemonPodFor, $name', ({ gateKeys, expected }) => {
    expect(daemonPodFor(ds, 'n1', 'rev1', { gateKeys }).spec?.tolerations).toEqual(expected);
  });

  it('createPodAction passes the gate keys on to the pod it creates', () => {
    const gated = createPodAction(ds, 'n1', 'rev1', [], {}, 'missing', [KEY]);
    const ungated = createPodAction(ds, 'n1', 'rev1', [], {}, 'missing');
    expect(gated.pod.spec?.tolerations).toEqual([...plain, gateToleration(KEY)]);
    expect(ungated.pod.spec?.tolerations).toEqual(plain);
  });

  it('leaves the template, the revision hash and the pod name and labels as they are', () => {
    const before = structuredClone(ds);
    const hash = templateHash(ds.spec?.template ?? {});
    const gated = createPodAction(ds, 'n1', 'rev1', [], { a: 'b' }, 'missing', [KEY]).pod;
    const ungated = createPodAction(ds, 'n1', 'rev1', [], { a: 'b' }, 'missing').pod;
    expect(ds).toEqual(before);
    expect(templateHash(ds.spec?.template ?? {})).toBe(hash);
    expect(gated.metadata).toEqual(ungated.metadata);
    expect({ ...gated.spec, tolerations: [] }).toEqual({ ...ungated.spec, tolerations: [] });
  });
});

describe('nodeLabelValue', () => {
  const long = `${'a'.repeat(60)}.example.internal`;
  it.each([
    {
      name: 'a short node name is its own value',
      node: 'ip-10-0-1-23.ec2.internal',
      expected: 'ip-10-0-1-23.ec2.internal',
    },
    { name: 'a 63-character name is its own value', node: 'n'.repeat(63), expected: 'n'.repeat(63) },
  ])('$name', ({ node, expected }) => {
    expect(nodeLabelValue(node)).toBe(expected);
  });

  it('hashes a name longer than a label value may be, deterministically and distinctly', () => {
    const value = nodeLabelValue(long);
    expect(value).toMatch(/^h-[0-9a-f]{16}$/);
    expect(nodeLabelValue(long)).toBe(value);
    expect(nodeLabelValue(`${long}x`)).not.toBe(value);
  });

  it('labels the daemon pod with the value for its node', () => {
    expect(daemonPodFor(aDaemonSet('plain'), long, 'h').metadata?.labels?.[NODE_LABEL]).toBe(
      nodeLabelValue(long),
    );
  });
});

describe('pinToNode', () => {
  it.each<{ name: string; affinity: V1Affinity | undefined; expected: V1Affinity }>([
    {
      name: 'no affinity',
      affinity: undefined,
      expected: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [pinned('n')] },
        },
      },
    },
    {
      name: 'pod anti-affinity only: kept',
      affinity: { podAntiAffinity: {} },
      expected: {
        podAntiAffinity: {},
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [pinned('n')] },
        },
      },
    },
    {
      name: 'preferred only: kept, required added',
      affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: preferred } },
      expected: {
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: preferred,
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [pinned('n')] },
        },
      },
    },
    {
      name: 'several required terms: all replaced',
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [pinned('other'), { matchExpressions: [] }],
          },
        },
      },
      expected: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [pinned('n')] },
        },
      },
    },
  ])('$name', ({ affinity, expected }) => {
    expect(pinToNode(affinity, 'n')).toEqual(expected);
  });
});

describe('targetNodeName', () => {
  const withTerms = (
    terms: NonNullable<V1Affinity['nodeAffinity']>['requiredDuringSchedulingIgnoredDuringExecution'],
  ): V1Pod => {
    const pod = aPod('p');
    pod.spec = {
      containers: [],
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: terms } },
    };
    return pod;
  };
  it.each([
    { name: 'bound pod: spec.nodeName', pod: aPod('p', { nodeName: 'bound' }), expected: 'bound' },
    { name: 'no nodeName and no affinity', pod: aPod('p'), expected: undefined },
    { name: 'pinned by matchFields', pod: withTerms({ nodeSelectorTerms: [pinned('n1')] }), expected: 'n1' },
    {
      name: 'pinning term after a label term',
      pod: withTerms({
        nodeSelectorTerms: [{ matchExpressions: [{ key: 'a', operator: 'Exists' }] }, pinned('n2')],
      }),
      expected: 'n2',
    },
    {
      name: 'matchFields with two values is not unique',
      pod: withTerms({
        nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a', 'b'] }] }],
      }),
      expected: undefined,
    },
    {
      name: 'NotIn does not pin',
      pod: withTerms({
        nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['a'] }] }],
      }),
      expected: undefined,
    },
    { name: 'no terms', pod: withTerms({ nodeSelectorTerms: [] }), expected: undefined },
  ])('$name', ({ pod, expected }) => {
    expect(targetNodeName(pod)).toBe(expected);
  });
});
