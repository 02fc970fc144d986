import { describe, expect, it } from 'vitest';
import { daemonSetRow, isConverged, renderView, rowConverged } from '../../lib/cli/live-view.ts';
import { aDaemonSet } from '../support/builders.ts';

const idle = { ingress: 0, ingressDelayed: 0, work: 0, workDlq: 0, ingressDlq: 0 };

function withStatus(status: Record<string, number>, generation = 1) {
  const ds = aDaemonSet('demo', { namespace: 'kiada', generation });
  return { ...ds, status: { observedGeneration: 1, numberMisscheduled: 0, ...status } as never };
}

const full = {
  desiredNumberScheduled: 3,
  currentNumberScheduled: 3,
  numberReady: 3,
  updatedNumberScheduled: 3,
  numberAvailable: 3,
};

describe('convergence as the live view judges it', () => {
  it.each([
    {
      name: 'everything scheduled, up to date, ready and available',
      status: full,
      generation: 1,
      converged: true,
    },
    {
      name: 'a pod not ready yet',
      status: { ...full, numberReady: 2, numberAvailable: 2 },
      generation: 1,
      converged: false,
    },
    {
      name: 'a pod of the old revision',
      status: { ...full, updatedNumberScheduled: 2 },
      generation: 1,
      converged: false,
    },
    {
      name: 'a pod on a node it should leave',
      status: { ...full, numberMisscheduled: 1 },
      generation: 1,
      converged: false,
    },
    { name: 'a status of an older generation', status: full, generation: 2, converged: false },
    {
      name: 'nothing to run anywhere',
      status: { desiredNumberScheduled: 0 },
      generation: 1,
      converged: true,
    },
  ])('$name', ({ status, generation, converged }) => {
    expect(rowConverged(daemonSetRow(withStatus(status, generation)))).toBe(converged);
  });

  it('is not converged while work is queued, however good the status', () => {
    const rows = [daemonSetRow(withStatus(full))];
    expect(isConverged(rows, idle)).toBe(true);
    expect(isConverged(rows, { ...idle, work: 1 })).toBe(false);
    expect(isConverged(rows, { ...idle, ingress: 2 })).toBe(false);
    expect(isConverged(rows, { ...idle, ingressDelayed: 2 })).toBe(true);
  });

  it('counts a DaemonSet without status as nothing scheduled', () => {
    expect(daemonSetRow(aDaemonSet('fresh'))).toMatchObject({ desired: 0, current: 0, observed: false });
  });
});

describe('renderView', () => {
  it('prints the DaemonSets like kubectl get ds, then the queues and recent warnings', () => {
    const lines = renderView({
      daemonSets: [daemonSetRow(withStatus(full))],
      depths: { ...idle, workDlq: 1 },
      triggersPerSecond: 2.5,
      triggers: 40,
      podsCreated: 3,
      podsDeleted: 0,
      recent: ['WARN router: dropping an ingress message'],
    });
    expect(lines).toEqual([
      'NAMESPACE   NAME   DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE',
      'kiada       demo   3         3         3       3            3',
      '',
      'queues: ingress 0 (+0 delayed)  work 0  DLQ 1 | triggers 40 (2.5/s) | pods created 3, deleted 0',
      '',
      'recent warnings:',
      '  WARN router: dropping an ingress message',
    ]);
  });
});
