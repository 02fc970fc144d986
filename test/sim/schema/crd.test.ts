import { describe, expect, it } from 'vitest';
import { everynodeCrdVersion, loadEverynodeCrd } from '../../../lib/sim/schema/crd.ts';

type Schema = { properties?: Record<string, Schema>; type?: string; [key: string]: unknown };
const at = (schema: Schema | undefined, ...path: string[]): Schema | undefined =>
  path.reduce<Schema | undefined>((s, key) => s?.properties?.[key], schema);

describe('the everynode CRD manifest', () => {
  it('declares daemonsets.everynode.dev, namespaced, short name eds', () => {
    const crd = loadEverynodeCrd();
    expect(crd.metadata?.name).toBe('daemonsets.everynode.dev');
    expect(crd.spec.group).toBe('everynode.dev');
    expect(crd.spec.scope).toBe('Namespaced');
    expect(crd.spec.names).toMatchObject({ plural: 'daemonsets', kind: 'DaemonSet', shortNames: ['eds'] });
  });

  it('serves and stores v1 with a status subresource and kubectl-get-ds printer columns', () => {
    const version = everynodeCrdVersion();
    expect(version).toMatchObject({ name: 'v1', served: true, storage: true, subresources: { status: {} } });
    expect(version.additionalPrinterColumns?.map((c) => [c.name, c.jsonPath])).toEqual([
      ['Desired', '.status.desiredNumberScheduled'],
      ['Current', '.status.currentNumberScheduled'],
      ['Ready', '.status.numberReady'],
      ['Up-to-date', '.status.updatedNumberScheduled'],
      ['Available', '.status.numberAvailable'],
      ['Node Selector', '.spec.template.spec.nodeSelector'],
      ['Age', '.metadata.creationTimestamp'],
    ]);
  });

  it.each([
    [['spec', 'updateStrategy', 'rollingUpdate', 'partition'], 'integer'],
    [['spec', 'updateStrategy', 'rollingUpdate', 'paused'], 'boolean'],
    [['spec', 'updateStrategy', 'rollingUpdate', 'selector'], 'object'],
    [['spec', 'updateStrategy', 'rollingUpdate', 'strict'], 'boolean'],
    [['spec', 'progressDeadlineSeconds'], 'integer'],
    [['spec', 'burstReplicas'], 'integer'],
    [['status', 'conditions'], 'array'],
    [['spec', 'selector'], 'object'],
    [['status', 'numberAvailable'], 'integer'],
  ])('has %j of type %s in its schema', (path, type) => {
    const schema = everynodeCrdVersion().schema?.openAPIV3Schema as Schema;
    expect(at(schema, ...path)?.type).toBe(type);
  });

  it('requires a selector and template and keeps the rolling update selector a label selector', () => {
    const schema = everynodeCrdVersion().schema?.openAPIV3Schema as Schema;
    expect(at(schema, 'spec')?.required).toEqual(['selector', 'template']);
    expect(
      Object.keys(at(schema, 'spec', 'updateStrategy', 'rollingUpdate', 'selector')?.properties ?? {}),
    ).toEqual(['matchLabels', 'matchExpressions']);
  });

  it('returns a fresh copy each time', () => {
    const first = loadEverynodeCrd();
    first.spec.group = 'changed';
    expect(loadEverynodeCrd().spec.group).toBe('everynode.dev');
  });
});
