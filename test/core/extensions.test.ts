import { describe, expect, it } from 'vitest';
import { DEFAULT_BURST_REPLICAS, rolloutExtensionsOf } from '../../lib/core/extensions.ts';
import { aDaemonSet } from '../support/builders.ts';

const defaults = {
  partition: 0,
  paused: false,
  selector: undefined,
  strict: false,
  progressDeadlineSeconds: undefined,
  burstReplicas: DEFAULT_BURST_REPLICAS,
};

describe('rolloutExtensionsOf', () => {
  it.each([
    { name: 'nothing set → defaults', ds: aDaemonSet('a'), expected: defaults },
    {
      name: 'everynode.dev/v1 fields',
      ds: (() => {
        const ds = aDaemonSet('a', {
          updateStrategy: {
            type: 'RollingUpdate',
            rollingUpdate: {
              maxUnavailable: 1,
              partition: 2,
              paused: true,
              strict: true,
              selector: { matchLabels: { c: 'd' } },
            } as Record<string, unknown>,
          },
        });
        Object.assign(ds.spec ?? {}, { progressDeadlineSeconds: 300, burstReplicas: 10 });
        return ds;
      })(),
      expected: {
        partition: 2,
        paused: true,
        selector: { matchLabels: { c: 'd' } },
        strict: true,
        progressDeadlineSeconds: 300,
        burstReplicas: 10,
      },
    },
    {
      name: 'apps/v1 annotations',
      ds: aDaemonSet('a', {
        annotations: {
          'everynode.dev/partition': '3',
          'everynode.dev/paused': 'true',
          'everynode.dev/rollout-selector': 'c=d',
          'everynode.dev/strict': 'true',
          'everynode.dev/progress-deadline-seconds': '120',
          'everynode.dev/burst-replicas': '5',
        },
      }),
      expected: {
        partition: 3,
        paused: true,
        selector: { matchExpressions: [{ key: 'c', operator: 'In', values: ['d'] }] },
        strict: true,
        progressDeadlineSeconds: 120,
        burstReplicas: 5,
      },
    },
    {
      name: 'the field wins over the annotation; invalid values count as unset',
      ds: aDaemonSet('a', {
        annotations: { 'everynode.dev/partition': '3', 'everynode.dev/burst-replicas': '0' },
        updateStrategy: {
          type: 'RollingUpdate',
          rollingUpdate: { maxUnavailable: 1, partition: 1 } as Record<string, unknown>,
        },
      }),
      expected: { ...defaults, partition: 1 },
    },
  ])('$name', ({ ds, expected }) => {
    expect(rolloutExtensionsOf(ds)).toEqual(expected);
  });
});
