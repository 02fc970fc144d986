import { describe, expect, it } from 'vitest';
import {
  controllerRevisionFor,
  controllerRevisionName,
  revisionData,
  revisionHashOf,
  revisionMatches,
} from '../../lib/core/controller-revision.ts';
import { dns1123SubdomainErrors, labelValueErrors } from '../../lib/core/object-names.ts';
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
    {
      name: 'an unlabelled revision named with 64 characters: the label value standing for it',
      metadata: { name: `${'a'.repeat(59)}-abcd` },
      expected: expect.stringMatching(/^h-[0-9a-f]{16}$/),
    },
  ])('$name', ({ metadata, expected }) => {
    const hash = revisionHashOf({ metadata, revision: 1 });
    expect(hash).toEqual(expected);
    expect(labelValueErrors(hash)).toEqual([]);
  });
});

describe('controllerRevisionName', () => {
  // The longest hash: a uint32 in the safe alphabet has at most 10 characters.
  const hash = 'bcdfghjklm';
  const a = (n: number) => 'a'.repeat(n);
  it.each([
    { name: '1 character: whole', prefix: 'x', expected: `x-${hash}` },
    { name: '63 characters: whole', prefix: a(63), expected: `${a(63)}-${hash}` },
    { name: '223 characters: whole', prefix: a(223), expected: `${a(223)}-${hash}` },
    { name: '224 characters: cut to 223', prefix: a(224), expected: `${a(223)}-${hash}` },
    { name: '243 characters: cut to 223', prefix: `${a(240)}.bc`, expected: `${a(223)}-${hash}` },
    {
      name: '253 characters: cut to 223',
      prefix: `${a(200)}.${'b'.repeat(52)}`,
      expected: `${a(200)}.${'b'.repeat(22)}-${hash}`,
    },
    {
      name: '253 characters cut after a dot: the dot goes too',
      prefix: `${a(222)}.${'b'.repeat(30)}`,
      expected: `${a(222)}-${hash}`,
    },
    {
      name: '253 characters cut after a dash: kept',
      prefix: `${a(222)}-${'b'.repeat(30)}`,
      expected: `${a(222)}--${hash}`,
    },
  ])('$name', ({ prefix, expected }) => {
    const name = controllerRevisionName(prefix, hash);
    expect(name).toBe(expected);
    expect(name.length).toBeLessThanOrEqual(253);
    expect(dns1123SubdomainErrors(name)).toEqual([]);
  });

  it('names the revision of a 253-character DaemonSet', () => {
    const long = aDaemonSet(`${'d'.repeat(230)}.${'e'.repeat(22)}`, { labels: { app: 'long' } });
    const revision = controllerRevisionFor(long, 1);
    const hashLabel = revision.metadata?.labels?.['controller-revision-hash'] ?? '';
    expect(revision.metadata?.name).toBe(`${'d'.repeat(223)}-${hashLabel}`);
    expect(revision.metadata?.ownerReferences?.[0]?.name).toBe(long.metadata?.name);
  });
});
