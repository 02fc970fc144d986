/**
 * The in-place change of a sized DaemonSet's pod: each pod is resized to what the rules give its
 * own node, an image change keeps every pod's size, and a node change resizes that pod alone.
 */
import type { V1Container, V1Node, V1Pod, V1PodTemplateSpec } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { InPlaceChange } from '../../../lib/core/in-place/in-place-change.ts';
import { resizeAlone, sizedInPlaceChange } from '../../../lib/core/in-place/sized-in-place-change.ts';
import { nodeSizingOf } from '../../../lib/core/node-sizing/node-sizing.ts';
import type { SizingRule } from '../../../lib/core/node-sizing/sizing-rule.ts';
import { aDaemonSet, aPod } from '../../support/builders.ts';
import { eksNode, exampleRules, LARGE, XL8 } from '../node-sizing/sizing-fixtures.ts';

const agent: V1Container = {
  name: 'agent',
  image: 'agent:1',
  resources: { requests: { cpu: '100m', memory: '256Mi' }, limits: { cpu: '100m', memory: '512Mi' } },
};
const proxy: V1Container = { name: 'proxy', image: 'proxy:1', resources: { requests: { cpu: '10m' } } };
const template = (agentImage = 'agent:1'): V1PodTemplateSpec => ({
  metadata: { labels: { app: 'agent' } },
  spec: { containers: [{ ...agent, image: agentImage }, proxy] },
});

/** The rules as the DaemonSet step reads them (validated against the template). */
function rules(raw: unknown[]): readonly SizingRule[] {
  const ds = aDaemonSet('d', {
    annotations: { 'everynode.dev/node-sizing': JSON.stringify(raw) },
    podSpec: { containers: [agent, proxy] },
  });
  const read = nodeSizingOf(ds);
  expect(read.length).toBe(raw.length);
  return read;
}

const example = rules(exampleRules('agent'));
/** The example rules with a cpu share of 1% instead of 0.5%. */
const moreCpu = rules(
  exampleRules('agent').map((rule, i) =>
    i === 0 ? { ...rule, perAllocatable: { ...rule.perAllocatable, cpu: '1%' } } : rule,
  ),
);

const SIZES = {
  large: { requests: { cpu: '50m', memory: '186Mi' }, limits: { cpu: '50m', memory: '372Mi' } },
  xl8: { requests: { cpu: '160m', memory: '2181Mi' }, limits: { cpu: '160m', memory: '4362Mi' } },
  // 1% of 31850m is 318.5m: rounded up to 319m; the limit keeps the ratio of one.
  xl8MoreCpu: { requests: { cpu: '319m', memory: '2181Mi' }, limits: { cpu: '319m', memory: '4362Mi' } },
};

function podWith(resources: V1Container['resources'], extra: Partial<V1Container> = {}): V1Pod {
  const pod = aPod('p', { labels: { 'controller-revision-hash': 'rev1' } });
  return { ...pod, spec: { containers: [{ ...agent, ...extra, resources }, proxy] } };
}

const large = eksNode('n-large', 'm6a.large', LARGE);
const xl8 = eksNode('n-8xl', 'm6a.8xlarge', XL8);
const noMetadata = { labels: { set: {}, remove: [] }, annotations: { set: {}, remove: [] } };
const nothing: InPlaceChange = { type: 'images', containers: [], ...noMetadata };
const resize = (resources: V1Container['resources']): InPlaceChange => ({
  type: 'resources',
  containers: [{ name: 'agent', resources: { ...resources } }],
  ...noMetadata,
});

describe('sizedInPlaceChange', () => {
  const cases: [
    string,
    readonly SizingRule[],
    V1PodTemplateSpec,
    readonly SizingRule[],
    V1Pod,
    V1Node,
    InPlaceChange,
  ][] = [
    [
      'a change of the rules alone resizes the pod to the new rules on its node',
      example,
      template(),
      moreCpu,
      podWith(SIZES.xl8),
      xl8,
      resize(SIZES.xl8MoreCpu),
    ],
    [
      'the same rule change on a node the new share leaves at its minimum: nothing to resize',
      example,
      template(),
      moreCpu,
      podWith(SIZES.large),
      large,
      nothing,
    ],
    [
      'an image change on a sized DaemonSet patches the image and keeps the size',
      example,
      template('agent:2'),
      example,
      podWith(SIZES.xl8),
      xl8,
      { type: 'images', containers: [{ name: 'agent', image: 'agent:2' }], ...noMetadata },
    ],
    [
      'the node grew under the same revision: a resize of that pod to its new size',
      example,
      template(),
      example,
      podWith(SIZES.large),
      xl8,
      resize(SIZES.xl8),
    ],
    [
      'an image change while the node grew: both at once recreate',
      example,
      template('agent:2'),
      example,
      podWith(SIZES.large),
      xl8,
      { type: 'recreate', reason: 'images and resources changed together' },
    ],
    [
      'rules added to an unsized DaemonSet resize from the template values',
      [],
      template(),
      example,
      podWith(agent.resources),
      xl8,
      resize(SIZES.xl8),
    ],
    [
      'rules removed on a small node: back up to the template values',
      example,
      template(),
      [],
      podWith(SIZES.large),
      large,
      resize(agent.resources),
    ],
    [
      'rules removed on a large node: its memory limit would go down, which pods/resize refuses',
      example,
      template(),
      [],
      podWith(SIZES.xl8),
      xl8,
      {
        type: 'recreate',
        reason:
          'resources cannot be resized: spec.containers[agent]: a memory limit cannot be lowered unless its resizePolicy is RestartContainer',
      },
    ],
    [
      'values an admission plugin added stay out of the comparison',
      example,
      template(),
      example,
      podWith({ ...SIZES.xl8, limits: { ...SIZES.xl8.limits, 'ephemeral-storage': '1Gi' } }),
      xl8,
      nothing,
    ],
  ];
  it.each(cases)('%s', (_, oldRules, next, newRules, pod, node, expected) => {
    expect(
      sizedInPlaceChange(
        { template: template(), rules: oldRules },
        { template: next, rules: newRules },
        pod,
        node,
      ),
    ).toEqual(expected);
  });

  it('without rules it compares the templates alone, as before', () => {
    const change = sizedInPlaceChange(
      { template: template(), rules: [] },
      { template: template('agent:2'), rules: [] },
      podWith({ requests: { cpu: '7' } }),
      xl8,
    );
    expect(change).toEqual({
      type: 'images',
      containers: [{ name: 'agent', image: 'agent:2' }],
      ...noMetadata,
    });
  });
});

describe('resizeAlone', () => {
  const change = resize(SIZES.xl8) as Extract<InPlaceChange, { type: 'resources' }>;
  const withState = (state: object | undefined, hash = 'rev1') => {
    const pod = podWith(SIZES.large);
    return {
      ...pod,
      metadata: {
        ...pod.metadata,
        labels: { 'controller-revision-hash': hash },
        ...(state ? { annotations: { 'everynode.dev/in-place-update': JSON.stringify(state) } } : {}),
      },
    };
  };
  it.each([
    [
      'same revision, a resize state of it: the resize is all',
      withState({ revision: 'rev1', resize: true }),
      true,
    ],
    ['same revision, no state yet: the state is written after', withState(undefined), false],
    [
      'same revision, the state of an image update',
      withState({ revision: 'rev1', containers: { agent: 'c1' } }),
      false,
    ],
    [
      'another revision: its label moves after the resize',
      withState({ revision: 'rev0', resize: true }, 'rev0'),
      false,
    ],
  ])('%s', (_, pod, alone) => {
    expect(resizeAlone(pod, change, 'rev1')).toBe(alone);
  });
});
