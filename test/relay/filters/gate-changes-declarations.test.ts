/**
 * The relay marks a DaemonSet event that changed the DaemonSet's node readiness gate with
 * `gateChange` naming the keys that may have stopped being gated: against the simulated cluster
 * through the real client (declared, re-moded, re-keyed, removed, deleted; a dry run holds no key;
 * an unrelated change carries none), and after a 410 relist, on the resync trigger. The pure
 * judgement against the relay's own view is checked beside it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DaemonSet } from '../../../lib/core/daemon-set.ts';
import {
  NODE_READINESS_ANNOTATION,
  NODE_READINESS_DRY_RUN_ANNOTATION,
  NODE_READINESS_TAINT_KEY_ANNOTATION,
  NODE_READINESS_TIMEOUT_ANNOTATION,
} from '../../../lib/core/node-gates/gate-declaration.ts';
import { RelayNodeContext } from '../../../lib/relay/cluster-view/node-context.ts';
import { gateChangeOf, relistGateChange } from '../../../lib/relay/filters/gate-changes.ts';
import { aDaemonSet } from '../../support/builders.ts';
import { eventually } from '../../support/journal-triggers.ts';
import { type RelayWorld, startRelayWorld } from '../../support/relay-world.ts';
import { newDaemonSet } from '../../support/store-test-helpers.ts';

const K = 'everynode.dev/not-ready';
const AGENT = 'example.com/agent-not-ready';
const AGENT2 = 'example.com/agent-v2-not-ready';
const DRY = 'example.com/dry';

interface Seen {
  detailType: string;
  event?: string;
  kind?: string;
  name?: string;
  changes?: string[];
  reason?: string;
  gateChange?: { keys: string[] };
}

const gate = (mode: string, extra: Record<string, string> = {}) => ({
  [NODE_READINESS_ANNOTATION]: mode,
  ...extra,
});

describe('gate changes on DaemonSet triggers, against the simulated cluster', () => {
  let world: RelayWorld;

  beforeAll(async () => {
    world = await startRelayWorld({ nodes: 1 });
  });
  afterAll(() => world?.stop());

  /** Each trigger the relay published, its detail-type beside its detail. */
  const journalled = async (): Promise<Seen[]> =>
    (await world.triggers('journal')).map((t) => ({
      detailType: t.detailType,
      ...(t.detail as Omit<Seen, 'detailType'>),
    }));

  function createDaemonSet(name: string, annotations?: Record<string, string>): void {
    world.sim.store.create('apps/daemonsets', newDaemonSet(name, annotations ? { annotations } : {}));
  }

  /** Sets (string) or removes (undefined) annotations of DaemonSet `name`. */
  function annotate(name: string, changes: Record<string, string | undefined>): void {
    world.sim.store.mutate('apps/daemonsets', 'default', name, (ds) => {
      const meta = ds.metadata as { annotations?: Record<string, string> };
      const annotations = { ...meta.annotations };
      for (const [key, value] of Object.entries(changes)) {
        if (value === undefined) delete annotations[key];
        else annotations[key] = value;
      }
      meta.annotations = annotations;
    });
  }

  it('names the keys of the gate before and after each change of it, and nothing for other changes', async () => {
    createDaemonSet('cni', gate('BootstrapOnly'));
    createDaemonSet('agent', gate('Continuous', { [NODE_READINESS_TAINT_KEY_ANNOTATION]: AGENT }));
    createDaemonSet('logs');
    createDaemonSet(
      'dry',
      gate('BootstrapOnly', {
        [NODE_READINESS_TAINT_KEY_ANNOTATION]: DRY,
        [NODE_READINESS_DRY_RUN_ANNOTATION]: 'true',
      }),
    );
    const relay = await world.relay('journal');
    // Each step is one watch event of one DaemonSet, in this order on the DaemonSet watch.
    annotate('logs', { 'example.com/owner': 'team-a' });
    annotate('cni', { [NODE_READINESS_ANNOTATION]: 'Continuous' });
    annotate('cni', { [NODE_READINESS_TIMEOUT_ANNOTATION]: '300' });
    annotate('agent', { [NODE_READINESS_TAINT_KEY_ANNOTATION]: AGENT2 });
    annotate('agent', {
      [NODE_READINESS_ANNOTATION]: undefined,
      [NODE_READINESS_TAINT_KEY_ANNOTATION]: undefined,
    });
    world.sim.store.delete('apps/daemonsets', 'default', 'dry');
    world.sim.store.delete('apps/daemonsets', 'default', 'cni');
    annotate('logs', { [NODE_READINESS_ANNOTATION]: 'BootstrapOnly' });
    createDaemonSet('security', gate('Continuous', { [NODE_READINESS_TAINT_KEY_ANNOTATION]: AGENT }));
    const seen = await eventually(journalled, (s) =>
      s.some((x) => x.event === 'ADDED' && x.name === 'security'),
    );
    await relay.stop();
    const daemonSetEvents = seen
      .filter((s) => s.kind === 'DaemonSet')
      .map((s) => [s.event, s.name, s.gateChange?.keys ?? 'none']);
    expect(daemonSetEvents).toEqual([
      ['MODIFIED', 'logs', 'none'],
      ['MODIFIED', 'cni', [K]],
      ['MODIFIED', 'cni', 'none'],
      ['MODIFIED', 'agent', [AGENT, AGENT2]],
      ['MODIFIED', 'agent', [AGENT2]],
      // A dry run never held its key: a change to re-decide, naming no key to lift.
      ['DELETED', 'dry', []],
      ['DELETED', 'cni', [K]],
      ['MODIFIED', 'logs', [K]],
      ['ADDED', 'security', [AGENT]],
    ]);
  });

  it('after a 410 relist, names on the resync trigger the gates changed while it did not watch', async () => {
    const relay = await world.relay('journal');
    const before = (await journalled()).length;
    // Every watch ends: the next of each resource answer 410, and the gate removed meanwhile is
    // seen by no watch.
    for (const key of ['nodes', 'pods', 'apps/daemonsets']) world.sim.faults.forceWatchGone(1, key);
    world.sim.faults.dropWatches();
    annotate('logs', { [NODE_READINESS_ANNOTATION]: undefined });
    const seen = await eventually(
      async () => (await journalled()).slice(before),
      (s) => s.some((x) => x.detailType === 'Everynode Resync' && /daemonsets/.test(x.reason ?? '')),
    );
    await relay.stop();
    const resyncs = seen.filter((s) => s.detailType === 'Everynode Resync');
    expect(resyncs.find((s) => /daemonsets/.test(s.reason ?? ''))?.gateChange).toEqual({ keys: [K] });
    for (const other of resyncs.filter((s) => !/daemonsets/.test(s.reason ?? '')))
      expect(other.gateChange).toBeUndefined();
    expect(seen.some((s) => s.kind === 'DaemonSet' && s.name === 'logs')).toBe(false);
  });
});

describe('gateChangeOf and relistGateChange against the relay’s view', () => {
  const withGate = (name: string, uid: string, annotations?: Record<string, string>): DaemonSet => {
    const ds = aDaemonSet(name, { uid, ...(annotations ? { annotations } : {}) });
    return ds;
  };
  const cni = withGate('cni', 'u-cni', gate('BootstrapOnly'));
  const logs = withGate('logs', 'u-logs');

  function contextWith(...daemonSets: DaemonSet[]): RelayNodeContext {
    const context = new RelayNodeContext();
    context.seed('daemonsets', daemonSets);
    return context;
  }

  it('judges an event against the DaemonSet as the context last saw it', () => {
    const context = contextWith(cni, logs);
    const continuous = withGate('cni', 'u-cni', gate('Continuous'));
    expect(
      gateChangeOf(context, 'daemonsets', { type: 'MODIFIED', object: continuous, resourceVersion: '2' }),
    ).toEqual({ keys: [K] });
    expect(
      gateChangeOf(context, 'daemonsets', { type: 'MODIFIED', object: cni, resourceVersion: '2' }),
    ).toBeUndefined();
    // A DELETED event's object is its last state; the context's view is what was gating.
    expect(
      gateChangeOf(context, 'daemonsets', { type: 'DELETED', object: logs, resourceVersion: '3' }),
    ).toBeUndefined();
    expect(
      gateChangeOf(context, 'daemonsets', {
        type: 'DELETED',
        object: withGate('cni', 'u-cni'),
        resourceVersion: '3',
      }),
    ).toEqual({ keys: [K] });
    // Other resources, bookmarks and a relay without a view carry none.
    expect(gateChangeOf(context, 'daemonsets', undefined)).toBeUndefined();
    expect(
      gateChangeOf(undefined, 'daemonsets', { type: 'ADDED', object: cni, resourceVersion: '1' }),
    ).toBeUndefined();
  });

  it('unites the changes between the view and a relist, and none when the gates are the same', () => {
    const context = contextWith(cni, logs);
    const agent = withGate(
      'agent',
      'u-agent',
      gate('Continuous', { [NODE_READINESS_TAINT_KEY_ANNOTATION]: AGENT }),
    );
    expect(relistGateChange(context, 'daemonsets', [logs, agent])).toEqual({ keys: [K, AGENT] });
    expect(relistGateChange(context, 'daemonsets', [cni, logs])).toBeUndefined();
    expect(relistGateChange(context, 'nodes', [])).toBeUndefined();
  });
});
