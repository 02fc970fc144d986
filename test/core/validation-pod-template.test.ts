import type { V1PodTemplateSpec } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { validateDaemonSet } from '../../lib/core/validation.ts';
import { podTemplateViolations } from '../../lib/core/validation-pod-template.ts';
import { aDaemonSet } from '../support/builders.ts';

/** The builder's valid template, changed by `mutate`. */
function template(mutate: (t: V1PodTemplateSpec) => void = () => {}): V1PodTemplateSpec {
  const t = structuredClone(aDaemonSet('agent').spec?.template) as V1PodTemplateSpec;
  mutate(t);
  return t;
}
const spec = (t: V1PodTemplateSpec) => t.spec as NonNullable<V1PodTemplateSpec['spec']>;

const QUALIFIED =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS_LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";

describe('podTemplateViolations (upstream ValidatePodTemplateSpec, what a pod create refuses)', () => {
  it('accepts the builder template, with volumes, tolerations and annotations up to the limit', () => {
    expect(podTemplateViolations(template())).toEqual([]);
    const full = template((t) => {
      t.metadata = { ...t.metadata, annotations: { 'Example.com/Note': 'x'.repeat(262144 - 16) } };
      spec(t).volumes = [{ name: 'data', emptyDir: {} }];
      spec(t).tolerations = [{ operator: 'Exists' }];
    });
    expect(podTemplateViolations(full)).toEqual([]);
  });

  it.each([
    {
      name: 'Exists toleration with a value',
      t: template((t) => {
        spec(t).tolerations = [{ key: 'k', operator: 'Exists', value: 'v' }];
      }),
      field: 'spec.template.spec.tolerations[0].operator',
      type: 'FieldValueInvalid',
      message: "value must be empty when `operator` is 'Exists'",
    },
    {
      name: 'toleration effect unknown',
      t: template((t) => {
        spec(t).tolerations = [{ key: 'k', operator: 'Exists', effect: 'Never' }];
      }),
      field: 'spec.template.spec.tolerations[0].effect',
      type: 'FieldValueNotSupported',
      message: 'supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    },
    {
      name: 'annotations over 256 KiB',
      t: template((t) => {
        t.metadata = { ...t.metadata, annotations: { big: 'x'.repeat(300 * 1024) } };
      }),
      field: 'spec.template.metadata.annotations',
      type: 'FieldValueTooLong',
      message: 'must have at most 262144 bytes',
    },
    {
      name: 'annotation key not a qualified name',
      t: template((t) => {
        t.metadata = { ...t.metadata, annotations: { 'a b': '' } };
      }),
      field: 'spec.template.metadata.annotations',
      type: 'FieldValueInvalid',
      message: QUALIFIED,
    },
    {
      name: 'label value longer than 63',
      t: template((t) => {
        t.metadata = { ...t.metadata, labels: { ...t.metadata?.labels, tier: 'x'.repeat(64) } };
      }),
      field: 'spec.template.metadata.labels',
      type: 'FieldValueInvalid',
      message: 'must be no more than 63 characters',
    },
    {
      name: 'label key not a qualified name',
      t: template((t) => {
        t.metadata = { ...t.metadata, labels: { ...t.metadata?.labels, 'bad key': 'x' } };
      }),
      field: 'spec.template.metadata.labels',
      type: 'FieldValueInvalid',
      message: QUALIFIED,
    },
    {
      name: 'no container',
      t: template((t) => {
        spec(t).containers = [];
      }),
      field: 'spec.template.spec.containers',
      type: 'FieldValueRequired',
      message: 'Required value',
    },
    {
      name: 'duplicate container names',
      t: template((t) => {
        spec(t).containers = [
          { name: 'main', image: 'a' },
          { name: 'main', image: 'b' },
        ];
      }),
      field: 'spec.template.spec.containers[1].name',
      type: 'FieldValueDuplicate',
      message: 'Duplicate value',
    },
    {
      name: 'container name not a DNS label',
      t: template((t) => {
        spec(t).containers = [{ name: 'Main', image: 'a' }];
      }),
      field: 'spec.template.spec.containers[0].name',
      type: 'FieldValueInvalid',
      message: DNS_LABEL,
    },
    {
      name: 'container without image',
      t: template((t) => {
        spec(t).containers = [{ name: 'main' }];
      }),
      field: 'spec.template.spec.containers[0].image',
      type: 'FieldValueRequired',
      message: 'Required value',
    },
    {
      name: 'volume without a source',
      t: template((t) => {
        spec(t).volumes = [{ name: 'data' }];
      }),
      field: 'spec.template.spec.volumes[0]',
      type: 'FieldValueRequired',
      message: 'must specify a volume type',
    },
    {
      name: 'volume name not a DNS label',
      t: template((t) => {
        spec(t).volumes = [{ name: 'Data', emptyDir: {} }];
      }),
      field: 'spec.template.spec.volumes[0].name',
      type: 'FieldValueInvalid',
      message: DNS_LABEL,
    },
    {
      name: 'duplicate volume names',
      t: template((t) => {
        spec(t).volumes = [
          { name: 'data', emptyDir: {} },
          { name: 'data', emptyDir: {} },
        ];
      }),
      field: 'spec.template.spec.volumes[1].name',
      type: 'FieldValueDuplicate',
      message: 'Duplicate value',
    },
  ])('refuses $name', ({ t, field, type, message }) => {
    expect(podTemplateViolations(t)).toEqual([expect.objectContaining({ field, type, message })]);
  });

  it('makes the DaemonSet invalid (validateDaemonSet), so it gets the invalid-spec condition', () => {
    const ds = aDaemonSet('agent', { tolerations: [{ key: 'k', operator: 'Exists', value: 'v' }] });
    expect(validateDaemonSet(ds)).toEqual([
      expect.objectContaining({ field: 'spec.template.spec.tolerations[0].operator' }),
    ]);
  });
});
