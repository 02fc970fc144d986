/**
 * `rollout status` on a DaemonSet with a safe rollout, without a cluster: the step and the domain
 * in kubectl's waiting lines, a halt as an error (from the record, or from the Progressing
 * condition while an apps/v1 record annotation lags behind the status), and a stale record ignored.
 */
import { describe, expect, it } from 'vitest';
import { ROLLOUT_STATUS_ANNOTATION, type RolloutRecord } from '../../lib/core/safe-rollout/rollout-record.ts';
import { templateHash } from '../../lib/core/template-hash.ts';
import { daemonSetStatusMessage } from '../../lib/kubectl-plugin/daemon-set-status-message.ts';
import { KubectlError, kubectlErrorText } from '../../lib/kubectl-plugin/kubectl-error.ts';
import type { KubeObject } from '../../lib/kubectl-plugin/plugin-api.ts';

const template = {
  metadata: { labels: { app: 'agent' } },
  spec: { containers: [{ name: 'a', image: 'x:1' }] },
};
const HASH = templateHash(template);
const counts = {
  observedGeneration: 2,
  desiredNumberScheduled: 7,
  updatedNumberScheduled: 1,
  numberAvailable: 7,
};
const steps = [{ nodes: 1 }, { pause: {} }, { nodes: '50%' }];

/** An everynode.dev/v1 DaemonSet `agent` with steps by zone, its status and its record. */
function eds(record: RolloutRecord | undefined, status: Record<string, unknown> = counts): KubeObject {
  return {
    apiVersion: 'everynode.dev/v1',
    metadata: { name: 'agent', generation: 2 },
    spec: {
      template,
      updateStrategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable: 2, steps, topologyKey: 'topology.kubernetes.io/zone' },
      },
    },
    status: { ...status, ...(record ? { rollout: record } : {}) },
  };
}

/** The same as an apps/v1 DaemonSet: settings and record in annotations. */
function ds(record: RolloutRecord | undefined, status: Record<string, unknown> = counts): KubeObject {
  return {
    apiVersion: 'apps/v1',
    metadata: {
      name: 'agent',
      generation: 2,
      annotations: {
        'everynode.dev/rollout-steps': JSON.stringify(steps),
        'everynode.dev/rollout-topology-key': 'topology.kubernetes.io/zone',
        ...(record ? { [ROLLOUT_STATUS_ANNOTATION]: JSON.stringify(record) } : {}),
      },
    },
    spec: { template, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } } },
    status,
  };
}

const paused: RolloutRecord = { revision: HASH, phase: 'Paused', step: 1, domain: 'a', updatedNodes: 1 };
const halted: RolloutRecord = {
  revision: HASH,
  phase: 'Halted',
  step: 0,
  domain: 'a',
  updatedNodes: 1,
  haltedAt: '2026-01-02T00:00:00Z',
  haltReason: 'TooManyFailedNodes',
  haltMessage: '1 nodes failed on revision x, at most 0 tolerated: node-00001 (PodNotAvailable: not ready)',
};

function thrown(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(KubectlError);
    return kubectlErrorText([error]);
  }
  throw new Error('nothing was thrown');
}

describe('daemonSetStatusMessage with a safe rollout', () => {
  it('names the step and the domain in kubectl’s waiting lines, for both kinds', () => {
    for (const make of [eds, ds]) {
      expect(daemonSetStatusMessage(make(paused))).toEqual({
        message:
          'Waiting for daemon set "agent" rollout to finish: step 2 of 3 (pause until resumed), zone a: 1 out of 7 new pods have been updated...\n',
        done: false,
      });
      const moving = { ...paused, phase: 'Progressing' as const, step: 2, domain: 'b' };
      expect(
        daemonSetStatusMessage(make(moving, { ...counts, updatedNumberScheduled: 7, numberAvailable: 5 }))
          .message,
      ).toBe(
        'Waiting for daemon set "agent" rollout to finish: step 3 of 3 (50% of nodes), zone b: 5 of 7 updated pods are available...\n',
      );
      const past = { ...moving, step: 3, domain: '' };
      expect(daemonSetStatusMessage(make(past)).message).toBe(
        'Waiting for daemon set "agent" rollout to finish: (no zone): 1 out of 7 new pods have been updated...\n',
      );
    }
  });

  it('keeps kubectl’s lines for a record of another template, a complete one, and a spec not yet observed', () => {
    const plain =
      'Waiting for daemon set "agent" rollout to finish: 1 out of 7 new pods have been updated...\n';
    expect(daemonSetStatusMessage(eds({ ...paused, revision: 'oldhash' })).message).toBe(plain);
    expect(daemonSetStatusMessage(ds({ ...halted, revision: 'oldhash' })).message).toBe(plain);
    expect(daemonSetStatusMessage(eds({ ...paused, phase: 'Complete' })).message).toBe(plain);
    expect(daemonSetStatusMessage(eds(halted, { ...counts, observedGeneration: 1 })).message).toBe(
      'Waiting for daemon set spec update to be observed...\n',
    );
  });

  it('ends on a halted rollout with its message, as kubectl on ProgressDeadlineExceeded', () => {
    const expected = `error: daemon set "agent" rollout halted: ${halted.haltMessage}\n`;
    expect(thrown(() => daemonSetStatusMessage(eds(halted)))).toBe(expected);
    expect(thrown(() => daemonSetStatusMessage(ds(halted)))).toBe(expected);
    // Reverting to the stable revision after the halt (onFailure: Revert) is the same halt.
    expect(thrown(() => daemonSetStatusMessage(eds({ ...halted, phase: 'Reverting' })))).toBe(expected);
    // The condition of the observed generation, while the apps/v1 annotation still holds an older record.
    const condition = {
      type: 'Progressing',
      status: 'False',
      reason: 'RolloutHalted',
      message: `DaemonSet "agent" rollout of revision ${HASH} halted: ${halted.haltMessage}`,
    };
    expect(thrown(() => daemonSetStatusMessage(ds(paused, { ...counts, conditions: [condition] })))).toBe(
      expected,
    );
  });
});
