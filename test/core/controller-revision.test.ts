import { describe, expect, it } from 'vitest';
import {
  controllerRevisionFor,
  revisionData,
  revisionHashOf,
  revisionMatches,
} from '../../lib/core/controller-revision.ts';
import { templateHash } from '../../lib/core/template-hash.ts';
import { aDaemonSet } from '../support/builders.ts';

const ds = aDaemonSet('agent', { namespace: 'ops', annotations: { note: 'x' }, labels: { tier: 'node' } });

describe('controllerRevisionFor', () => {
  const revision = controllerRevisionFor(ds, 4);
  const hash = templateHash(ds.spec?.template ?? {});

  it('is named <ds>-<hash> in the DaemonSet namespace with the given number', () => {
    expect(revision.metadata?.name).toBe(`agent-${hash}`);
    expect(revision.metadata?.namespace).toBe('ops');
    expect(revision.revision).toBe(4);
  });

  it('is labelled with the template labels plus controller-revision-hash, annotated like the DaemonSet', () => {
    expect(revision.metadata?.labels).toEqual({
      app: 'agent',
      tier: 'node',
      'controller-revision-hash': hash,
    });
    expect(revision.metadata?.annotations).toEqual({ note: 'x' });
  });

  it('is controlled by the DaemonSet', () => {
    expect(revision.metadata?.ownerReferences).toEqual([
      {
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        name: 'agent',
        uid: 'uid-ds-agent',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
  });

  it('holds the template as a replace patch (upstream getPatch)', () => {
    expect(revision.data).toEqual({
      spec: {
        template: {
          metadata: { labels: { app: 'agent', tier: 'node' } },
          spec: { containers: [{ name: 'main', image: 'busybox:1.36' }], restartPolicy: 'Always' },
          $patch: 'replace',
        },
      },
    });
  });

  it.each([
    {
      name: 'explicit collisionCount',
      count: 2,
      expected: `agent-${templateHash(ds.spec?.template ?? {}, 2)}`,
    },
    {
      name: 'status.collisionCount by default',
      count: undefined,
      status: 1,
      expected: `agent-${templateHash(ds.spec?.template ?? {}, 1)}`,
    },
  ])('takes the collision count into the name: $name', ({ count, status, expected }) => {
    const withStatus =
      status === undefined ? ds : { ...ds, status: { ...zeroStatus, collisionCount: status } };
    expect(controllerRevisionFor(withStatus, 1, count).metadata?.name).toBe(expected);
  });
});

const zeroStatus = {
  currentNumberScheduled: 0,
  desiredNumberScheduled: 0,
  numberMisscheduled: 0,
  numberReady: 0,
};

describe('revisionMatches', () => {
  const revision = controllerRevisionFor(ds, 1);
  it.each([
    { name: 'its own revision', data: revision.data, expected: true },
    { name: 'data read back as JSON', data: JSON.parse(JSON.stringify(revision.data)), expected: true },
    {
      name: 'data written by Go with creationTimestamp: null and other key order',
      data: {
        spec: {
          template: {
            $patch: 'replace',
            spec: { restartPolicy: 'Always', containers: [{ image: 'busybox:1.36', name: 'main' }] },
            metadata: { creationTimestamp: null, labels: { tier: 'node', app: 'agent' } },
          },
        },
      },
      expected: true,
    },
    {
      name: 'another template',
      data: controllerRevisionFor(aDaemonSet('agent', { image: 'other' }), 1).data,
      expected: false,
    },
    { name: 'no data', data: undefined, expected: false },
  ])('$name: $expected', ({ data, expected }) => {
    expect(revisionMatches(ds, { ...revision, data })).toBe(expected);
  });

  it('revisionData is plain JSON', () => {
    expect(JSON.parse(JSON.stringify(revisionData(ds)))).toEqual(revisionData(ds));
  });
});

describe('revisionHashOf', () => {
  it.each([
    {
      name: 'the hash label',
      metadata: { name: 'agent-abc', labels: { 'controller-revision-hash': 'abc' } },
      expected: 'abc',
    },
    {
      name: 'the name of an unlabelled legacy revision',
      metadata: { name: 'agent-abc' },
      expected: 'agent-abc',
    },
  ])('$name', ({ metadata, expected }) => {
    expect(revisionHashOf({ metadata, revision: 1 })).toBe(expected);
  });
});
