import { describe, expect, it } from 'vitest';
import {
  MIGRATION_RECORD_LABEL,
  type MigrationRecord,
  migrationRecordName,
  recordOf,
  recordRevision,
} from '../../../lib/core/migration/migration-record.ts';

const record: MigrationRecord = {
  from: 'apps/v1',
  to: 'everynode.dev/v1',
  namespace: 'ns',
  name: 'agent',
  sourceUid: 'u1',
  source: { metadata: { name: 'agent' }, spec: {} },
  currentRevision: { name: 'agent-abc', hash: 'abc', revision: 3, labels: { app: 'agent' } },
  podUids: ['p1', 'p2'],
};

describe('the migration record', () => {
  it('is a ControllerRevision beside the DaemonSet’s, under a name no revision of it can have', () => {
    const revision = recordRevision(record);
    expect(revision.metadata).toEqual({
      name: 'agent-everynode-migration',
      namespace: 'ns',
      labels: { [MIGRATION_RECORD_LABEL]: 'agent' },
    });
    expect(migrationRecordName('x'.repeat(253)).length).toBeLessThanOrEqual(253);
  });

  it('reads back as it was written, through JSON', () => {
    expect(recordOf(JSON.parse(JSON.stringify(recordRevision(record))))).toEqual(record);
  });

  it('says why a revision holds no record', () => {
    expect(recordOf({ data: 'x' })).toBe('its data is not an object');
    expect(recordOf({ data: { ...record, to: 'apps/v1' } })).toBe(
      'its data names no pair of DaemonSet kinds',
    );
    expect(recordOf({ data: { ...record, currentRevision: { name: 'a' } } })).toBe(
      'its data names no current revision',
    );
    expect(recordOf({ data: { ...record, podUids: [1] } })).toBe('its data lists no pods');
  });
});
