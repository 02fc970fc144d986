import type { V1Toleration } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { tolerationViolations } from '../../lib/core/validation-tolerations.ts';

const FIELD = 'spec.template.spec.tolerations';

describe('tolerationViolations (upstream ValidateTolerations)', () => {
  it('accepts the tolerations kube-apiserver accepts', () => {
    const valid: V1Toleration[] = [
      { operator: 'Exists' },
      { key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' },
      { key: 'dedicated', value: 'gpu' },
      { key: 'example.com/flaky', operator: 'Exists', effect: 'PreferNoSchedule' },
      {
        key: 'node.kubernetes.io/unreachable',
        operator: 'Exists',
        effect: 'NoExecute',
        tolerationSeconds: 30,
      },
      { key: 'k', operator: 'Exists', value: '' },
    ];
    expect(tolerationViolations(valid, FIELD)).toEqual([]);
    expect(tolerationViolations(undefined, FIELD)).toEqual([]);
  });

  const existsWithValue: V1Toleration = { key: 'k', operator: 'Exists', value: 'v', effect: 'NoSchedule' };
  it.each([
    {
      name: 'Exists with a value',
      toleration: existsWithValue,
      violation: {
        field: `${FIELD}[0].operator`,
        type: 'FieldValueInvalid',
        message: "value must be empty when `operator` is 'Exists'",
        value: existsWithValue,
      },
    },
    {
      name: 'an unknown operator',
      toleration: { key: 'k', operator: 'In' },
      violation: {
        field: `${FIELD}[0].operator`,
        type: 'FieldValueNotSupported',
        message: 'supported values: "Equal", "Exists"',
        value: 'In',
      },
    },
    {
      name: 'an unknown effect',
      toleration: { key: 'k', operator: 'Exists', effect: 'NoScheduleNoAdmit' },
      violation: {
        field: `${FIELD}[0].effect`,
        type: 'FieldValueNotSupported',
        message: 'supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
        value: 'NoScheduleNoAdmit',
      },
    },
    {
      name: 'tolerationSeconds without NoExecute',
      toleration: { key: 'k', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 5 },
      violation: {
        field: `${FIELD}[0].effect`,
        type: 'FieldValueInvalid',
        message: "effect must be 'NoExecute' when `tolerationSeconds` is set",
        value: 'NoSchedule',
      },
    },
    {
      name: 'an empty key without Exists',
      toleration: { operator: 'Equal', value: 'v' },
      violation: {
        field: `${FIELD}[0].operator`,
        type: 'FieldValueInvalid',
        message: 'operator must be Exists when `key` is empty, which means "match all values and all keys"',
        value: 'Equal',
      },
    },
    {
      name: 'a key that is not a qualified name',
      toleration: { key: 'bad key', operator: 'Exists' },
      violation: {
        field: `${FIELD}[0].key`,
        type: 'FieldValueInvalid',
        message:
          "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        value: 'bad key',
      },
    },
    {
      name: 'an Equal value that is not a label value',
      toleration: { key: 'k', value: 'not a label' },
      violation: {
        field: `${FIELD}[0].operator`,
        type: 'FieldValueInvalid',
        message:
          "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        value: 'not a label',
      },
    },
  ])('refuses $name', ({ toleration, violation }) => {
    expect(tolerationViolations([toleration as V1Toleration], FIELD)).toEqual([violation]);
  });

  it('indexes each toleration and reports every broken rule of one', () => {
    const violations = tolerationViolations(
      [{ operator: 'Exists' }, { operator: 'Maybe', effect: 'Sometimes', tolerationSeconds: 1 }],
      FIELD,
    );
    expect(violations.map((v) => v.field)).toEqual([
      `${FIELD}[1].operator`,
      `${FIELD}[1].effect`,
      `${FIELD}[1].operator`,
      `${FIELD}[1].effect`,
    ]);
  });
});
