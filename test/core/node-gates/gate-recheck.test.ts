import type { V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { DEFAULT_GATE_TAINT_KEY } from '../../../lib/core/node-gates/gate-declaration.ts';
import { nodesToRecheckGates } from '../../../lib/core/node-gates/gate-recheck.ts';
import type { NodeView } from '../../../lib/core/node-view.ts';
import { aDaemonSet, aNode, aPod } from '../../support/builders.ts';

const K = DEFAULT_GATE_TAINT_KEY;
const NOW = new Date('2026-01-01T01:00:00Z');

/** An everynode.dev/v1 DaemonSet gating `mode` on the default key (no gate when undefined). */
function gatingDaemonSet(mode?: 'BootstrapOnly' | 'Continuous'): V1DaemonSet {
  const ds = aDaemonSet('agent');
  ds.apiVersion = 'everynode.dev/v1';
  if (mode !== undefined) Object.assign(ds.spec ?? {}, { nodeReadiness: { mode } });
  return ds;
}

type PodState = 'available' | 'not ready' | 'terminating' | 'none';

interface Case {
  readonly name: string;
  readonly mode?: 'BootstrapOnly' | 'Continuous';
  readonly tainted: boolean;
  readonly shouldRun?: boolean;
  readonly pod: PodState;
  readonly recheck: boolean;
}

function viewOf(ds: Readonly<V1DaemonSet>, c: Readonly<Case>): NodeView {
  const node = aNode('n1', c.tainted ? { taints: [{ key: K, effect: 'NoSchedule' }] } : {});
  const pods: V1Pod[] =
    c.pod === 'none'
      ? []
      : [
          aPod('agent-n1', {
            owner: ds,
            nodeName: 'n1',
            phase: 'Running',
            ready: c.pod !== 'not ready',
            ...(c.pod === 'terminating' ? { deletionTimestamp: NOW } : {}),
          }),
        ];
  const shouldRun = c.shouldRun ?? true;
  return { name: 'n1', node, shouldRun, shouldContinueRunning: shouldRun, pods };
}

const cases: Case[] = [
  {
    name: 'gated, its pod available: maybe releasable',
    mode: 'BootstrapOnly',
    tainted: true,
    pod: 'available',
    recheck: true,
  },
  {
    name: 'gated, its pod not ready: waits',
    mode: 'BootstrapOnly',
    tainted: true,
    pod: 'not ready',
    recheck: false,
  },
  { name: 'gated, no pod yet: waits', mode: 'BootstrapOnly', tainted: true, pod: 'none', recheck: false },
  {
    name: 'gated, its pod terminating: waits',
    mode: 'Continuous',
    tainted: true,
    pod: 'terminating',
    recheck: false,
  },
  {
    name: 'gated, not wanted there: maybe releasable',
    mode: 'BootstrapOnly',
    tainted: true,
    shouldRun: false,
    pod: 'none',
    recheck: true,
  },
  {
    name: 'released, BootstrapOnly, pod gone: never re-tainted',
    mode: 'BootstrapOnly',
    tainted: false,
    pod: 'none',
    recheck: false,
  },
  {
    name: 'released, Continuous, pod not ready: taint due back',
    mode: 'Continuous',
    tainted: false,
    pod: 'not ready',
    recheck: true,
  },
  {
    name: 'released, Continuous, pod terminating: taint due back',
    mode: 'Continuous',
    tainted: false,
    pod: 'terminating',
    recheck: true,
  },
  {
    name: 'released, Continuous, pod available: agrees',
    mode: 'Continuous',
    tainted: false,
    pod: 'available',
    recheck: false,
  },
  {
    name: 'released, Continuous, not wanted there: agrees',
    mode: 'Continuous',
    tainted: false,
    shouldRun: false,
    pod: 'none',
    recheck: false,
  },
  { name: 'no gate: nothing to check', tainted: true, pod: 'available', recheck: false },
];

describe('nodesToRecheckGates', () => {
  it.each(cases)('$name', (c) => {
    const ds = gatingDaemonSet(c.mode);
    expect(nodesToRecheckGates(ds, [viewOf(ds, c)], NOW)).toEqual(c.recheck ? ['n1'] : []);
  });

  it('waits out minReadySeconds before calling a ready pod available', () => {
    const ds = gatingDaemonSet('BootstrapOnly');
    if (ds.spec) ds.spec.minReadySeconds = 30;
    const view = viewOf(ds, { name: '', tainted: true, pod: 'available', recheck: true });
    const pod = view.pods[0] as V1Pod;
    const since = (seconds: number) => [
      { type: 'Ready', status: 'True', lastTransitionTime: new Date(NOW.getTime() - seconds * 1000) },
    ];
    pod.status = { ...pod.status, conditions: since(10) };
    expect(nodesToRecheckGates(ds, [view], NOW)).toEqual([]);
    pod.status = { ...pod.status, conditions: since(40) };
    expect(nodesToRecheckGates(ds, [view], NOW)).toEqual(['n1']);
  });
});
