/**
 * The FailedPlacement hour across processes: each process remembers what it recorded, and a
 * process that does not (a new Lambda container, a restart) asks the API server for the same
 * event name within the hour, which it refuses (409 AlreadyExists): one event per node and reason
 * per hour, whichever process sees the pod.
 */
import type { CoreV1Event } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DaemonSet } from '../../../lib/core/daemon-set.ts';
import { PLACEMENT_EVENT_PERIOD_MS, placementEvents } from '../../../lib/core/placement-events.ts';
import type { KubePort } from '../../../lib/kube/kube-port.ts';
import { silentLogger } from '../../../lib/log/structured-logger.ts';
import { EventReason, EventRecorder } from '../../../lib/reconcile/memory/event-recorder.ts';
import { type SimCluster, startSimCluster } from '../../../lib/sim/start-sim-cluster.ts';
import { aDaemonSet } from '../../support/builders.ts';
import { kubePortOf } from '../../support/sim-kube.ts';

const ds = aDaemonSet('agent') as DaemonSet;
const stuck = [
  { node: 'node-a', pod: 'agent-a', reason: 'Insufficient memory', message: '' },
  { node: 'node-b', pod: 'agent-b', reason: 'Insufficient memory', message: '' },
];

describe('FailedPlacement: once per node and reason per hour', () => {
  let sim: SimCluster;
  let kube: KubePort;
  let now = new Date('2026-03-01T10:10:00Z');

  beforeAll(async () => {
    sim = await startSimCluster({ nodes: 0, timing: { timeScale: 0.001 } });
    kube = kubePortOf(sim, 'everynode-test');
  });
  afterAll(async () => sim?.stop());

  /** A process: its own recorder (its own memory) over the same API server. */
  const process = () => new EventRecorder({ kube, clock: () => now, logger: silentLogger, lingerMs: 0 });
  const record = (events: EventRecorder) =>
    placementEvents(ds.metadata?.uid ?? '', stuck, now).map((event) =>
      events.warningNamed(ds, EventReason.FailedPlacement, event.message, {
        scope: event.scope,
        nanos: event.nanos,
        quietMs: PLACEMENT_EVENT_PERIOD_MS,
      }),
    );
  const stored = () =>
    sim.store
      .view('events')
      .map((e) => e as unknown as CoreV1Event)
      .filter((e) => e.reason === 'FailedPlacement')
      .map((e) => `${e.metadata?.name} ${e.message}`)
      .sort();

  it('records each node once, however many steps and processes see it within the hour', async () => {
    const first = process();
    expect(record(first)).toEqual([true, true]);
    await first.flush();
    expect(stored()).toHaveLength(2);
    expect(stored().join('\n')).toContain('failed to place pod on "node-a": Insufficient memory');

    now = new Date('2026-03-01T10:40:00Z');
    // The same process remembers: no request at all.
    expect(record(first)).toEqual([false, false]);
    // A process that forgot asks, and the API server refuses the names it already holds.
    const second = process();
    expect(record(second)).toEqual([true, true]);
    await second.flush();
    expect(stored()).toHaveLength(2);
  });

  it('records again in the next hour, but a process never twice within sixty minutes', async () => {
    const third = process();
    now = new Date('2026-03-01T11:05:00Z');
    expect(record(third)).toEqual([true, true]);
    await third.flush();
    expect(stored()).toHaveLength(4);
    now = new Date('2026-03-01T12:01:00Z');
    expect(record(third)).toEqual([false, false]);
    now = new Date('2026-03-01T12:06:00Z');
    expect(record(third)).toEqual([true, true]);
    await third.flush();
    expect(stored()).toHaveLength(6);
  });
});
