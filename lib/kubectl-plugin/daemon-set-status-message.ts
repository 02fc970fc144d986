/**
 * What `kubectl rollout status` says about a DaemonSet (kubectl polymorphichelpers
 * rollout_status.go, DaemonSetStatusViewer.Status), for either managed kind: both carry the same
 * spec.updateStrategy and status fields, so kubectl's reading applies word for word. A DaemonSet
 * with a safe rollout (docs/design.md, 30. Rollouts that stop themselves) also gets the step and
 * domain its rollout holds in its waiting lines, and a halted rollout is an error, as kubectl's
 * Deployment viewer makes ProgressDeadlineExceeded one. While daemon pods wait unschedulable on
 * their nodes, a waiting line also says how many and why, before kubectl's closing `...`.
 */
import { PODS_UNSCHEDULABLE_CONDITION } from '../core/unschedulable-condition.ts';
import { KubectlError } from './kubectl-error.ts';
import type { KubeObject } from './plugin-api.ts';
import { rolloutHaltMessage, rolloutPosition } from './safe-rollout-status.ts';

/** One look at a DaemonSet: the line to print and whether the rollout is done. */
export interface RolloutStatusMessage {
  readonly message: string;
  readonly done: boolean;
}

interface DaemonSetFields {
  metadata?: { name?: string; generation?: number };
  spec?: { updateStrategy?: { type?: string } };
  status?: {
    observedGeneration?: number;
    updatedNumberScheduled?: number;
    desiredNumberScheduled?: number;
    numberAvailable?: number;
    conditions?: { type?: string; status?: string; message?: string }[];
  };
}

/**
 * ` (1 pending: Insufficient memory on node-a)` while the DaemonSet's PodsUnschedulable condition
 * holds (core/unschedulable-condition.ts), else ''.
 */
function pendingNote(status: NonNullable<DaemonSetFields['status']>): string {
  const held = status.conditions?.find((c) => c.type === PODS_UNSCHEDULABLE_CONDITION && c.status === 'True');
  return held?.message ? ` (${held.message})` : '';
}

/**
 * The status line of `object` (ending in a newline) and whether its rollout is done; throws
 * kubectl's error when its update strategy is not RollingUpdate (OnDelete has no rollout to follow),
 * and `daemon set "NAME" rollout halted: …` once the status of its generation says its safe rollout
 * halted.
 */
export function daemonSetStatusMessage(object: Readonly<KubeObject>): RolloutStatusMessage {
  const ds = object as DaemonSetFields;
  if (ds.spec?.updateStrategy?.type !== 'RollingUpdate') {
    throw new KubectlError('rollout status is only available for RollingUpdate strategy type');
  }
  const name = JSON.stringify(ds.metadata?.name ?? '');
  const generation = ds.metadata?.generation ?? 0;
  const status = ds.status ?? {};
  if (generation > (status.observedGeneration ?? 0)) {
    return { message: 'Waiting for daemon set spec update to be observed...\n', done: false };
  }
  const halt = rolloutHaltMessage(object);
  if (halt !== undefined) throw new KubectlError(`daemon set ${name} rollout halted: ${halt}`);
  const position = rolloutPosition(object);
  const where = position === '' ? '' : `${position}: `;
  const desired = status.desiredNumberScheduled ?? 0;
  const updated = status.updatedNumberScheduled ?? 0;
  const pending = pendingNote(status);
  if (updated < desired) {
    return {
      message: `Waiting for daemon set ${name} rollout to finish: ${where}${updated} out of ${desired} new pods have been updated${pending}...\n`,
      done: false,
    };
  }
  const available = status.numberAvailable ?? 0;
  if (available < desired) {
    return {
      message: `Waiting for daemon set ${name} rollout to finish: ${where}${available} of ${desired} updated pods are available${pending}...\n`,
      done: false,
    };
  }
  return { message: `daemon set ${name} successfully rolled out\n`, done: true };
}
