import type { V1Container, V1ResourceRequirements } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { nodeSizingOf, nodeSizingViolations } from '../../../lib/core/node-sizing/node-sizing.ts';
import { sizedPodSpec, sizedResources } from '../../../lib/core/node-sizing/sized-resources.ts';
import { aDaemonSet } from '../../support/builders.ts';
import { eksNode, exampleRules, LARGE, XL8, XL32 } from './sizing-fixtures.ts';

const large = eksNode('n-large', 'm6a.large', LARGE);
const xl8 = eksNode('n-8xl', 'm6a.8xlarge', XL8);
const xl32 = eksNode('n-32xl', 'r6a.32xlarge', XL32);
const [agentRule, r6aOverride] = exampleRules('agent');

/** An apps/v1 DaemonSet with containers `agent` (resources as given) and `sidecar`, and the rules as annotation. */
function sized(rules: unknown, resources?: V1ResourceRequirements, extra: V1Container[] = []) {
  const containers: V1Container[] = [
    { name: 'agent', image: 'agent:1', ...(resources ? { resources } : {}) },
    { name: 'sidecar', image: 'sidecar:1', resources: { requests: { cpu: '10m' } } },
    ...extra,
  ];
  return aDaemonSet('d', {
    annotations: { 'everynode.dev/node-sizing': JSON.stringify(rules) },
    podSpec: { containers },
  });
}

describe('sizedResources: what the rules give a container on a node', () => {
  it.each([
    {
      name: 'large node: cpu share below min is clamped up; memory share plus per-pod rounded up to a MiB',
      rules: [agentRule],
      node: large,
      agent: { requests: { cpu: '50m', memory: '186Mi' } },
    },
    {
      name: '8xlarge node: 0.5% of 31850m is 159.25m, rounded up to 160m; 2180.28Mi up to 2181Mi',
      rules: [agentRule],
      node: xl8,
      agent: { requests: { cpu: '160m', memory: '2181Mi' } },
    },
    {
      name: '32xlarge node: memory clamped down to max',
      rules: [agentRule],
      node: xl32,
      agent: { requests: { cpu: '639m', memory: '4Gi' } },
    },
    {
      name: '32xlarge node with the instance-type override: the later entry wins for memory only',
      rules: [agentRule, r6aOverride],
      node: xl32,
      agent: { requests: { cpu: '639m', memory: '6Gi' } },
    },
    {
      name: 'the override does not match a large node',
      rules: [agentRule, r6aOverride],
      node: large,
      agent: { requests: { cpu: '50m', memory: '186Mi' } },
    },
    {
      name: 'an override placed first loses to the general entry after it',
      rules: [r6aOverride, agentRule],
      node: xl32,
      agent: { requests: { cpu: '639m', memory: '4Gi' } },
    },
    {
      name: 'exact arithmetic: 1.1% of 7 cpu is 77m (a double would say 78m)',
      rules: [{ container: 'agent', perAllocatable: { cpu: '1.1%' } }],
      node: eksNode('n7', 'c', { cpu: '7', memory: '1Gi', pods: '10' }),
      agent: { requests: { cpu: '77m' } },
    },
    {
      name: 'a share landing on a whole MiB is not rounded further',
      rules: [{ container: 'agent', perAllocatable: { memory: '50%' } }],
      node: eksNode('n2g', 'c', { cpu: '1', memory: '2Gi', pods: '10' }),
      agent: { requests: { memory: '1Gi' } },
    },
    {
      name: 'a clamp to a decimal min keeps its form',
      rules: [{ container: 'agent', perAllocatable: { memory: '1%' }, min: { memory: '500M' } }],
      node: large,
      agent: { requests: { memory: '500M' } },
    },
    {
      name: 'template values of resources no entry names stay; other keys are kept',
      rules: [{ container: 'agent', perAllocatable: { cpu: '1%' } }],
      resources: { requests: { cpu: '1', memory: '64Mi', 'ephemeral-storage': '1Gi' } },
      node: large,
      agent: { requests: { cpu: '20m', memory: '64Mi', 'ephemeral-storage': '1Gi' } },
    },
    {
      name: 'limit ratio: template 100m/200m gives the sized request twice the limit, rounded up',
      rules: [{ container: 'agent', perAllocatable: { cpu: '0.5%' } }],
      resources: { requests: { cpu: '100m' }, limits: { cpu: '200m' } },
      node: xl8,
      agent: { requests: { cpu: '160m' }, limits: { cpu: '320m' } },
    },
    {
      name: 'limit ratio 1.5 on memory rounds the limit up to a MiB',
      rules: [{ container: 'agent', perAllocatable: { memory: '1%' } }],
      resources: { requests: { memory: '100Mi' }, limits: { memory: '150Mi' } },
      node: large,
      agent: { requests: { memory: '70Mi' }, limits: { memory: '105Mi' } },
    },
    {
      name: 'a limit without a request: the request defaults to it, so the limit follows the request (ratio 1)',
      rules: [{ container: 'agent', perAllocatable: { memory: '1%' }, min: { memory: '100M' } }],
      resources: { limits: { memory: '1Gi' } },
      node: large,
      agent: { requests: { memory: '100M' }, limits: { memory: '100M' } },
    },
    {
      name: 'explicit limits replace the ratio',
      rules: [
        { container: 'agent', perAllocatable: { cpu: '0.5%' }, max: { cpu: '1' }, limits: { cpu: '1' } },
      ],
      resources: { requests: { cpu: '100m' }, limits: { cpu: '200m' } },
      node: xl8,
      agent: { requests: { cpu: '160m' }, limits: { cpu: '1' } },
    },
    {
      name: 'a template request of 0 gives no ratio: the template limit stays',
      rules: [{ container: 'agent', perAllocatable: { cpu: '0.5%' }, max: { cpu: '500m' } }],
      resources: { requests: { cpu: '0' }, limits: { cpu: '500m' } },
      node: xl8,
      agent: { requests: { cpu: '160m' }, limits: { cpu: '500m' } },
    },
    {
      name: 'a node that reports no allocatable memory keeps the template memory',
      rules: [{ container: 'agent', perAllocatable: { cpu: '1%', memory: '1%' } }],
      resources: { requests: { memory: '64Mi' } },
      node: eksNode('bare', 'c', { cpu: '2' }),
      agent: { requests: { memory: '64Mi', cpu: '20m' } },
    },
  ])('$name', ({ rules, resources, node, agent }) => {
    const ds = sized(rules, resources as V1ResourceRequirements | undefined);
    expect(nodeSizingViolations(ds)).toEqual([]);
    const result = sizedResources(ds.spec?.template.spec ?? { containers: [] }, nodeSizingOf(ds), node);
    expect(result.get('agent')).toEqual(agent);
    expect(result.has('sidecar')).toBe(false);
  });

  it('keeps a Guaranteed template Guaranteed on every node size', () => {
    const guaranteed = {
      requests: { cpu: '100m', memory: '128Mi' },
      limits: { cpu: '100m', memory: '128Mi' },
    };
    const ds = aDaemonSet('g', {
      annotations: { 'everynode.dev/node-sizing': JSON.stringify([agentRule]) },
      podSpec: { containers: [{ name: 'agent', image: 'a', resources: guaranteed }] },
    });
    for (const node of [large, xl8, xl32]) {
      const resources = sizedResources(
        ds.spec?.template.spec ?? { containers: [] },
        nodeSizingOf(ds),
        node,
      ).get('agent');
      expect(resources?.limits).toEqual(resources?.requests);
    }
  });

  it('sizedPodSpec replaces only the sized containers and leaves the template untouched', () => {
    const ds = sized([agentRule]);
    const template = ds.spec?.template.spec ?? { containers: [] };
    const before = structuredClone(template);
    const spec = sizedPodSpec(template, nodeSizingOf(ds), xl8);
    expect(spec.containers.map((c) => c.resources)).toEqual([
      { requests: { cpu: '160m', memory: '2181Mi' } },
      { requests: { cpu: '10m' } },
    ]);
    expect(template).toEqual(before);
  });

  it('reads the everynode.dev/v1 field before the annotation', () => {
    const ds = sized([agentRule]);
    const withField = {
      ...ds,
      apiVersion: 'everynode.dev/v1',
      spec: { ...ds.spec, nodeSizing: [{ container: 'agent', requests: { cpu: '1' } }] },
    } as typeof ds;
    const result = sizedResources(
      withField.spec?.template.spec ?? { containers: [] },
      nodeSizingOf(withField),
      large,
    );
    expect(result.get('agent')).toEqual({ requests: { cpu: '1' } });
  });
});
