import type { V1DaemonSet } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { validateDaemonSet } from '../../lib/core/validation.ts';
import { aDaemonSet, type DaemonSetOptions } from '../support/builders.ts';

/** A valid DaemonSet changed by `mutate`. */
function invalidBy(mutate: (ds: V1DaemonSet) => void, options: DaemonSetOptions = {}): V1DaemonSet {
  const ds = aDaemonSet('agent', options);
  mutate(ds);
  return ds;
}
const spec = (ds: V1DaemonSet) => ds.spec as NonNullable<V1DaemonSet['spec']>;
const rolling = (rollingUpdate: Record<string, unknown>): DaemonSetOptions => ({
  updateStrategy: { type: 'RollingUpdate', rollingUpdate },
});

describe('validateDaemonSet', () => {
  it('accepts the builder DaemonSet, OnDelete, percents and surge', () => {
    for (const options of [
      {},
      { updateStrategy: { type: 'OnDelete' } },
      rolling({ maxUnavailable: '100%' }),
      rolling({ maxSurge: '20%', maxUnavailable: 0 }),
    ]) {
      expect(validateDaemonSet(aDaemonSet('agent', options))).toEqual([]);
    }
  });

  it.each([
    {
      name: 'name missing',
      ds: invalidBy((d) => {
        d.metadata = { ...d.metadata, name: '' };
      }),
      field: 'metadata.name',
      type: 'FieldValueRequired',
    },
    {
      name: 'name not a DNS subdomain',
      ds: invalidBy((d) => {
        d.metadata = { ...d.metadata, name: 'Agent_1' };
      }),
      field: 'metadata.name',
      type: 'FieldValueInvalid',
    },
    {
      name: 'namespace missing',
      ds: invalidBy((d) => {
        d.metadata = { ...d.metadata, namespace: '' };
      }),
      field: 'metadata.namespace',
      type: 'FieldValueRequired',
    },
    {
      name: 'selector missing',
      ds: invalidBy((d) => {
        delete (spec(d) as { selector?: unknown }).selector;
      }),
      field: 'spec.selector',
      type: 'FieldValueRequired',
    },
    {
      name: 'selector empty',
      ds: invalidBy((d) => {
        spec(d).selector = {};
      }),
      field: 'spec.selector',
      type: 'FieldValueInvalid',
    },
    {
      name: 'selector not matching the template labels',
      ds: invalidBy((d) => {
        spec(d).selector = { matchLabels: { app: 'other' } };
      }),
      field: 'spec.template.metadata.labels',
      type: 'FieldValueInvalid',
    },
    {
      name: 'selector operator In without values',
      ds: invalidBy((d) => {
        spec(d).selector = {
          matchLabels: { app: 'agent' },
          matchExpressions: [{ key: 'tier', operator: 'In' }],
        };
      }),
      field: 'spec.selector.matchExpressions[0].values',
      type: 'FieldValueRequired',
    },
    {
      name: 'restartPolicy Never',
      ds: aDaemonSet('agent', { podSpec: { restartPolicy: 'Never' } }),
      field: 'spec.template.spec.restartPolicy',
      type: 'FieldValueNotSupported',
    },
    {
      name: 'activeDeadlineSeconds set',
      ds: aDaemonSet('agent', { podSpec: { activeDeadlineSeconds: 5 } }),
      field: 'spec.template.spec.activeDeadlineSeconds',
      type: 'FieldValueInvalid',
    },
    {
      name: 'no containers',
      ds: aDaemonSet('agent', { podSpec: { containers: [] } }),
      field: 'spec.template.spec.containers',
      type: 'FieldValueRequired',
    },
    {
      name: 'container without image',
      ds: aDaemonSet('agent', { podSpec: { containers: [{ name: 'main' }] } }),
      field: 'spec.template.spec.containers[0].image',
      type: 'FieldValueRequired',
    },
    {
      name: 'duplicate container names',
      ds: aDaemonSet('agent', {
        podSpec: {
          containers: [
            { name: 'main', image: 'a' },
            { name: 'main', image: 'b' },
          ],
        },
      }),
      field: 'spec.template.spec.containers[1].name',
      type: 'FieldValueDuplicate',
    },
    {
      name: 'negative minReadySeconds',
      ds: aDaemonSet('agent', { minReadySeconds: -1 }),
      field: 'spec.minReadySeconds',
      type: 'FieldValueInvalid',
    },
    {
      name: 'negative revisionHistoryLimit',
      ds: aDaemonSet('agent', { revisionHistoryLimit: -1 }),
      field: 'spec.revisionHistoryLimit',
      type: 'FieldValueInvalid',
    },
    {
      name: 'unknown strategy type',
      ds: aDaemonSet('agent', { updateStrategy: { type: 'Recreate' } }),
      field: 'spec.updateStrategy',
      type: 'FieldValueNotSupported',
    },
    {
      name: 'maxUnavailable and maxSurge both non-zero',
      ds: aDaemonSet('agent', rolling({ maxUnavailable: 1, maxSurge: 1 })),
      field: 'spec.updateStrategy.rollingUpdate.maxSurge',
      type: 'FieldValueInvalid',
    },
    {
      name: 'maxUnavailable and maxSurge both zero',
      ds: aDaemonSet('agent', rolling({ maxUnavailable: 0, maxSurge: '0%' })),
      field: 'spec.updateStrategy.rollingUpdate.maxUnavailable',
      type: 'FieldValueRequired',
    },
    {
      name: 'percent over 100',
      ds: aDaemonSet('agent', rolling({ maxUnavailable: '150%' })),
      field: 'spec.updateStrategy.rollingUpdate.maxUnavailable',
      type: 'FieldValueInvalid',
    },
    {
      name: 'string that is not a percent',
      ds: aDaemonSet('agent', rolling({ maxUnavailable: 'two' })),
      field: 'spec.updateStrategy.rollingUpdate.maxUnavailable',
      type: 'FieldValueInvalid',
    },
    {
      name: 'negative maxUnavailable',
      ds: aDaemonSet('agent', rolling({ maxUnavailable: -1 })),
      field: 'spec.updateStrategy.rollingUpdate.maxUnavailable',
      type: 'FieldValueInvalid',
    },
    {
      name: 'negative partition field',
      ds: aDaemonSet('agent', rolling({ maxUnavailable: 1, partition: -2 })),
      field: 'spec.updateStrategy.rollingUpdate.partition',
      type: 'FieldValueInvalid',
    },
    {
      name: 'partition annotation not a number',
      ds: aDaemonSet('agent', { annotations: { 'everynode.dev/partition': 'half' } }),
      field: 'metadata.annotations[everynode.dev/partition]',
      type: 'FieldValueInvalid',
    },
    {
      name: 'paused annotation not a boolean',
      ds: aDaemonSet('agent', { annotations: { 'everynode.dev/paused': 'yes' } }),
      field: 'metadata.annotations[everynode.dev/paused]',
      type: 'FieldValueInvalid',
    },
    {
      name: 'rollout selector that does not parse',
      ds: aDaemonSet('agent', { annotations: { 'everynode.dev/rollout-selector': 'a in b' } }),
      field: 'metadata.annotations[everynode.dev/rollout-selector]',
      type: 'FieldValueInvalid',
    },
    {
      name: 'progress deadline not above minReadySeconds',
      ds: aDaemonSet('agent', {
        minReadySeconds: 60,
        annotations: { 'everynode.dev/progress-deadline-seconds': '60' },
      }),
      field: 'metadata.annotations[everynode.dev/progress-deadline-seconds]',
      type: 'FieldValueInvalid',
    },
    {
      name: 'burstReplicas zero',
      ds: invalidBy((d) => {
        Object.assign(spec(d), { burstReplicas: 0 });
      }),
      field: 'spec.burstReplicas',
      type: 'FieldValueInvalid',
    },
  ])('$name → $field', ({ ds, field, type }) => {
    expect(validateDaemonSet(ds)).toContainEqual(expect.objectContaining({ field, type }));
  });

  it.each([
    {
      name: 'changed selector is immutable',
      mutate: (d: V1DaemonSet) => {
        spec(d).selector = { matchLabels: { app: 'agent', tier: 'x' } };
        spec(d).template.metadata = { labels: { app: 'agent', tier: 'x' } };
      },
      field: 'spec.selector',
    },
    {
      name: 'renamed',
      mutate: (d: V1DaemonSet) => {
        d.metadata = { ...d.metadata, name: 'agent2' };
      },
      field: 'metadata.name',
    },
  ])('update: $name', ({ mutate, field }) => {
    const old = aDaemonSet('agent');
    expect(validateDaemonSet(invalidBy(mutate), old)).toContainEqual(
      expect.objectContaining({ field, message: 'field is immutable' }),
    );
  });

  it('update: same selector with keys in another order is not a change', () => {
    const old = aDaemonSet('agent', { labels: { tier: 'x' } });
    spec(old).selector = { matchLabels: { app: 'agent', tier: 'x' } };
    const next = aDaemonSet('agent', { labels: { tier: 'x' }, image: 'busybox:2' });
    spec(next).selector = { matchLabels: { tier: 'x', app: 'agent' } };
    expect(validateDaemonSet(next, old)).toEqual([]);
  });
});
