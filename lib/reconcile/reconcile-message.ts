/**
 * One work message to its step.
 */

import { PoisonMessageError } from '../messages/poison-message-error.ts';
import type { WorkMessage } from '../messages/work-message.ts';
import { reconcileDaemonSet } from './reconcile-daemon-set.ts';
import type { ReconcileDeps } from './reconcile-deps.ts';
import { reconcileNode } from './reconcile-node.ts';
import { reconcilePair } from './reconcile-pair.ts';
import type { StepReport } from './step-report.ts';

/**
 * Runs the step of `message` (`pair`, `daemonset` or `node`) and resolves to what it did. A message
 * meant for another managed kind than this reconciler's throws a PoisonMessageError: no retry
 * makes it right. `receivedAt` is when the message arrived (ms since the epoch; default now): reads
 * shared with other steps must have begun since.
 */
export async function reconcileMessage(
  deps: ReconcileDeps,
  message: Readonly<WorkMessage>,
  receivedAt = Date.now(),
): Promise<StepReport> {
  if (message.managedKind !== undefined && message.managedKind !== deps.kube.managedKind) {
    throw new PoisonMessageError(
      `message for managed kind ${message.managedKind}, but this reconciler manages ${deps.kube.managedKind}`,
    );
  }
  switch (message.kind) {
    case 'pair':
      return reconcilePair(deps, message, receivedAt);
    case 'daemonset':
      return deps.daemonSetSteps.run(() => reconcileDaemonSet(deps, message, receivedAt));
    case 'node':
      return reconcileNode(deps, message);
  }
}
