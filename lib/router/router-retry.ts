/**
 * A trigger the router could not route because the API server is unavailable (docs/design.md,
 * 13. Failures: retries, backoff and the DLQ): the few triggers whose routing reads the API —
 * a resync (the DaemonSets), a pod without a controller (its namespace's DaemonSets), a gate
 * change (the nodes), an EC2 event (the node) — are sent back to the ingress queue with the
 * transient backoff, counting their failures in a row in the event itself, and the record counts as
 * routed. Left to SQS, they would come back every visibility timeout and reach the ingress DLQ after
 * `maxReceiveCount` receives (15 minutes on AWS, 2.5 locally), however right they were.
 */
import { classifyFailure, transientBackoffSeconds } from '../kube/errors/transient-failure.ts';
import { isRequeueBody } from '../messages/requeue-envelope.ts';
import { type RouterDeps, routerCounterNames } from './router-deps.ts';

/**
 * The top-level field of a trigger's event JSON that counts the transient routing failures in a
 * row it was sent back for. EventBridge never sets it; the trigger parser ignores it.
 */
export const ROUTING_FAILURES_FIELD = 'everynode-routing-failures';

/** SQS's longest message delay. */
const MAX_DELAY_SECONDS = 900;

/** The failures in a row `event` was sent back for (0 for a trigger as published). */
function failuresOf(event: Readonly<Record<string, unknown>>): number {
  const failures = event[ROUTING_FAILURES_FIELD];
  return typeof failures === 'number' && Number.isInteger(failures) && failures > 0 ? failures : 0;
}

/**
 * Sends `body` (an ingress message whose routing threw `error`) back to the ingress queue after the
 * transient backoff of its failures in a row, or its Retry-After, when `error` is transient and
 * `body` is a trigger; rethrows `error` otherwise (the record is then retried by SQS, or ends in the
 * ingress DLQ), and when the send fails.
 */
export async function sendBackAfterTransientFailure(
  deps: Pick<RouterDeps, 'ingress' | 'logger' | 'counters'>,
  body: string,
  error: unknown,
): Promise<void> {
  const failure = classifyFailure(error);
  if (failure.type !== 'transient') throw error;
  let event: Record<string, unknown>;
  try {
    event = JSON.parse(body) as Record<string, unknown>;
  } catch {
    throw error;
  }
  // A requeue envelope that could not be forwarded failed on SQS: it is left to SQS's redelivery.
  if (typeof event !== 'object' || event === null || Array.isArray(event) || isRequeueBody(event))
    throw error;
  const failures = failuresOf(event);
  const wait = failure.retryAfterSeconds ?? transientBackoffSeconds(failures);
  const delaySeconds = Math.min(MAX_DELAY_SECONDS, Math.ceil(wait));
  const again = JSON.stringify({ ...event, [ROUTING_FAILURES_FIELD]: failures + 1 });
  await deps.ingress([{ body: again, delaySeconds }]);
  deps.counters.count(routerCounterNames.retriesDelayed);
  deps.logger.warn('routing failed while the API server is unavailable; the trigger comes back later', {
    error: String(error),
    failures: failures + 1,
    delaySeconds,
    eventId: typeof event.id === 'string' ? event.id : undefined,
  });
}
