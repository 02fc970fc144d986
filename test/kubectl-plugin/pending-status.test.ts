/**
 * `rollout status` while daemon pods wait unschedulable on their nodes: kubectl's waiting line, with
 * the count and reasons of the DaemonSet's PodsUnschedulable condition before its closing `...`.
 */
import { describe, expect, it } from 'vitest';
import { daemonSetStatusMessage } from '../../lib/kubectl-plugin/daemon-set-status-message.ts';
import type { KubeObject } from '../../lib/kubectl-plugin/plugin-api.ts';

const pending = {
  type: 'PodsUnschedulable',
  status: 'True',
  reason: 'Unschedulable',
  message: '1 pending: Insufficient memory on node-a',
};

function daemonSet(apiVersion: string, status: Record<string, unknown>): KubeObject {
  return {
    apiVersion,
    metadata: { name: 'agent', generation: 1 },
    spec: { updateStrategy: { type: 'RollingUpdate' } },
    status: { observedGeneration: 1, desiredNumberScheduled: 3, ...status },
  };
}

describe.each(['everynode.dev/v1', 'apps/v1'])('rollout status of %s with pods pending', (apiVersion) => {
  it('counts them in the waiting line', () => {
    const available = daemonSet(apiVersion, {
      updatedNumberScheduled: 3,
      numberAvailable: 2,
      conditions: [{ type: 'Available', status: 'False' }, pending],
    });
    expect(daemonSetStatusMessage(available)).toEqual({
      message:
        'Waiting for daemon set "agent" rollout to finish: 2 of 3 updated pods are available (1 pending: Insufficient memory on node-a)...\n',
      done: false,
    });
    const updating = daemonSet(apiVersion, {
      updatedNumberScheduled: 1,
      numberAvailable: 2,
      conditions: [pending],
    });
    expect(daemonSetStatusMessage(updating).message).toBe(
      'Waiting for daemon set "agent" rollout to finish: 1 out of 3 new pods have been updated (1 pending: Insufficient memory on node-a)...\n',
    );
  });

  it("keeps kubectl's line when the condition is gone or does not hold", () => {
    const none = daemonSet(apiVersion, { updatedNumberScheduled: 3, numberAvailable: 2 });
    const notHeld = daemonSet(apiVersion, {
      updatedNumberScheduled: 3,
      numberAvailable: 2,
      conditions: [{ ...pending, status: 'False' }],
    });
    for (const object of [none, notHeld])
      expect(daemonSetStatusMessage(object).message).toBe(
        'Waiting for daemon set "agent" rollout to finish: 2 of 3 updated pods are available...\n',
      );
  });
});
