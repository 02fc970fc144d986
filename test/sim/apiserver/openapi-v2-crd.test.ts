import { describe, expect, it } from 'vitest';
import { toOpenApiV2Schema } from '../../../lib/sim/apiserver/openapi-v2-crd.ts';

describe('toOpenApiV2Schema (apiextensions ToStructuralOpenAPIV2)', () => {
  const cases: { name: string; v3: Record<string, unknown>; v2: Record<string, unknown> }[] = [
    {
      name: 'drops anyOf from int-or-string, leaving it untyped',
      v3: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
      v2: { 'x-kubernetes-int-or-string': true },
    },
    {
      name: 'makes a nullable value untyped and drops what it holds',
      v3: { type: 'object', nullable: true, properties: { a: { type: 'string' } }, description: 'd' },
      v2: { description: 'd' },
    },
    {
      name: 'drops the schema of a preserve-unknown-fields object',
      v3: {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
        properties: { a: { type: 'string' } },
      },
      v2: { 'x-kubernetes-preserve-unknown-fields': true },
    },
    {
      name: 'leaves an array without items untyped',
      v3: { type: 'array', 'x-kubernetes-preserve-unknown-fields': true, items: { type: 'string' } },
      v2: { 'x-kubernetes-preserve-unknown-fields': true },
    },
    {
      name: 'no longer requires a nullable property, recursing into properties, items and maps',
      v3: {
        type: 'object',
        required: ['a', 'b'],
        properties: {
          a: { type: 'string', nullable: true },
          b: { type: 'array', items: { type: 'object', oneOf: [{ required: ['x'] }] } },
          c: { type: 'object', additionalProperties: { type: 'string', nullable: false } },
        },
      },
      v2: {
        type: 'object',
        required: ['b'],
        properties: {
          a: {},
          b: { type: 'array', items: { type: 'object' } },
          c: { type: 'object', additionalProperties: { type: 'string' } },
        },
      },
    },
    {
      name: 'keeps validations v2 has: enum, format, minimum, pattern',
      v3: { type: 'integer', format: 'int32', minimum: 0, enum: [1, 2], pattern: '^a' },
      v2: { type: 'integer', format: 'int32', minimum: 0, enum: [1, 2], pattern: '^a' },
    },
  ];
  it.each(cases)('$name', ({ v3, v2 }) => {
    const before = structuredClone(v3);
    expect(toOpenApiV2Schema(v3)).toEqual(v2);
    expect(v3).toEqual(before);
  });
});
