/**
 * The kubelet's Ready with pod readiness gates (upstream pkg/kubelet/status/generate.go
 * GeneratePodReadyCondition): Ready is True only when the containers are ready and every gate's
 * condition is True; ContainersReady does not look at the gates.
 */
import { describe, expect, it } from 'vitest';
import { admitPod, advancePodRun } from '../../../lib/sim/kubelet/kubelet-pod-run.ts';
import { type PodConditionJson, podStatusFor } from '../../../lib/sim/kubelet/kubelet-pod-status.ts';
import { aNode } from '../../support/builders.ts';
import { TEST_RUN_DELAYS } from '../../support/run-delays.ts';

const delays = TEST_RUN_DELAYS;
const t0 = Date.parse('2026-03-01T10:00:00Z');
const GATE = 'everynode.dev/InPlaceUpdateReady';

const condition = (type: string, status: 'True' | 'False'): PodConditionJson => ({
  type,
  status,
  lastProbeTime: null,
  lastTransitionTime: '2026-03-01T09:59:59Z',
});

/** The Ready and ContainersReady conditions the kubelet writes at `ms` with `gates` and `others`. */
function readiness(ms: number, gates: readonly string[], others: PodConditionJson[]) {
  const run = advancePodRun(
    admitPod({ containers: [{ name: 'c', image: 'busybox' }] }, aNode('n1'), t0, '10.244.0.2'),
    t0 + ms,
    delays,
  ).run;
  const pod = { name: 'p', namespace: 'ns', uid: 'u1', readinessGates: gates };
  const status = podStatusFor(run, pod, { conditions: others }, '10.0.0.10', t0 + ms);
  const all = status.conditions as PodConditionJson[];
  const pick = (type: string) => {
    const c = all.find((x) => x.type === type);
    return c && { status: c.status, reason: c.reason, message: c.message };
  };
  return { ready: pick('Ready'), containersReady: pick('ContainersReady'), gate: pick(GATE) };
}

describe('the kubelet and pod readiness gates', () => {
  it('holds a running pod not ready while a gate has no condition, in upstream words', () => {
    const { ready, containersReady } = readiness(5000, [GATE], []);
    expect(containersReady).toEqual({ status: 'True', reason: undefined, message: undefined });
    expect(ready).toEqual({
      status: 'False',
      reason: 'ReadinessGatesNotReady',
      message: `corresponding condition of pod readiness gate "${GATE}" does not exist.`,
    });
  });

  it('names each gate not True, joined as upstream joins them', () => {
    const { ready } = readiness(5000, [GATE, 'example.com/other'], [condition(GATE, 'False')]);
    expect(ready).toEqual({
      status: 'False',
      reason: 'ReadinessGatesNotReady',
      message:
        `the status of pod readiness gate "${GATE}" is not "True", but False, ` +
        'corresponding condition of pod readiness gate "example.com/other" does not exist.',
    });
  });

  it('reports Ready once every gate is True, and keeps the gate condition as the API server has it', () => {
    const { ready, gate } = readiness(5000, [GATE], [condition(GATE, 'True')]);
    expect(ready).toEqual({ status: 'True', reason: undefined, message: undefined });
    expect(gate).toEqual({ status: 'True', reason: undefined, message: undefined });
  });

  it('says why the containers are not ready before it looks at the gates', () => {
    const { ready } = readiness(500, [GATE], [condition(GATE, 'True')]);
    expect(ready).toEqual({
      status: 'False',
      reason: 'ContainersNotReady',
      message: 'containers with unready status: [c]',
    });
  });

  it('needs no gate condition for a pod without gates', () => {
    expect(readiness(5000, [], []).ready?.status).toBe('True');
  });
});
