import { describe, expect, it } from 'vitest';
import {
  invocationDecision,
  isLeaseFresh,
  laterResourceVersions,
  mayTakeLease,
  RELAY_HEARTBEAT_MS,
  RELAY_LEASE_FRESH_MS,
  RELAY_SUCCESSOR_LEAD_MS,
  RELAY_SUCCESSOR_PATIENCE_MS,
  RELAY_WATCHDOG_SECONDS,
  type RelayLease,
  relayInvocation,
  relayLease,
  relayLeaseSchema,
  relaySuccessorEvent,
  shouldHandOver,
  shouldReinvokeSuccessor,
  successorDueAt,
} from '../../../lib/relay/run/handover.ts';
import { RELAY_CHECKPOINT_EVERY_MS, RELAY_FLUSH_RESERVE_SECONDS } from '../../../lib/relay/run/run.ts';

const t0 = Date.parse('2030-01-01T00:00:00.000Z');
const at = (seconds: number) => t0 + seconds * 1000;
const leaseOf = (runId: string, heartbeatSeconds: number): RelayLease =>
  relayLease(runId, at(heartbeatSeconds));

describe('relay hand-over constants', () => {
  it('the heartbeat is the checkpoint write, and freshness outlasts three missed heartbeats', () => {
    expect(RELAY_HEARTBEAT_MS).toBe(RELAY_CHECKPOINT_EVERY_MS);
    expect(RELAY_LEASE_FRESH_MS).toBeGreaterThan(3 * RELAY_HEARTBEAT_MS);
  });
  it('a re-invoked successor still has time to take over before the 5-minute run’s deadline', () => {
    const period = 300_000;
    const deadline = period + 60_000 - RELAY_FLUSH_RESERVE_SECONDS * 1000;
    const reinvokedAt = period - RELAY_SUCCESSOR_LEAD_MS + RELAY_SUCCESSOR_PATIENCE_MS;
    expect(deadline - reinvokedAt).toBeGreaterThan(RELAY_SUCCESSOR_LEAD_MS);
    expect(RELAY_WATCHDOG_SECONDS * 1000).toBeGreaterThan(RELAY_LEASE_FRESH_MS);
  });
});

describe('relay lease', () => {
  it.each([
    { name: 'no lease', lease: undefined, now: 0, fresh: false },
    { name: 'just written', lease: leaseOf('a', 0), now: 0, fresh: true },
    { name: 'three heartbeats missed', lease: leaseOf('a', 0), now: 19.999, fresh: true },
    { name: 'exactly the freshness window old', lease: leaseOf('a', 0), now: 20, fresh: false },
    { name: 'a minute old', lease: leaseOf('a', 0), now: 60, fresh: false },
    { name: 'a second in the future (clock skew)', lease: leaseOf('a', 1), now: 0, fresh: true },
    { name: 'an hour in the future (a broken clock)', lease: leaseOf('a', 3600), now: 0, fresh: false },
    { name: 'an unreadable heartbeat', lease: { runId: 'a', heartbeatAt: 'soon' }, now: 0, fresh: false },
  ])('$name: fresh $fresh', ({ lease, now, fresh }) => {
    expect(isLeaseFresh(lease, at(now))).toBe(fresh);
  });

  it('round-trips through its schema and rejects a malformed one', () => {
    const lease = leaseOf('run-1', 12.5);
    expect(lease.heartbeatAt).toBe('2030-01-01T00:00:12.500Z');
    expect(relayLeaseSchema.parse(JSON.parse(JSON.stringify(lease)))).toEqual(lease);
    expect(relayLeaseSchema.safeParse({ runId: '', heartbeatAt: lease.heartbeatAt }).success).toBe(false);
    expect(relayLeaseSchema.safeParse({ runId: 'a', heartbeatAt: 'yesterday' }).success).toBe(false);
    expect(relayLeaseSchema.safeParse({ runId: 'a' }).success).toBe(false);
  });
});

describe('relay invocation', () => {
  it.each([
    {
      name: 'the successor event',
      event: relaySuccessorEvent('run-1'),
      want: { trigger: 'successor', predecessor: 'run-1' },
    },
    {
      name: 'a schedule event',
      event: { source: 'aws.events', 'detail-type': 'Scheduled Event' },
      want: { trigger: 'schedule' },
    },
    {
      name: 'a successor event without predecessor',
      event: { everynode: 'relay-successor' },
      want: { trigger: 'schedule' },
    },
    { name: 'nothing', event: undefined, want: { trigger: 'schedule' } },
  ])('$name', ({ event, want }) => {
    expect(relayInvocation(event)).toEqual(want);
  });

  it.each([
    {
      name: 'a successor watches though the lease is fresh',
      trigger: 'successor',
      lease: leaseOf('a', 0),
      now: 1,
      want: 'watch',
    },
    {
      name: 'a successor watches without a lease',
      trigger: 'successor',
      lease: undefined,
      now: 1,
      want: 'watch',
    },
    {
      name: 'the watchdog exits while the lease is fresh',
      trigger: 'schedule',
      lease: leaseOf('a', 0),
      now: 19,
      want: 'exit',
    },
    {
      name: 'the watchdog starts a run when the lease is stale',
      trigger: 'schedule',
      lease: leaseOf('a', 0),
      now: 20,
      want: 'watch',
    },
    {
      name: 'the watchdog starts the first run',
      trigger: 'schedule',
      lease: undefined,
      now: 0,
      want: 'watch',
    },
  ] as const)('$name', ({ trigger, lease, now, want }) => {
    expect(invocationDecision({ trigger, lease, now: at(now) })).toBe(want);
  });

  it.each([
    { name: 'a 5-minute run invokes its successor 20 s before its period ends', runSeconds: 300, due: 280 },
    { name: 'a 15-minute run', runSeconds: 840, due: 820 },
    { name: 'a period shorter than the lead: at once', runSeconds: 10, due: 0 },
  ])('$name', ({ runSeconds, due }) => {
    expect(successorDueAt(at(100), runSeconds)).toBe(at(100 + due));
  });
});

describe('relay takeover and hand-over', () => {
  it.each([
    { name: 'no lease', lease: undefined, predecessor: 'p', may: true },
    { name: 'its predecessor’s fresh lease', lease: leaseOf('p', 99), predecessor: 'p', may: true },
    { name: 'its own lease (a retried invocation)', lease: leaseOf('me', 99), predecessor: 'p', may: true },
    {
      name: 'another run’s fresh lease (a late duplicate successor)',
      lease: leaseOf('x', 99),
      predecessor: 'p',
      may: false,
    },
    {
      name: 'another run’s fresh lease, started by the watchdog',
      lease: leaseOf('x', 99),
      predecessor: undefined,
      may: false,
    },
    { name: 'another run’s stale lease', lease: leaseOf('x', 70), predecessor: undefined, may: true },
  ])('takes the lease: $name → $may', ({ lease, predecessor, may }) => {
    expect(mayTakeLease({ ownRunId: 'me', predecessor, lease, now: at(100) })).toBe(may);
  });

  it.each([
    { name: 'it holds the lease', lease: leaseOf('me', 99), stops: false },
    { name: 'its successor took the lease', lease: leaseOf('s', 99.5), stops: true },
    { name: 'a run that took over has died unseen (stale lease)', lease: leaseOf('s', 70), stops: false },
    { name: 'no lease at all', lease: undefined, stops: false },
  ])('stops: $name → $stops', ({ lease, stops }) => {
    expect(shouldHandOver({ ownRunId: 'me', lease, now: at(100) })).toBe(stops);
  });

  it.each([
    {
      name: 'successor invoked 10 s ago, lease still own',
      lease: leaseOf('me', 99),
      invokedAt: 90,
      again: false,
    },
    {
      name: 'successor invoked 30 s ago, lease still own',
      lease: leaseOf('me', 99),
      invokedAt: 70,
      again: true,
    },
    {
      name: 'successor invoked 30 s ago and took over',
      lease: leaseOf('s', 99),
      invokedAt: 70,
      again: false,
    },
    { name: 'no lease (never held one)', lease: undefined, invokedAt: 0, again: false },
  ])('re-invokes: $name → $again', ({ lease, invokedAt, again }) => {
    expect(shouldReinvokeSuccessor({ ownRunId: 'me', lease, invokedAt: at(invokedAt), now: at(100) })).toBe(
      again,
    );
  });
});

describe('relay checkpoint never moves back', () => {
  it.each([
    { name: 'own newer wins', stored: { pods: '100' }, own: { pods: '120' }, want: { pods: '120' } },
    { name: 'stored newer kept', stored: { pods: '130' }, own: { pods: '120' }, want: { pods: '130' } },
    {
      name: 'compared as integers, not text',
      stored: { pods: '99' },
      own: { pods: '100' },
      want: { pods: '100' },
    },
    {
      name: 'not comparable: stored kept',
      stored: { pods: 'abc' },
      own: { pods: '120' },
      want: { pods: 'abc' },
    },
    {
      name: 'leading zero is not well-formed: stored kept',
      stored: { pods: '5' },
      own: { pods: '07' },
      want: { pods: '5' },
    },
    {
      name: 'per resource, and sides naming a resource alone keep it',
      stored: { nodes: '10', pods: '50' },
      own: { pods: '40', daemonsets: '7' },
      want: { nodes: '10', pods: '50', daemonsets: '7' },
    },
    { name: 'nothing stored', stored: {}, own: { nodes: '3' }, want: { nodes: '3' } },
  ])('$name', ({ stored, own, want }) => {
    expect(laterResourceVersions(stored, own)).toEqual(want);
  });
});
