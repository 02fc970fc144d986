import type { V1Taint, V1Toleration } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  automaticTolerations,
  daemonPodTolerations,
  toleratesTaint,
  untoleratedTaints,
} from '../../lib/core/tolerations.ts';

const exists = (key: string, effect: string): V1Toleration => ({ key, operator: 'Exists', effect });

describe('automaticTolerations', () => {
  const base = [
    exists('node.kubernetes.io/not-ready', 'NoExecute'),
    exists('node.kubernetes.io/unreachable', 'NoExecute'),
    exists('node.kubernetes.io/disk-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/memory-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/pid-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/unschedulable', 'NoSchedule'),
  ];
  it.each([
    { name: 'without hostNetwork: the six node-condition tolerations', hostNetwork: false, expected: base },
    {
      name: 'with hostNetwork: also network-unavailable',
      hostNetwork: true,
      expected: [...base, exists('node.kubernetes.io/network-unavailable', 'NoSchedule')],
    },
  ])('$name', ({ hostNetwork, expected }) => {
    expect(automaticTolerations(hostNetwork)).toEqual(expected);
  });
});

describe('daemonPodTolerations', () => {
  const userNotReady: V1Toleration = {
    ...exists('node.kubernetes.io/not-ready', 'NoExecute'),
    tolerationSeconds: 300,
  };
  const master = exists('node-role.kubernetes.io/master', 'NoSchedule');
  it.each([
    {
      name: 'template tolerations come first, automatic ones appended',
      tolerations: [master],
      hostNetwork: false,
      expected: [master, ...automaticTolerations(false)],
    },
    {
      name: 'a user toleration with the same key, effect, operator and value is replaced (tolerationSeconds dropped)',
      tolerations: [userNotReady, master],
      hostNetwork: false,
      expected: [
        exists('node.kubernetes.io/not-ready', 'NoExecute'),
        master,
        ...automaticTolerations(false).slice(1),
      ],
    },
    {
      name: 'a user toleration differing in operator or value is kept (upstream MatchToleration)',
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Equal', value: 'x', effect: 'NoExecute' },
      ],
      hostNetwork: false,
      expected: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Equal', value: 'x', effect: 'NoExecute' },
        ...automaticTolerations(false),
      ],
    },
    {
      name: 'a user toleration with the same key but another effect is kept',
      tolerations: [exists('node.kubernetes.io/unreachable', 'NoSchedule')],
      hostNetwork: false,
      expected: [exists('node.kubernetes.io/unreachable', 'NoSchedule'), ...automaticTolerations(false)],
    },
    {
      name: 'hostNetwork adds network-unavailable',
      tolerations: undefined,
      hostNetwork: true,
      expected: automaticTolerations(true),
    },
  ])('$name', ({ tolerations, hostNetwork, expected }) => {
    expect(daemonPodTolerations({ tolerations, hostNetwork })).toEqual(expected);
  });

  it('does not modify the template tolerations it reads', () => {
    const tolerations = [userNotReady];
    daemonPodTolerations({ tolerations });
    expect(tolerations).toEqual([userNotReady]);
  });
});

describe('toleratesTaint', () => {
  const taint: V1Taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };
  it.each<{ name: string; toleration: V1Toleration; taint?: V1Taint; expected: boolean }>([
    {
      name: 'Equal with the same key, value and effect',
      toleration: { key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' },
      expected: true,
    },
    {
      name: 'empty operator means Equal',
      toleration: { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
      expected: true,
    },
    {
      name: 'Equal with another value',
      toleration: { key: 'dedicated', operator: 'Equal', value: 'cpu', effect: 'NoSchedule' },
      expected: false,
    },
    {
      name: 'Equal with no value against a valued taint',
      toleration: { key: 'dedicated', operator: 'Equal', effect: 'NoSchedule' },
      expected: false,
    },
    {
      name: 'Exists ignores the value',
      toleration: { key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' },
      expected: true,
    },
    {
      name: 'another key',
      toleration: { key: 'other', operator: 'Exists', effect: 'NoSchedule' },
      expected: false,
    },
    {
      name: 'another effect',
      toleration: { key: 'dedicated', operator: 'Exists', effect: 'NoExecute' },
      expected: false,
    },
    {
      name: 'empty effect matches every effect',
      toleration: { key: 'dedicated', operator: 'Exists' },
      expected: true,
    },
    { name: 'empty key with Exists matches every taint', toleration: { operator: 'Exists' }, expected: true },
    {
      name: 'empty key with Exists and an effect matches only that effect',
      toleration: { operator: 'Exists', effect: 'NoExecute' },
      expected: false,
    },
    {
      name: 'unknown operator tolerates nothing',
      toleration: { key: 'dedicated', operator: 'Gt', value: 'gpu', effect: 'NoSchedule' },
      expected: false,
    },
    {
      name: 'Equal with no value against a taint with no value',
      toleration: { key: 'k', operator: 'Equal', effect: 'NoExecute' },
      taint: { key: 'k', effect: 'NoExecute' },
      expected: true,
    },
  ])('$name', ({ toleration, taint: given, expected }) => {
    expect(toleratesTaint(toleration, given ?? taint)).toBe(expected);
  });
});

describe('untoleratedTaints', () => {
  const noSchedule: V1Taint = { key: 'a', effect: 'NoSchedule' };
  const noExecute: V1Taint = { key: 'b', effect: 'NoExecute' };
  const prefer: V1Taint = { key: 'c', effect: 'PreferNoSchedule' };
  it.each<{
    name: string;
    taints?: V1Taint[];
    tolerations?: V1Toleration[];
    effects: ('NoSchedule' | 'NoExecute' | 'PreferNoSchedule')[];
    expected: V1Taint[];
  }>([
    { name: 'no taints', taints: undefined, effects: ['NoSchedule', 'NoExecute'], expected: [] },
    {
      name: 'all untolerated, filtered by effect',
      taints: [noSchedule, noExecute, prefer],
      effects: ['NoSchedule', 'NoExecute'],
      expected: [noSchedule, noExecute],
    },
    {
      name: 'only NoExecute asked for',
      taints: [noSchedule, noExecute],
      effects: ['NoExecute'],
      expected: [noExecute],
    },
    {
      name: 'tolerated taints removed',
      taints: [noSchedule, noExecute],
      tolerations: [{ key: 'b', operator: 'Exists' }],
      effects: ['NoSchedule', 'NoExecute'],
      expected: [noSchedule],
    },
    {
      name: 'a wildcard toleration tolerates all',
      taints: [noSchedule, noExecute],
      tolerations: [{ operator: 'Exists' }],
      effects: ['NoSchedule', 'NoExecute'],
      expected: [],
    },
  ])('$name', ({ taints, tolerations, effects, expected }) => {
    expect(untoleratedTaints(taints, tolerations, effects)).toEqual(expected);
  });
});
