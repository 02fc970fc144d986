import type { V1NodeSelectorRequirement, V1NodeSelectorTerm, V1PodSpec } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  isQualifiedName,
  isValidLabelValue,
  nodeMatchesRequiredAffinity,
} from '../../lib/core/node-affinity.ts';
import { aNode } from '../support/builders.ts';

const node = aNode('node-a', { labels: { zone: 'eu-1', disk: 'ssd', cpus: '16', gpu: '' } });

function required(...terms: V1NodeSelectorTerm[]): Pick<V1PodSpec, 'affinity'> {
  return {
    affinity: {
      nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } },
    },
  };
}
function expr(key: string, operator: string, values?: string[]): V1NodeSelectorRequirement {
  return { key, operator, ...(values ? { values } : {}) };
}
const labelsTerm = (...matchExpressions: V1NodeSelectorRequirement[]): V1NodeSelectorTerm => ({
  matchExpressions,
});
const fieldsTerm = (...matchFields: V1NodeSelectorRequirement[]): V1NodeSelectorTerm => ({ matchFields });

interface Case {
  name: string;
  spec: Pick<V1PodSpec, 'nodeSelector' | 'affinity'>;
  expected: boolean;
}

const nodeSelectorCases: Case[] = [
  { name: 'no nodeSelector, no affinity', spec: {}, expected: true },
  { name: 'nodeSelector matched', spec: { nodeSelector: { disk: 'ssd', zone: 'eu-1' } }, expected: true },
  { name: 'nodeSelector value differs', spec: { nodeSelector: { disk: 'hdd' } }, expected: false },
  { name: 'nodeSelector label missing', spec: { nodeSelector: { rack: 'r1' } }, expected: false },
  {
    name: 'nodeSelector empty value matches empty label',
    spec: { nodeSelector: { gpu: '' } },
    expected: true,
  },
  {
    name: 'nodeSelector empty value does not match a missing label',
    spec: { nodeSelector: { fpga: '' } },
    expected: false,
  },
  {
    name: 'nodeSelector AND affinity: affinity fails',
    spec: { nodeSelector: { disk: 'ssd' }, ...required(labelsTerm(expr('zone', 'In', ['us-1']))) },
    expected: false,
  },
  {
    name: 'nodeSelector AND affinity: nodeSelector fails',
    spec: { nodeSelector: { disk: 'hdd' }, ...required(labelsTerm(expr('zone', 'In', ['eu-1']))) },
    expected: false,
  },
  {
    name: 'nodeSelector AND affinity: both hold',
    spec: { nodeSelector: { disk: 'ssd' }, ...required(labelsTerm(expr('zone', 'In', ['eu-1']))) },
    expected: true,
  },
];

const operatorCases: Case[] = [
  {
    name: 'In: value listed',
    spec: required(labelsTerm(expr('zone', 'In', ['us-1', 'eu-1']))),
    expected: true,
  },
  { name: 'In: value not listed', spec: required(labelsTerm(expr('zone', 'In', ['us-1']))), expected: false },
  { name: 'In: label missing', spec: required(labelsTerm(expr('rack', 'In', ['r1']))), expected: false },
  {
    name: 'In: no values is invalid, matches nothing',
    spec: required(labelsTerm(expr('zone', 'In', []))),
    expected: false,
  },
  {
    name: 'NotIn: value not listed',
    spec: required(labelsTerm(expr('zone', 'NotIn', ['us-1']))),
    expected: true,
  },
  {
    name: 'NotIn: value listed',
    spec: required(labelsTerm(expr('zone', 'NotIn', ['eu-1']))),
    expected: false,
  },
  {
    name: 'NotIn: label missing matches',
    spec: required(labelsTerm(expr('rack', 'NotIn', ['r1']))),
    expected: true,
  },
  {
    name: 'Exists: present (empty value)',
    spec: required(labelsTerm(expr('gpu', 'Exists'))),
    expected: true,
  },
  { name: 'Exists: missing', spec: required(labelsTerm(expr('rack', 'Exists'))), expected: false },
  {
    name: 'Exists with values is invalid',
    spec: required(labelsTerm(expr('gpu', 'Exists', ['x']))),
    expected: false,
  },
  { name: 'DoesNotExist: missing', spec: required(labelsTerm(expr('rack', 'DoesNotExist'))), expected: true },
  { name: 'DoesNotExist: present', spec: required(labelsTerm(expr('gpu', 'DoesNotExist'))), expected: false },
  { name: 'Gt: greater', spec: required(labelsTerm(expr('cpus', 'Gt', ['8']))), expected: true },
  {
    name: 'Gt: equal is not greater',
    spec: required(labelsTerm(expr('cpus', 'Gt', ['16']))),
    expected: false,
  },
  {
    // labels.NewRequirement also validates Gt/Lt values as label values, which cannot start with '-'.
    name: 'Gt: negative bound is not a valid label value, matches nothing',
    spec: required(labelsTerm(expr('cpus', 'Gt', ['-1']))),
    expected: false,
  },
  {
    name: 'Gt: leading zeros parse as integers',
    spec: required(labelsTerm(expr('cpus', 'Gt', ['015']))),
    expected: true,
  },
  { name: 'Gt: label missing', spec: required(labelsTerm(expr('memory', 'Gt', ['1']))), expected: false },
  {
    name: 'Gt: non-integer label value',
    spec: required(labelsTerm(expr('zone', 'Gt', ['1']))),
    expected: false,
  },
  {
    name: 'Gt: non-integer bound is invalid',
    spec: required(labelsTerm(expr('cpus', 'Gt', ['1.5']))),
    expected: false,
  },
  {
    name: 'Gt: two values is invalid',
    spec: required(labelsTerm(expr('cpus', 'Gt', ['1', '2']))),
    expected: false,
  },
  {
    name: 'Gt: bound beyond int64 is invalid',
    spec: required(labelsTerm(expr('cpus', 'Gt', ['9223372036854775808']))),
    expected: false,
  },
  { name: 'Lt: less', spec: required(labelsTerm(expr('cpus', 'Lt', ['32']))), expected: true },
  { name: 'Lt: equal is not less', spec: required(labelsTerm(expr('cpus', 'Lt', ['16']))), expected: false },
  {
    name: 'Lt: non-integer bound is invalid',
    spec: required(labelsTerm(expr('cpus', 'Lt', ['abc']))),
    expected: false,
  },
  {
    name: 'Lt: non-integer label value (empty)',
    spec: required(labelsTerm(expr('gpu', 'Lt', ['5']))),
    expected: false,
  },
  {
    name: 'unknown operator matches nothing',
    spec: required(labelsTerm(expr('zone', 'Equals', ['eu-1']))),
    expected: false,
  },
  {
    name: 'invalid label key matches nothing',
    spec: required(labelsTerm(expr('bad key!', 'DoesNotExist'))),
    expected: false,
  },
];

const fieldCases: Case[] = [
  {
    name: 'matchFields In the node name',
    spec: required(fieldsTerm(expr('metadata.name', 'In', ['node-a']))),
    expected: true,
  },
  {
    name: 'matchFields In another node',
    spec: required(fieldsTerm(expr('metadata.name', 'In', ['node-b']))),
    expected: false,
  },
  {
    name: 'matchFields NotIn another node',
    spec: required(fieldsTerm(expr('metadata.name', 'NotIn', ['node-b']))),
    expected: true,
  },
  {
    name: 'matchFields NotIn the node name',
    spec: required(fieldsTerm(expr('metadata.name', 'NotIn', ['node-a']))),
    expected: false,
  },
  {
    name: 'matchFields with two values is invalid',
    spec: required(fieldsTerm(expr('metadata.name', 'In', ['node-a', 'node-b']))),
    expected: false,
  },
  {
    name: 'matchFields Exists is not supported',
    spec: required(fieldsTerm(expr('metadata.name', 'Exists'))),
    expected: false,
  },
  {
    name: 'matchFields AND matchExpressions in one term',
    spec: required({
      matchFields: [expr('metadata.name', 'In', ['node-a'])],
      matchExpressions: [expr('zone', 'In', ['us-1'])],
    }),
    expected: false,
  },
];

const termCases: Case[] = [
  {
    name: 'expressions are ANDed: one fails',
    spec: required(labelsTerm(expr('zone', 'In', ['eu-1']), expr('disk', 'In', ['hdd']))),
    expected: false,
  },
  {
    name: 'expressions are ANDed: all hold',
    spec: required(labelsTerm(expr('zone', 'In', ['eu-1']), expr('disk', 'In', ['ssd']))),
    expected: true,
  },
  {
    name: 'terms are ORed: second holds',
    spec: required(labelsTerm(expr('zone', 'In', ['us-1'])), labelsTerm(expr('disk', 'Exists'))),
    expected: true,
  },
  {
    name: 'terms are ORed: none holds',
    spec: required(labelsTerm(expr('zone', 'In', ['us-1'])), labelsTerm(expr('rack', 'Exists'))),
    expected: false,
  },
  {
    name: 'an invalid term does not stop a later valid one',
    spec: required(labelsTerm(expr('zone', 'In', [])), labelsTerm(expr('disk', 'Exists'))),
    expected: true,
  },
  { name: 'required affinity with no terms matches nothing', spec: required(), expected: false },
  { name: 'an empty term matches nothing', spec: required({}), expected: false },
  {
    name: 'a term with empty lists matches nothing',
    spec: required({ matchExpressions: [], matchFields: [] }),
    expected: false,
  },
  {
    name: 'an empty term next to a matching one',
    spec: required({}, labelsTerm(expr('disk', 'In', ['ssd']))),
    expected: true,
  },
  { name: 'affinity without nodeAffinity', spec: { affinity: {} }, expected: true },
  {
    name: 'nodeAffinity with only preferred terms',
    spec: {
      affinity: {
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 1, preference: labelsTerm(expr('zone', 'In', ['us-1'])) },
          ],
        },
      },
    },
    expected: true,
  },
];

describe('nodeMatchesRequiredAffinity', () => {
  describe.each([
    { group: 'nodeSelector', cases: nodeSelectorCases },
    { group: 'matchExpressions operators', cases: operatorCases },
    { group: 'matchFields', cases: fieldCases },
    { group: 'terms', cases: termCases },
  ])('$group', ({ cases }) => {
    it.each(cases)('$name', ({ spec, expected }) => {
      expect(nodeMatchesRequiredAffinity(node, spec)).toBe(expected);
    });
  });
});

describe('label syntax', () => {
  it.each([
    { key: 'disk', expected: true },
    { key: 'kubernetes.io/hostname', expected: true },
    { key: 'node-role.kubernetes.io/master', expected: true },
    { key: '', expected: false },
    { key: '/name', expected: false },
    { key: 'a/b/c', expected: false },
    { key: 'Upper.Case/name', expected: false },
    { key: '-leading', expected: false },
    { key: 'x'.repeat(64), expected: false },
  ])('key "$key" valid: $expected', ({ key, expected }) => {
    expect(isQualifiedName(key)).toBe(expected);
  });
  it.each([
    { value: '', expected: true },
    { value: 'eu-1', expected: true },
    { value: 'a_b.c', expected: true },
    { value: 'trailing-', expected: false },
    { value: 'x'.repeat(64), expected: false },
  ])('value "$value" valid: $expected', ({ value, expected }) => {
    expect(isValidLabelValue(value)).toBe(expected);
  });
});
