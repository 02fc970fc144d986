import { describe, expect, it } from 'vitest';
import { managedResourceOf, parseManagedKind } from '../../lib/kube/managed-kind.ts';

describe('managed kinds', () => {
  it.each([
    { value: undefined, kind: 'everynode.dev/v1' },
    { value: '', kind: 'everynode.dev/v1' },
    { value: 'apps/v1', kind: 'apps/v1' },
    { value: 'everynode.dev/v1', kind: 'everynode.dev/v1' },
    { value: 'extensions/v1beta1', kind: undefined },
  ])('parses $value as $kind', ({ value, kind }) => {
    expect(parseManagedKind(value)).toBe(kind);
  });

  it.each([
    { kind: 'apps/v1' as const, group: 'apps', version: 'v1' },
    { kind: 'everynode.dev/v1' as const, group: 'everynode.dev', version: 'v1' },
  ])('serves $kind from group $group', ({ kind, group, version }) => {
    expect(managedResourceOf(kind)).toEqual({
      group,
      version,
      plural: 'daemonsets',
      apiVersion: kind,
      kind: 'DaemonSet',
    });
  });
});
