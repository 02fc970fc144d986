/**
 * The relay's checkpoint as text (`parseRelayCheckpoint`, `formatRelayCheckpoint`): what round-trips,
 * what counts as no checkpoint (the relay then starts cold), and the local store
 * (`FileCheckpointStore`), which replaces its file atomically.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  FileCheckpointStore,
  formatRelayCheckpoint,
  parseRelayCheckpoint,
  type RelayCheckpoint,
} from '../../../lib/relay/run/checkpoint.ts';

const full: RelayCheckpoint = {
  managedKind: 'apps/v1',
  resourceVersions: { nodes: '101', pods: '205', daemonsets: '17' },
  cluster: { server: 'https://api.example:6443', kubeSystemUid: 'uid-kube-system' },
  savedAt: '2026-11-30T00:00:00.000Z',
  lease: { runId: 'run-1', heartbeatAt: '2026-11-30T00:00:00.000Z' },
};

describe('the checkpoint as text', () => {
  it.each<{ name: string; checkpoint: RelayCheckpoint }>([
    { name: 'every field', checkpoint: full },
    {
      name: 'some versions, no cluster, savedAt nor lease (an older relay)',
      checkpoint: { managedKind: 'everynode.dev/v1', resourceVersions: { nodes: '5' } },
    },
    { name: 'no version at all', checkpoint: { managedKind: 'apps/v1', resourceVersions: {} } },
  ])('round-trips $name', ({ checkpoint }) => {
    const text = formatRelayCheckpoint(checkpoint);
    expect(JSON.parse(text)).toEqual(checkpoint);
    expect(parseRelayCheckpoint(text)).toEqual(checkpoint);
    expect(formatRelayCheckpoint(parseRelayCheckpoint(text) as RelayCheckpoint)).toBe(text);
  });

  it('drops what is no part of a checkpoint, in both directions', () => {
    const extra = {
      ...full,
      note: 'x',
      resourceVersions: { ...full.resourceVersions, controllerrevisions: '9' },
    };
    expect(JSON.parse(formatRelayCheckpoint(extra as RelayCheckpoint))).toEqual(full);
    expect(parseRelayCheckpoint(JSON.stringify(extra))).toEqual(full);
  });

  it.each<{ name: string; text: string | undefined }>([
    { name: 'nothing', text: undefined },
    { name: 'empty text', text: '' },
    { name: 'white space', text: ' \n\t' },
    { name: '{} (the parameter as created)', text: '{}' },
    { name: 'text that is no JSON', text: 'nodes=101' },
    { name: 'cut-off JSON', text: formatRelayCheckpoint(full).slice(0, 40) },
    { name: 'JSON that is no object', text: '["101"]' },
    { name: 'null', text: 'null' },
    { name: 'an unknown managed kind', text: JSON.stringify({ ...full, managedKind: 'v1' }) },
    { name: 'no versions', text: JSON.stringify({ managedKind: 'apps/v1' }) },
    { name: 'an empty version', text: JSON.stringify({ ...full, resourceVersions: { nodes: '' } }) },
    {
      name: 'a version that is a number',
      text: JSON.stringify({ ...full, resourceVersions: { nodes: 101 } }),
    },
    {
      name: 'a cluster without its uid',
      text: JSON.stringify({ ...full, cluster: { server: 'https://a' } }),
    },
    { name: 'a lease without a time', text: JSON.stringify({ ...full, lease: { runId: 'run-1' } }) },
  ])('reads no checkpoint in $name', ({ text }) => {
    expect(parseRelayCheckpoint(text)).toBeUndefined();
  });

  it('refuses to write what it could not read back', () => {
    const bad = { ...full, resourceVersions: { nodes: '' } };
    expect(() => formatRelayCheckpoint(bad)).toThrow();
    expect(() =>
      formatRelayCheckpoint({ ...full, managedKind: 'v1' as RelayCheckpoint['managedKind'] }),
    ).toThrow();
  });
});

describe('FileCheckpointStore', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'everynode-checkpoint-test-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads nothing before the first save; saves into new folders and reads it back', async () => {
    const path = join(dir, 'state', 'relay', 'checkpoint.json');
    const store = new FileCheckpointStore(path);
    expect(await store.load()).toBeUndefined();
    await store.save(full);
    expect(await readFile(path, 'utf8')).toBe(formatRelayCheckpoint(full));
    expect(await store.load()).toEqual(full);
    expect(await new FileCheckpointStore(path).load()).toEqual(full);
  });

  it('replaces the file whole, leaving no temporary file beside it', async () => {
    const path = join(dir, 'checkpoint.json');
    const store = new FileCheckpointStore(path);
    await store.save(full);
    const next = { ...full, resourceVersions: { nodes: '102' } };
    await store.save(next);
    expect(await store.load()).toEqual(next);
    expect(await readdir(dir)).toEqual(['checkpoint.json']);
  });

  it('keeps the previous checkpoint whole when a write fails midway or is refused', async () => {
    const path = join(dir, 'checkpoint.json');
    const store = new FileCheckpointStore(path);
    await store.save(full);
    // The temporary file cannot be written (a folder stands at its name): the rename never happens.
    const temporary = `${path}.${process.pid}.tmp`;
    await mkdir(temporary);
    await expect(store.save({ ...full, resourceVersions: { nodes: '999' } })).rejects.toThrow();
    await rm(temporary, { recursive: true });
    expect(await store.load()).toEqual(full);
    // A checkpoint that is none is refused before anything is written.
    await expect(store.save({ ...full, resourceVersions: { nodes: '' } })).rejects.toThrow();
    expect(await store.load()).toEqual(full);
    expect(await readdir(dir)).toEqual(['checkpoint.json']);
  });

  it('loads no checkpoint from a file that holds none, and fails on a file it cannot read', async () => {
    const path = join(dir, 'checkpoint.json');
    await writeFile(path, '{"managedKind": "apps/v1", "resourceVer');
    expect(await new FileCheckpointStore(path).load()).toBeUndefined();
    const folder = join(dir, 'a-folder');
    await mkdir(folder);
    const failure = new FileCheckpointStore(folder).load();
    await expect(failure).rejects.toThrow(`reading the relay checkpoint ${folder}`);
    await expect(failure).rejects.toMatchObject({ cause: { code: 'EISDIR' } });
  });
});
