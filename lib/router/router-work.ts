/**
 * What the router decides to send: work for the FIFO work queue now, or later through the ingress
 * queue's delay (docs/design.md, 11. Delayed work goes through the ingress queue), and how each
 * becomes an SQS message.
 */
import { daemonSetWindowStep, STATUS_WINDOW_SECONDS } from '../messages/daemon-set-window.ts';
import type { DaemonSetMessage, WorkMessage } from '../messages/work-message.ts';
import { delayedIngressMessage } from '../queue/delayed-ingress-message.ts';
import type { OutgoingMessage } from '../queue/send-messages.ts';
import type { OutgoingWork } from '../queue/work-senders.ts';

/** One piece of routed work. */
export type RoutedWork =
  | { readonly to: 'work'; readonly message: WorkMessage; readonly deduplicationId?: string }
  | {
      readonly to: 'delayed';
      readonly message: WorkMessage;
      readonly notBefore: Date;
      readonly deduplicationId?: string;
    };

/** Splits routed work into work-queue work and delayed ingress-queue messages, seen from `now`. */
export function outgoingOf(
  routed: readonly RoutedWork[],
  now: Date,
): { work: OutgoingWork[]; delayed: OutgoingMessage[] } {
  const work: OutgoingWork[] = [];
  const delayed: OutgoingMessage[] = [];
  for (const item of routed) {
    if (item.to === 'work')
      work.push({
        message: item.message,
        ...(item.deduplicationId ? { deduplicationId: item.deduplicationId } : {}),
      });
    else delayed.push(delayedIngressMessage(item.message, item.notBefore, now, item.deduplicationId));
  }
  return { work, delayed };
}

/**
 * A coalesced status refresh of the DaemonSet `message` names
 * (docs/design.md, 12. The status-refresh window; trailing edge): delayed to the end of the
 * {@link STATUS_WINDOW_SECONDS}-long window containing `now`, with the de-duplication id
 * `status:<uid>:<window number>`, so all readiness changes of one window become ONE DaemonSet step,
 * and that step runs after the window closed — it sees every change of the window.
 *
 * Sending the refresh at once and de-duplicating by window would run the step at the first change
 * and drop the later ones of the same window as duplicates: the last pod becoming ready in a burst
 * would not be counted until some later event. Delaying to the window's end keeps the "≤ 1 step per
 * window" bound and loses nothing, for at most one window of added latency.
 */
export function statusRefresh(message: Readonly<DaemonSetMessage>, now: Date): RoutedWork {
  return windowEndStep(message, now, STATUS_WINDOW_SECONDS * 1000, 'status');
}

/**
 * `message` (a DaemonSet step) delayed to the end of its `windowMs` window holding `now` (shifted
 * per DaemonSet: see daemonSetWindow), with the
 * de-duplication id `<kind>:<uid>:<window>`: every step of that kind asked for in one window is one.
 */
export function windowEndStep(
  message: Readonly<DaemonSetMessage>,
  now: Date,
  windowMs: number,
  kind: string,
): RoutedWork {
  const key = message.daemonSet.uid ?? `${message.daemonSet.namespace}/${message.daemonSet.name}`;
  const { endsAt, deduplicationId } = daemonSetWindowStep(kind, key, now.getTime(), windowMs);
  return { to: 'delayed', message, notBefore: new Date(endsAt), deduplicationId };
}
