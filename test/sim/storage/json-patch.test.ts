import { describe, expect, it } from 'vitest';
import { jsonPatch } from '../../../lib/sim/storage/json-patch.ts';

const doc = () => ({
  metadata: { name: 'ds', labels: { app: 'x', 'a/b': 'slash' } },
  spec: { containers: [{ name: 'a', image: 'a:1' }] },
});

const applied: { name: string; patch: unknown[]; expected: unknown }[] = [
  {
    name: 'replace an image',
    patch: [{ op: 'replace', path: '/spec/containers/0/image', value: 'a:2' }],
    expected: { ...doc(), spec: { containers: [{ name: 'a', image: 'a:2' }] } },
  },
  {
    name: 'append with - and insert by index',
    patch: [
      { op: 'add', path: '/spec/containers/-', value: { name: 'c' } },
      { op: 'add', path: '/spec/containers/0', value: { name: 'z' } },
    ],
    expected: { ...doc(), spec: { containers: [{ name: 'z' }, { name: 'a', image: 'a:1' }, { name: 'c' }] } },
  },
  {
    name: 'remove an escaped key after a passing test',
    patch: [
      { op: 'test', path: '/metadata/labels/a~1b', value: 'slash' },
      { op: 'remove', path: '/metadata/labels/a~1b' },
    ],
    expected: { ...doc(), metadata: { name: 'ds', labels: { app: 'x' } } },
  },
  {
    name: 'move and copy',
    patch: [
      { op: 'copy', from: '/metadata/name', path: '/metadata/generateName' },
      { op: 'move', from: '/metadata/labels/app', path: '/metadata/labels/name' },
    ],
    expected: {
      ...doc(),
      metadata: { name: 'ds', generateName: 'ds', labels: { 'a/b': 'slash', name: 'x' } },
    },
  },
];

const refused: { name: string; patch: unknown; status: number }[] = [
  { name: 'a failed test', patch: [{ op: 'test', path: '/metadata/name', value: 'other' }], status: 422 },
  {
    name: 'replace of a missing key',
    patch: [{ op: 'replace', path: '/spec/missing', value: 1 }],
    status: 422,
  },
  { name: 'remove of a missing index', patch: [{ op: 'remove', path: '/spec/containers/5' }], status: 422 },
  { name: 'add under a missing parent', patch: [{ op: 'add', path: '/nope/x', value: 1 }], status: 422 },
  { name: 'an unknown op', patch: [{ op: 'frobnicate', path: '/a' }], status: 422 },
  { name: 'a patch that is not a list', patch: { op: 'add' }, status: 400 },
];

describe('jsonPatch', () => {
  it.each(applied)('applies $name', ({ patch, expected }) => {
    expect(jsonPatch(doc(), patch)).toEqual(expected);
  });

  it.each(refused)('refuses $name with $status', ({ patch, status }) => {
    expect(() => jsonPatch(doc(), patch)).toThrow(expect.objectContaining({ status }));
  });

  it('applies all operations or none, leaving the original untouched', () => {
    const original = doc();
    const patch = [
      { op: 'replace', path: '/metadata/name', value: 'changed' },
      { op: 'test', path: '/metadata/name', value: 'ds' },
    ];
    expect(() => jsonPatch(original, patch)).toThrow(/testing value \/metadata\/name failed/);
    expect(original).toEqual(doc());
  });
});
