/**
 * "Current" includes the size: a pod of the current revision is current only with the size its
 * node calls for, and the rolling update, the status counts and the surge rule all judge it so.
 */
import type { V1Container, V1DaemonSet, V1Node, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { computeDaemonSetStatus } from '../../../lib/core/daemon-set-status.ts';
import { hasNodeSize, wronglySizedContainers } from '../../../lib/core/node-sizing/pod-size.ts';
import { nodeViewsFor } from '../../../lib/core/node-view.ts';
import { planPair } from '../../../lib/core/pair-plan.ts';
import { findUpdatedPodsOnNode, isPodCurrent } from '../../../lib/core/pod-revision.ts';
import { planRollout } from '../../../lib/core/rolling-update/plan.ts';
import { aDaemonSet, aPod } from '../../support/builders.ts';
import { eksNode, exampleRules, INSTANCE_TYPE, LARGE, XL8, XL32 } from './sizing-fixtures.ts';

const HASH = 'rev2';
const NOW = new Date('2026-01-02T00:00:00Z');

const agent: V1Container = {
  name: 'agent',
  image: 'agent:1',
  resources: { requests: { cpu: '100m', memory: '256Mi' }, limits: { cpu: '100m', memory: '512Mi' } },
};
const proxy: V1Container = { name: 'proxy', image: 'proxy:1', resources: { requests: { cpu: '10m' } } };

function sizedDs(options: { maxUnavailable?: number; maxSurge?: number } = {}): V1DaemonSet {
  const ds = aDaemonSet('sized', {
    annotations: { 'everynode.dev/node-sizing': JSON.stringify(exampleRules('agent')) },
    podSpec: { containers: [agent, proxy] },
  });
  const rolling = { maxUnavailable: options.maxUnavailable ?? 1, maxSurge: options.maxSurge ?? 0 };
  return {
    ...ds,
    spec: {
      ...(ds.spec as NonNullable<V1DaemonSet['spec']>),
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: rolling },
    },
  };
}

/** The agent's resources on each example node, as the pair step creates them. */
const SIZES = {
  large: { requests: { cpu: '50m', memory: '186Mi' }, limits: { cpu: '50m', memory: '372Mi' } },
  xl8: { requests: { cpu: '160m', memory: '2181Mi' }, limits: { cpu: '160m', memory: '4362Mi' } },
  xl32: { requests: { cpu: '639m', memory: '6Gi' }, limits: { cpu: '639m', memory: '12Gi' } },
};

/** A running, ready pod of `ds` on `node` whose agent has `resources`, of revision `hash`. */
function podWith(
  ds: V1DaemonSet,
  node: string,
  resources: V1Container['resources'],
  extra: { hash?: string; proxy?: V1Container; name?: string; age?: number } = {},
): V1Pod {
  const pod = aPod(extra.name ?? `sized-${node}`, {
    owner: ds,
    nodeName: node,
    phase: 'Running',
    ready: true,
    readySince: new Date(NOW.getTime() - 3_600_000),
    creationTimestamp: new Date(NOW.getTime() - (extra.age ?? 3600) * 1000),
    labels: { 'controller-revision-hash': extra.hash ?? HASH },
  });
  return {
    ...pod,
    spec: {
      ...(pod.spec as NonNullable<V1Pod['spec']>),
      containers: [{ ...agent, resources }, extra.proxy ?? proxy],
    },
  };
}

const large = eksNode('n-large', 'm6a.large', LARGE);
const xl8 = eksNode('n-8xl', 'm6a.8xlarge', XL8);

describe('hasNodeSize', () => {
  const ds = sizedDs();
  const cases: [string, V1Pod, V1Node | undefined, string[]][] = [
    ['a pod created for its node', podWith(ds, 'n-8xl', SIZES.xl8), xl8, []],
    ['a pod with the template (unsized) values', podWith(ds, 'n-8xl', agent.resources), xl8, ['agent']],
    [
      'a pod sized for the node before its allocatable grew',
      podWith(ds, 'n-8xl', SIZES.large),
      eksNode('n-8xl', 'm6a.8xlarge', XL8),
      ['agent'],
    ],
    [
      'a pod whose node took the label of the fixed entry (memory 6Gi)',
      podWith(ds, 'n-32xl', {
        requests: { cpu: '639m', memory: '4Gi' },
        limits: { cpu: '639m', memory: '8Gi' },
      }),
      eksNode('n-32xl', 'r6a.32xlarge', XL32),
      ['agent'],
    ],
    [
      'the same amounts written otherwise (0.16 cpu, memory in bytes)',
      podWith(ds, 'n-8xl', {
        requests: { cpu: '0.16', memory: String(2181 * 1024 * 1024) },
        limits: { cpu: '160m', memory: '4362Mi' },
      }),
      xl8,
      [],
    ],
    [
      'values an admission plugin added, which the sized template does not name',
      podWith(
        ds,
        'n-8xl',
        { ...SIZES.xl8, limits: { ...SIZES.xl8.limits, 'ephemeral-storage': '1Gi' } },
        {
          proxy: {
            ...proxy,
            resources: { requests: { cpu: '10m' }, limits: { cpu: '500m', memory: '1Gi' } },
          },
        },
      ),
      xl8,
      [],
    ],
    [
      'a pod on a node that is gone: judged by its revision alone',
      podWith(ds, 'gone', agent.resources),
      undefined,
      [],
    ],
  ];
  it.each(cases)('%s', (_, pod, node, wrong) => {
    expect(wronglySizedContainers(pod, ds, node)).toEqual(wrong);
    expect(hasNodeSize(pod, ds, node)).toBe(wrong.length === 0);
  });

  it('a DaemonSet without rules sizes nothing: every pod has its size', () => {
    const plain = aDaemonSet('plain', { podSpec: { containers: [agent] } });
    expect(hasNodeSize(podWith(plain, 'n-8xl', { requests: { cpu: '1' } }), plain, xl8)).toBe(true);
  });
});

describe('isPodCurrent: the revision and the size', () => {
  const ds = sizedDs();
  it.each([
    ['current revision, right size', HASH, SIZES.xl8, true],
    ['current revision, wrong size', HASH, SIZES.large, false],
    ['old revision, right size', 'rev1', SIZES.xl8, false],
  ] as const)('%s', (_, hash, resources, current) => {
    const pod = podWith(ds, 'n-8xl', resources, { hash });
    expect(isPodCurrent(pod, HASH, ds, xl8)).toBe(current);
    const found = findUpdatedPodsOnNode(ds, [pod], HASH, xl8);
    expect(found).toEqual(
      current ? { ok: true, newPod: pod, oldPod: undefined } : { ok: true, newPod: undefined, oldPod: pod },
    );
  });
});

describe('the template generation under sizing rules', () => {
  /** `ds` at deprecated template generation 1, as the apps/v1 API server annotates it. */
  const atGeneration = (ds: V1DaemonSet): V1DaemonSet => ({
    ...ds,
    metadata: {
      ...ds.metadata,
      annotations: { ...ds.metadata?.annotations, 'deprecated.daemonset.template.generation': '1' },
    },
  });
  const oldPod = (ds: V1DaemonSet) => {
    const pod = podWith(ds, 'n-8xl', SIZES.xl8, { hash: 'rev1' });
    return {
      ...pod,
      metadata: { ...pod.metadata, labels: { ...pod.metadata?.labels, 'pod-template-generation': '1' } },
    };
  };

  it('a pod of the old rules is not updated: an annotation change moves no template generation', () => {
    const ds = atGeneration(sizedDs());
    expect(isPodCurrent(oldPod(ds), HASH, ds, xl8)).toBe(false);
  });

  it('without rules the template generation still counts (upstream IsPodUpdated)', () => {
    const ds = atGeneration(aDaemonSet('plain', { podSpec: { containers: [agent, proxy] } }));
    expect(isPodCurrent(oldPod(ds), HASH, ds, xl8)).toBe(true);
  });
});

describe('a node whose allocatable grew: its pod is updated like an old one', () => {
  const ds = sizedDs({ maxUnavailable: 1 });
  // Both nodes grew to 8xlarge allocatable; their pods still have the large size.
  const grown = [eksNode('a', 'm6a.8xlarge', XL8), eksNode('b', 'm6a.8xlarge', XL8), large];
  const pods = [
    podWith(ds, 'a', SIZES.large),
    podWith(ds, 'b', SIZES.large),
    podWith(ds, 'n-large', SIZES.large),
  ];

  it('the status does not count a wrongly sized pod as updated', () => {
    const byNode = Object.fromEntries(pods.map((p) => [p.spec?.nodeName ?? '', [p]]));
    const status = computeDaemonSetStatus(ds, grown, byNode, HASH, NOW);
    expect(status).toMatchObject({
      desiredNumberScheduled: 3,
      numberAvailable: 3,
      updatedNumberScheduled: 1,
    });
  });

  it('the rolling update replaces one of them within maxUnavailable, never the rightly sized one', () => {
    const views = nodeViewsFor(ds, grown, pods);
    const actions = planRollout({ ds, nodes: views, currentHash: HASH, now: NOW });
    expect(actions.map((a) => (a.type === 'delete' ? a.node : a.type))).toEqual(['a']);
  });

  it('with surge, the pair plan keeps the new rightly sized pod and deletes the old one once available', () => {
    const surging = sizedDs({ maxUnavailable: 0, maxSurge: 1 });
    const old = podWith(surging, 'a', SIZES.large, { name: 'old', age: 7200 });
    const made = podWith(surging, 'a', SIZES.xl8, { name: 'new', age: 3600 });
    const actions = planPair({ ds: surging, node: grown[0], pods: [old, made], currentHash: HASH, now: NOW });
    expect(actions.map((a) => (a.type === 'delete' ? a.name : a.type))).toEqual(['old']);
  });
});

describe('a node whose labels changed', () => {
  it('the fixed entry for r6a.32xlarge makes the pod wrongly sized once the node carries the type', () => {
    const ds = sizedDs();
    const relabelled = { ...xl8, metadata: { ...xl8.metadata, labels: { [INSTANCE_TYPE]: 'r6a.32xlarge' } } };
    expect(wronglySizedContainers(podWith(ds, 'n-8xl', SIZES.xl8), ds, relabelled)).toEqual(['agent']);
  });
});
