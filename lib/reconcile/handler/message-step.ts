/**
 * One work message to its step.
 */

import { PoisonMessageError } from '../../messages/poison-message-error.ts';
import type { WorkMessage } from '../../messages/work-message.ts';
import { reconcileDaemonSet } from '../daemon-set-step/daemon-set-step.ts';
import { releaseFanOut } from '../daemon-set-step/fan-out-pairs.ts';
import type { ReconcileDeps } from '../deps/reconcile-deps.ts';
import { emptyReport, type StepReport } from '../effects/step-report.ts';
import { reconcileNode } from '../node-step/node-step.ts';
import { reconcilePair } from '../pair-step/pair-step.ts';

/**
 * The DaemonSet messages a later step of the same DaemonSet stands in for (see
 * DaemonSetSteps.runUncovered): status refreshes, continuations and waits, and watch events. Not a
 * resync, a replay or an EC2 event: their steps do more than a status refresh's (a resync re-checks
 * the node readiness gates).
 */
function coverable(message: Readonly<WorkMessage>): boolean {
  return message.cause.type === 'watch' || message.cause.type === 'requeue';
}

/**
 * Runs the step of `message` (`pair`, `daemonset` or `node`) and resolves to what it did. A message
 * meant for another managed kind than this reconciler's throws a PoisonMessageError: no retry
 * makes it right. `receivedAt` is when the message arrived (ms since the epoch; default now): reads
 * shared with other steps must have begun since. `sentAt`, when the queue accepted the message (its
 * SentTimestamp), lets a DaemonSet step that began since stand in for this one.
 */
export async function reconcileMessage(
  deps: ReconcileDeps,
  message: Readonly<WorkMessage>,
  receivedAt = Date.now(),
  sentAt?: number,
): Promise<StepReport> {
  if (message.managedKind !== undefined && message.managedKind !== deps.ports.kube.managedKind) {
    throw new PoisonMessageError(
      `message for managed kind ${message.managedKind}, but this reconciler manages ${deps.ports.kube.managedKind}`,
    );
  }
  switch (message.kind) {
    case 'pair': {
      const report = await reconcilePair(deps, message, receivedAt);
      // The pair may have been fanned out: more of its DaemonSet's walk may go now. The pair's own
      // work is done either way; what is not sent is sent by the DaemonSet's next step.
      const released = await releaseFanOut(deps, message.daemonSet.uid).catch((error: unknown) => {
        deps.ports.logger.warn('releasing fanned-out pairs failed; the next DaemonSet step sends them', {
          daemonSetUid: message.daemonSet.uid,
          error: String(error),
        });
        return 0;
      });
      return released === 0 ? report : { ...report, fannedOut: report.fannedOut + released };
    }
    case 'daemonset': {
      const { namespace, name } = message.daemonSet;
      const since = coverable(message) ? sentAt : undefined;
      const report = await deps.memory.daemonSetSteps.runUncovered(
        `${namespace}/${name}`,
        since,
        receivedAt,
        () => reconcileDaemonSet(deps, message, receivedAt),
      );
      return report ?? emptyReport();
    }
    case 'node':
      return reconcileNode(deps, message, reconcilePair);
  }
}
