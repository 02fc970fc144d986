import { describe, expect, it } from 'vitest';
import type { MigrationRecord } from '../../../lib/core/migration/migration-record.ts';
import { type MigrationView, nextMigrationStep } from '../../../lib/core/migration/migration-step.ts';
import { MIGRATED_FROM_ANNOTATION } from '../../../lib/core/migration/target-manifest.ts';

const source = { metadata: { name: 'agent', uid: 'u-src' } };
const deleting = { metadata: { name: 'agent', uid: 'u-src', deletionTimestamp: '2026-12-07T00:00:00Z' } };
const recreated = { metadata: { name: 'agent', uid: 'u-other' } };
const ours = {
  metadata: {
    name: 'agent',
    uid: 'u-tgt',
    annotations: { [MIGRATED_FROM_ANNOTATION]: JSON.stringify({ apiVersion: 'apps/v1', uid: 'u-src' }) },
  },
};
const theirs = { metadata: { name: 'agent', uid: 'u-x' } };
const record: MigrationRecord = {
  from: 'apps/v1',
  to: 'everynode.dev/v1',
  namespace: 'ns',
  name: 'agent',
  sourceUid: 'u-src',
  source: {},
  currentRevision: { name: 'agent-abc', hash: 'abc', revision: 2, labels: {} },
  podUids: ['p1'],
};
const backwards: MigrationRecord = { ...record, from: 'everynode.dev/v1', to: 'apps/v1' };

const base: MigrationView = {
  from: 'apps/v1',
  to: 'everynode.dev/v1',
  sourceName: 'daemonsets.apps "agent"',
  targetName: 'daemonsets.everynode.dev "agent"',
};

/** Upstream's table-test style: what the cluster shows → the step. */
const cases: [string, Partial<MigrationView>, string][] = [
  ['nothing begun: record', { source }, 'record'],
  ['no source, no record, no target: refused', {}, 'refuse: daemonsets.apps "agent" not found'],
  [
    'source being deleted, no record: refused',
    { source: deleting },
    'refuse: daemonsets.apps "agent" is being deleted',
  ],
  [
    'name taken in the target kind: refused',
    { source, target: theirs },
    'refuse: daemonsets.everynode.dev "agent" already exists',
  ],
  ['recorded: delete the source', { source, record }, 'delete-source'],
  ['recorded, source being deleted: wait', { source: deleting, record }, 'wait-source-gone'],
  [
    'recorded, source re-created: refused',
    { source: recreated, record },
    'refuse: daemonsets.apps "agent" was created again',
  ],
  ['recorded, source gone: create the target', { record }, 'create-target'],
  [
    'recorded, target of someone else: refused',
    { record, target: theirs },
    'refuse: daemonsets.everynode.dev "agent" was created by someone else',
  ],
  ['recorded, our target, not adopted: wait', { record, target: ours, adopted: false }, 'wait-adopted'],
  [
    'recorded, our target, adopted: forget the record',
    { record, target: ours, adopted: true },
    'forget-record',
  ],
  [
    'record gone, our target: done',
    { target: ours },
    'done: daemonsets.everynode.dev "agent" is already migrated',
  ],
  [
    'a record of the other direction: refused',
    { source, record: backwards },
    'refuse: a migration of ns/agent from everynode.dev/v1 to apps/v1',
  ],
];

describe('nextMigrationStep', () => {
  it.each(cases)('%s', (_, view, expected) => {
    const step = nextMigrationStep({ ...base, ...view });
    const text = 'message' in step ? `${step.kind}: ${step.message}` : step.kind;
    expect(text.startsWith(expected)).toBe(true);
  });

  it('deletes the source only by the recorded uid', () => {
    expect(nextMigrationStep({ ...base, source, record })).toEqual({ kind: 'delete-source', uid: 'u-src' });
  });
});
