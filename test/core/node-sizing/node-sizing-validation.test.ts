import type { V1DaemonSet, V1ResourceRequirements } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { nodeSizingOf } from '../../../lib/core/node-sizing/node-sizing.ts';
import { validateDaemonSet } from '../../../lib/core/validation.ts';
import { aDaemonSet } from '../../support/builders.ts';

const ANNOTATION = 'everynode.dev/node-sizing';
const AT = `metadata.annotations[${ANNOTATION}]`;

function withRules(rules: unknown, resources?: V1ResourceRequirements): V1DaemonSet {
  return aDaemonSet('d', {
    annotations: { [ANNOTATION]: typeof rules === 'string' ? rules : JSON.stringify(rules) },
    podSpec: { containers: [{ name: 'agent', image: 'a', ...(resources ? { resources } : {}) }] },
  });
}

const violationsOf = (ds: V1DaemonSet) =>
  validateDaemonSet(ds).map((v) => ({ field: v.field, message: v.message }));

describe('node-sizing validation', () => {
  it.each([
    { name: 'annotation not JSON', rules: '[{', field: AT, message: 'must be JSON' },
    {
      name: 'not a list',
      rules: { container: 'agent' },
      field: AT,
      message: 'must be a list of sizing entries',
    },
    {
      name: 'an entry naming no container of the template',
      rules: [{ container: 'agnet', requests: { cpu: '1' } }],
      field: `${AT}[0].container`,
      message: 'must name a container of the template (agent)',
    },
    {
      name: 'a malformed quantity',
      rules: [{ container: 'agent', requests: { memory: '1 Gi' } }],
      field: `${AT}[0].requests.memory`,
      message: 'must be a non-negative quantity such as 250m, 1.5, 512Mi or 2Gi',
    },
    {
      name: 'a negative quantity',
      rules: [{ container: 'agent', perAllocatable: { cpu: '1%' }, min: { cpu: '-1' } }],
      field: `${AT}[0].min.cpu`,
      message: 'must be a non-negative quantity such as 250m, 1.5, 512Mi or 2Gi',
    },
    {
      name: 'a malformed percent',
      rules: [{ container: 'agent', perAllocatable: { cpu: '0.5' } }],
      field: `${AT}[0].perAllocatable.cpu`,
      message: 'must be a percent above 0% and at most 100%, such as 0.5%',
    },
    {
      name: 'a percent of 0',
      rules: [{ container: 'agent', perAllocatable: { cpu: '0%' } }],
      field: `${AT}[0].perAllocatable.cpu`,
      message: 'must be a percent above 0% and at most 100%, such as 0.5%',
    },
    {
      name: 'a percent above 100',
      rules: [{ container: 'agent', perAllocatable: { memory: '100.5%' } }],
      field: `${AT}[0].perAllocatable.memory`,
      message: 'must be a percent above 0% and at most 100%, such as 0.5%',
    },
    {
      name: 'min above max',
      rules: [
        { container: 'agent', perAllocatable: { cpu: '1%' }, min: { cpu: '2' }, max: { cpu: '1500m' } },
      ],
      field: `${AT}[0].min.cpu`,
      message: 'must not be above max (1500m)',
    },
    {
      name: 'an unknown resource',
      rules: [{ container: 'agent', requests: { 'nvidia.com/gpu': '1' } }],
      field: `${AT}[0].requests.nvidia.com/gpu`,
      message: 'supported values: "cpu", "memory"',
    },
    {
      name: 'an invalid nodeSelector',
      rules: [
        {
          container: 'agent',
          nodeSelector: { matchExpressions: [{ key: 'k', operator: 'In' }] },
          requests: { cpu: '1' },
        },
      ],
      field: `${AT}[0].nodeSelector.matchExpressions[0].values`,
      message: "must be specified when `operator` is 'In' or 'NotIn'",
    },
    {
      name: 'requests and shares together',
      rules: [{ container: 'agent', requests: { cpu: '1' }, perAllocatable: { cpu: '1%' } }],
      field: `${AT}[0].requests`,
      message: 'may not be set with perAllocatable or perAllocatablePod',
    },
    {
      name: 'bounds with fixed requests',
      rules: [{ container: 'agent', requests: { cpu: '1' }, max: { cpu: '2' } }],
      field: `${AT}[0].max`,
      message: 'applies only to shares: requests are fixed',
    },
    {
      name: 'an entry sizing nothing',
      rules: [{ container: 'agent', min: {} }],
      field: `${AT}[0].requests`,
      message: 'requests, perAllocatable or perAllocatablePod must name cpu or memory',
    },
    {
      name: 'a bound for a resource the entry does not size',
      rules: [{ container: 'agent', perAllocatable: { cpu: '1%' }, max: { memory: '1Gi' } }],
      field: `${AT}[0].max.memory`,
      message: 'the entry does not size memory',
    },
    {
      name: 'an unknown field',
      rules: [{ container: 'agent', requests: { cpu: '1' }, request: { cpu: '1' } }],
      field: `${AT}[0].request`,
      message: 'unknown field',
    },
    {
      name: 'fixed request above the explicit limit',
      rules: [{ container: 'agent', requests: { memory: '2Gi' }, limits: { memory: '1Gi' } }],
      field: `${AT}[0].requests.memory`,
      message: 'must not be above limits.memory (1Gi)',
    },
    {
      name: 'a share with an explicit limit and no max: a large node would exceed it',
      rules: [{ container: 'agent', perAllocatable: { memory: '1%' }, limits: { memory: '1Gi' } }],
      field: `${AT}[0].max.memory`,
      message:
        'must be set and not above limits.memory (1Gi): a larger node would get a request above its limit',
    },
    {
      name: 'a share above the template limit when the template request is 0 (no ratio)',
      rules: [{ container: 'agent', perAllocatable: { cpu: '1%' }, max: { cpu: '2' } }],
      resources: { requests: { cpu: '0' }, limits: { cpu: '1' } },
      field: `${AT}[0].max.cpu`,
      message:
        "must be set and not above the template's limit of cpu (its request is 0, so no ratio applies) (1): a larger node would get a request above its limit",
    },
    {
      name: 'explicit limits on a Guaranteed template',
      rules: [{ container: 'agent', requests: { cpu: '1' }, limits: { cpu: '1' } }],
      resources: { limits: { cpu: '500m', memory: '1Gi' } },
      field: `${AT}[0].limits`,
      message: 'the template is Guaranteed: its limits follow the sized requests',
    },
  ])('$name', ({ rules, resources, field, message }) => {
    const ds = withRules(rules, resources as V1ResourceRequirements | undefined);
    expect(violationsOf(ds)).toContainEqual({ field, message });
    expect(nodeSizingOf(ds)).toEqual([]);
  });

  it('accepts valid rules and reports a field violation on the everynode.dev/v1 field path', () => {
    const valid = withRules([{ container: 'agent', perAllocatable: { cpu: '1%' }, max: { cpu: '1' } }]);
    expect(violationsOf(valid)).toEqual([]);
    const eds = {
      ...valid,
      apiVersion: 'everynode.dev/v1',
      spec: { ...valid.spec, nodeSizing: [{ container: 'x', requests: { cpu: '1' } }] },
    } as V1DaemonSet;
    expect(violationsOf(eds)).toEqual([
      { field: 'spec.nodeSizing[0].container', message: 'must name a container of the template (agent)' },
    ]);
  });
});
