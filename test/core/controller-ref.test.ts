import type { V1OwnerReference } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { controllerOf, controllerRefFor, isControlledBy } from '../../lib/core/controller-ref.ts';
import { aDaemonSet, aPod } from '../support/builders.ts';

const ds = aDaemonSet('agent');
const ref = (uid: string, controller?: boolean): V1OwnerReference => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  name: 'agent',
  uid,
  ...(controller !== undefined ? { controller } : {}),
});
const owned = (...ownerReferences: V1OwnerReference[]) => ({ metadata: { ownerReferences } });

describe('controllerOf', () => {
  it.each([
    { name: 'no owner references', obj: { metadata: {} }, expected: undefined },
    { name: 'only a non-controller owner', obj: owned(ref('a', false), ref('b')), expected: undefined },
    {
      name: 'the controller among several owners',
      obj: owned(ref('a'), ref('b', true)),
      expected: ref('b', true),
    },
  ])('$name', ({ obj, expected }) => {
    expect(controllerOf(obj)).toEqual(expected);
  });
});

describe('isControlledBy', () => {
  it.each([
    { name: 'pod of the DaemonSet', obj: aPod('p', { owner: ds }), expected: true },
    { name: 'orphan pod', obj: aPod('p'), expected: false },
    { name: 'same name, other uid (recreated DaemonSet)', obj: owned(ref('old-uid', true)), expected: false },
    { name: 'owner but not controller', obj: owned(ref('uid-ds-agent', false)), expected: false },
  ])('$name', ({ obj, expected }) => {
    expect(isControlledBy(obj, ds)).toBe(expected);
  });

  it('an owner without a uid controls nothing', () => {
    expect(isControlledBy(owned(ref('', true)), { metadata: {} })).toBe(false);
  });
});

describe('controllerRefFor', () => {
  it.each([
    {
      name: 'apps/v1 DaemonSet',
      ds,
      expected: { ...ref('uid-ds-agent', true), blockOwnerDeletion: true },
    },
    {
      name: 'everynode.dev/v1 DaemonSet keeps its own apiVersion',
      ds: { ...ds, apiVersion: 'everynode.dev/v1' },
      expected: { ...ref('uid-ds-agent', true), apiVersion: 'everynode.dev/v1', blockOwnerDeletion: true },
    },
  ])('$name', ({ ds: owner, expected }) => {
    expect(controllerRefFor(owner)).toEqual(expected);
  });
});
