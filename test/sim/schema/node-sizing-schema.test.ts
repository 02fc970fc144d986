/**
 * The simulated API server checks `spec.nodeSizing` of everynode.dev/v1 as the real one checks it
 * against the CRD's structural schema: JSON types and the required container, in kube-openapi's
 * words; the rules' meaning passes (everynode reports it as an invalid spec).
 */
import { describe, expect, it } from 'vitest';
import { daemonSetErrors } from '../../../lib/sim/schema/daemon-set-validation.ts';
import { nodeSizingSchemaErrors } from '../../../lib/sim/schema/node-sizing-schema.ts';
import type { KubeObject } from '../../../lib/sim/schema/store-types.ts';
import { aDaemonSet } from '../../support/builders.ts';

const withRules = (rules: unknown) => {
  const ds = aDaemonSet('agent');
  return {
    ...ds,
    apiVersion: 'everynode.dev/v1',
    spec: { ...ds.spec, nodeSizing: rules },
  } as unknown as KubeObject;
};

describe('the CRD schema of spec.nodeSizing', () => {
  it('refuses JSON types the schema does not allow, in kube-openapi words', () => {
    expect(nodeSizingSchemaErrors({ nodeSizing: { container: 'main' } })).toEqual([
      {
        type: 'FieldValueInvalid',
        field: 'spec.nodeSizing',
        message: 'Invalid value: "object": spec.nodeSizing in body must be of type array: "object"',
      },
    ]);
    expect(
      nodeSizingSchemaErrors({
        nodeSizing: [{ requests: { cpu: true, memory: 1.5 }, perAllocatable: { cpu: 1 } }],
      }).map((e) => e.message),
    ).toEqual([
      'Required value',
      'Invalid value: "integer": spec.nodeSizing[0].perAllocatable.cpu in body must be of type string: "integer"',
      'Invalid value: "boolean": spec.nodeSizing[0].requests.cpu in body must be of type integer,string: "boolean"',
      'Invalid value: "number": spec.nodeSizing[0].requests.memory in body must be of type integer,string: "number"',
    ]);
  });

  it('lets rules that are well-typed but wrong pass: everynode reports those', () => {
    for (const rules of [
      [{ container: 'agnet', requests: { cpu: '100m' } }],
      [{ container: 'main', requests: { memory: '1 Gi' } }],
      [{ container: 'main', perAllocatable: { cpu: '1%' }, min: { cpu: '2' }, max: { cpu: 1 } }],
    ])
      expect(daemonSetErrors('everynode.dev/daemonsets', withRules(rules), undefined)).toEqual([]);
  });
});
