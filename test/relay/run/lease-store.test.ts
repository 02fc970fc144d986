import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileCheckpointStore, type RelayCheckpoint } from '../../../lib/relay/run/checkpoint.ts';
import { RELAY_LEASE_FRESH_MS, relayLease } from '../../../lib/relay/run/handover.ts';
import { LeasedCheckpointStore } from '../../../lib/relay/run/lease-store.ts';

const T0 = Date.parse('2026-12-01T12:00:00Z');
const cluster = { server: 'https://sim', kubeSystemUid: 'uid-1' };
const checkpoint = (nodes: string, pods: string): RelayCheckpoint => ({
  managedKind: 'apps/v1',
  resourceVersions: { nodes, pods },
  cluster,
});

function record() {
  const file = new FileCheckpointStore(join(mkdtempSync(join(tmpdir(), 'everynode-lease-')), 'cp.json'));
  let now = T0;
  const run = (runId: string, predecessor?: string) => {
    let heartbeats = 0;
    const store = new LeasedCheckpointStore({
      store: file,
      runId,
      predecessor,
      now: () => now,
      onHeartbeat: () => (heartbeats += 1),
    });
    return { store, heartbeats: () => heartbeats };
  };
  return { file, run, advance: (ms: number) => (now += ms) };
}

describe('a run writing the checkpoint record under the lease', () => {
  it('takes the lease from its predecessor without moving any version back', async () => {
    const r = record();
    const a = r.run('run-a');
    await a.store.save(checkpoint('120', '300'));
    const b = r.run('run-b', 'run-a');
    // The successor resumed from an older checkpoint and has published less for nodes, more for pods.
    await b.store.save(checkpoint('100', '310'));
    expect(await r.file.load()).toMatchObject({
      resourceVersions: { nodes: '120', pods: '310' },
      lease: { runId: 'run-b' },
    });
    expect(b.store.holdsLease).toBe(true);
    expect(b.heartbeats()).toBe(1);
  });

  it('a holder stops writing for good once another run holds a fresh lease', async () => {
    const r = record();
    const a = r.run('run-a');
    await a.store.save(checkpoint('1', '1'));
    const b = r.run('run-b', 'run-a');
    await b.store.save(checkpoint('2', '2'));
    r.advance(1_000);
    expect(await a.store.poll()).toMatchObject({ runId: 'run-b' });
    expect(a.store.handedOver).toMatchObject({ held: true, holder: { runId: 'run-b' } });
    await a.store.save(checkpoint('3', '3'));
    expect((await r.file.load())?.resourceVersions).toEqual({ nodes: '2', pods: '2' });
    expect(a.heartbeats()).toBe(1);
  });

  it('a run that is not the successor of the holder never writes while the lease is fresh', async () => {
    const r = record();
    await r.run('run-a').store.save(checkpoint('5', '5'));
    const stray = r.run('run-x', 'run-gone');
    r.advance(RELAY_LEASE_FRESH_MS - 1);
    await stray.store.save(checkpoint('6', '6'));
    expect(stray.store.handedOver).toMatchObject({ held: false, holder: { runId: 'run-a' } });
    expect((await r.file.load())?.lease?.runId).toBe('run-a');
  });

  it('takes a stale lease over (the holder crashed)', async () => {
    const r = record();
    await r.run('run-a').store.save(checkpoint('5', '5'));
    r.advance(RELAY_LEASE_FRESH_MS);
    const watchdog = r.run('run-w');
    await watchdog.store.save(checkpoint('4', '6'));
    expect(await r.file.load()).toMatchObject({
      resourceVersions: { nodes: '5', pods: '6' },
      lease: { runId: 'run-w', heartbeatAt: new Date(T0 + RELAY_LEASE_FRESH_MS).toISOString() },
    });
  });

  it('keeps only its own versions when the record is of another cluster', async () => {
    const r = record();
    await r.file.save({ ...checkpoint('900', '900'), cluster: { ...cluster, kubeSystemUid: 'other' } });
    await r.run('run-a').store.save(checkpoint('7', '8'));
    expect((await r.file.load())?.resourceVersions).toEqual({ nodes: '7', pods: '8' });
  });

  it('gives the lease up with its last write after release', async () => {
    const r = record();
    const a = r.run('run-a');
    await a.store.save(checkpoint('1', '1'));
    a.store.release();
    await a.store.save(checkpoint('2', '2'));
    const stored = await r.file.load();
    expect(stored?.lease).toBeUndefined();
    expect(stored?.resourceVersions).toEqual({ nodes: '2', pods: '2' });
    expect(a.heartbeats()).toBe(1);
  });

  it('keeps a stored lease through the text form the SSM parameter holds', async () => {
    const r = record();
    const lease = relayLease('run-a', T0);
    await r.file.save({ ...checkpoint('1', '1'), lease });
    expect((await r.file.load())?.lease).toEqual(lease);
  });
});
