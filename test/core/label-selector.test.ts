import type { V1LabelSelector } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { labelSelectorMatches, labelSelectorViolations } from '../../lib/core/label-selector.ts';
import { parseLabelSelector } from '../../lib/core/label-selector-text.ts';

const labels = { app: 'agent', tier: 'web' };

describe('labelSelectorMatches', () => {
  it.each<{ name: string; selector: V1LabelSelector | null; expected: boolean }>([
    { name: 'empty selector matches everything', selector: {}, expected: true },
    { name: 'null selector matches nothing', selector: null, expected: false },
    { name: 'matchLabels all equal', selector: { matchLabels: { app: 'agent' } }, expected: true },
    {
      name: 'matchLabels one differs',
      selector: { matchLabels: { app: 'agent', tier: 'db' } },
      expected: false,
    },
    {
      name: 'In',
      selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['db', 'web'] }] },
      expected: true,
    },
    {
      name: 'In on a missing key',
      selector: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] },
      expected: false,
    },
    {
      name: 'NotIn on a missing key',
      selector: { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] },
      expected: true,
    },
    {
      name: 'NotIn with the value',
      selector: { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['web'] }] },
      expected: false,
    },
    { name: 'Exists', selector: { matchExpressions: [{ key: 'app', operator: 'Exists' }] }, expected: true },
    {
      name: 'DoesNotExist',
      selector: { matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] },
      expected: false,
    },
    {
      name: 'unknown operator matches nothing',
      selector: { matchExpressions: [{ key: 'app', operator: 'Gt', values: ['1'] }] },
      expected: false,
    },
  ])('$name', ({ selector, expected }) => {
    expect(labelSelectorMatches(selector, labels)).toBe(expected);
  });

  it.each<{ name: string; selector: V1LabelSelector; field: string }>([
    {
      name: 'In without values',
      selector: { matchExpressions: [{ key: 'a', operator: 'In' }] },
      field: 's.matchExpressions[0].values',
    },
    {
      name: 'Exists with values',
      selector: { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
      field: 's.matchExpressions[0].values',
    },
    {
      name: 'bad operator',
      selector: { matchExpressions: [{ key: 'a', operator: 'Near' }] },
      field: 's.matchExpressions[0].operator',
    },
    { name: 'bad key', selector: { matchLabels: { 'bad key': 'x' } }, field: 's.matchLabels' },
    { name: 'bad value', selector: { matchLabels: { app: '-x-' } }, field: 's.matchLabels' },
  ])('violation: $name at $field', ({ selector, field }) => {
    expect(labelSelectorViolations(selector, 's').map((v) => v.field)).toContain(field);
  });
});

describe('parseLabelSelector', () => {
  it.each([
    { text: '', expected: {} },
    { text: 'a=b', expected: { matchExpressions: [{ key: 'a', operator: 'In', values: ['b'] }] } },
    {
      text: 'a!=b, c',
      expected: {
        matchExpressions: [
          { key: 'a', operator: 'NotIn', values: ['b'] },
          { key: 'c', operator: 'Exists' },
        ],
      },
    },
    {
      text: '!c,zone in (a, b)',
      expected: {
        matchExpressions: [
          { key: 'c', operator: 'DoesNotExist' },
          { key: 'zone', operator: 'In', values: ['a', 'b'] },
        ],
      },
    },
    {
      text: 'zone notin (a)',
      expected: { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] },
    },
    { text: '{"matchLabels":{"a":"b"}}', expected: { matchLabels: { a: 'b' } } },
    { text: 'a in b', expected: undefined },
    { text: '{"matchLabels":[1]}', expected: undefined },
  ])('"$text"', ({ text, expected }) => {
    expect(parseLabelSelector(text)).toEqual(expected);
  });
});
