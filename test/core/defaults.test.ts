import { describe, expect, it } from 'vitest';
import { defaultDaemonSet } from '../../lib/core/defaults.ts';
import { aDaemonSet } from '../support/builders.ts';

describe('defaultDaemonSet', () => {
  it('fills the apps/v1 defaults and leaves the input alone', () => {
    const ds = aDaemonSet('agent', { image: 'nginx' });
    delete ds.spec?.updateStrategy;
    delete ds.spec?.revisionHistoryLimit;
    const defaulted = defaultDaemonSet(ds);
    expect(defaulted.spec?.updateStrategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: 1, maxSurge: 0 },
    });
    expect(defaulted.spec?.revisionHistoryLimit).toBe(10);
    expect(defaulted.spec?.template.spec).toMatchObject({
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      schedulerName: 'default-scheduler',
      terminationGracePeriodSeconds: 30,
      securityContext: {},
    });
    expect(defaulted.spec?.template.spec?.containers[0]).toMatchObject({
      imagePullPolicy: 'Always',
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
    });
    expect(ds.spec?.updateStrategy).toBeUndefined();
  });

  it.each([
    { name: 'untagged image pulls Always', image: 'nginx', expected: 'Always' },
    { name: 'latest pulls Always', image: 'registry:5000/nginx:latest', expected: 'Always' },
    { name: 'tagged image pulls IfNotPresent', image: 'registry:5000/nginx:1.27', expected: 'IfNotPresent' },
    { name: 'digest pulls IfNotPresent', image: 'nginx@sha256:abc', expected: 'IfNotPresent' },
  ])('$name', ({ image, expected }) => {
    expect(
      defaultDaemonSet(aDaemonSet('a', { image })).spec?.template.spec?.containers[0]?.imagePullPolicy,
    ).toBe(expected);
  });

  it.each([
    {
      name: 'OnDelete gets no rollingUpdate',
      strategy: { type: 'OnDelete' },
      expected: { type: 'OnDelete' },
    },
    {
      name: 'set values are kept',
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '10%' } },
      expected: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '10%', maxUnavailable: 1 } },
    },
  ])('$name', ({ strategy, expected }) => {
    expect(defaultDaemonSet(aDaemonSet('a', { updateStrategy: strategy })).spec?.updateStrategy).toEqual(
      expected,
    );
  });
});
