/**
 * Delayed work (docs/design.md, 11. Delayed work goes through the ingress queue). SQS FIFO queues
 * cannot delay a single message, so a requeue travels through the ingress (standard) queue with
 * `DelaySeconds` (at most 900), wrapped in this envelope; the router forwards `message` to the work
 * queue once `notBefore` has passed and otherwise sends the envelope back to the ingress queue with
 * the remaining delay, which chains waits longer than 15 minutes.
 */
import * as z from 'zod';
import { daemonSetWindowStep, STATUS_WINDOW_SECONDS } from './daemon-set-window.ts';
import { type ParseResult, parseJsonObject } from './parse-json-object.ts';
import { type WorkMessage, workMessageSchema } from './work-message.ts';

/** The longest delay SQS applies to one message (DelaySeconds). */
export const MAX_SQS_DELAY_SECONDS = 900;

/** A work message to deliver to the work queue no earlier than `notBefore`. */
export const requeueEnvelopeSchema = z.object({
  v: z.literal(1),
  kind: z.literal('requeue'),
  notBefore: z.iso.datetime({ offset: true }),
  message: workMessageSchema,
  /**
   * The FIFO de-duplication id to forward `message` with instead of its own: requeues of one
   * DaemonSet step due in the same status window share the router's status-refresh id, so they
   * collapse with each other and with the refresh into one step.
   */
  deduplicationId: z.string().min(1).max(128).optional(),
});

/** A requeue envelope. */
export type RequeueEnvelope = z.infer<typeof requeueEnvelopeSchema>;

/** The ingress-queue body of an envelope delivering `message` at `notBefore` (with `deduplicationId`, when given). */
export function formatRequeueEnvelope(
  message: Readonly<WorkMessage>,
  notBefore: Date,
  deduplicationId?: string,
): string {
  const envelope = { v: 1, kind: 'requeue', notBefore: notBefore.toISOString(), message };
  return JSON.stringify(
    requeueEnvelopeSchema.parse(deduplicationId ? { ...envelope, deduplicationId } : envelope),
  );
}

/**
 * When a DaemonSet step asked to run again `afterSeconds` from `now` should run, and its FIFO
 * de-duplication id: at the end of the {@link STATUS_WINDOW_SECONDS} window containing the wanted
 * time, with the router's status-refresh id of that window (`status:<uid>:<window>`). So every
 * reason to run the step again in one window — burst continuation, terminating pods, readiness
 * changes — becomes one step, which bounds the DaemonSet steps (and status writes) of a large
 * rollout to one per window.
 */
export function daemonSetRequeueSlot(
  uid: string,
  afterSeconds: number,
  now: Date,
): { afterSeconds: number; deduplicationId: string } {
  const wanted = now.getTime() + Math.max(0, afterSeconds) * 1000;
  return requeueSlot('status', uid, wanted, STATUS_WINDOW_SECONDS, now);
}

/**
 * The window, in seconds, of the DaemonSet steps a safe rollout's health needs (docs/design.md, 30):
 * its timers (a health deadline passing, a health window closing, a timed pause ending) and the
 * relay's health signals (a pod of the rolled revision restarting or losing readiness, its node
 * turning NotReady). Short, since a halt decided a status window late lets the rolling update go on
 * meanwhile; one id per window (`rollout:<uid>:<window>`), since the canaries of a step break
 * together, and one step for each of fifty signals would queue steps of every node for seconds.
 */
export const ROLLOUT_WINDOW_SECONDS = 0.25;

/**
 * When a DaemonSet step whose safe rollout asked to look again `afterSeconds` from `now` runs, and
 * its FIFO de-duplication id `rollout:<uid>:<window>`: at the end of the
 * {@link ROLLOUT_WINDOW_SECONDS} window holding the wanted time.
 */
export function rolloutTimerSlot(
  uid: string,
  afterSeconds: number,
  now: Date,
): { afterSeconds: number; deduplicationId: string } {
  const wanted = now.getTime() + Math.max(0, afterSeconds) * 1000;
  return requeueSlot('rollout', uid, wanted, ROLLOUT_WINDOW_SECONDS, now);
}

/**
 * The window, in seconds, within which a DaemonSet step planned on a kept node LIST is followed by
 * one that lists every node again (docs/design.md, 15. The DaemonSet step: "A node LIST is reused
 * while no node changed"): the longest a quiet DaemonSet's status can stay counted from an old LIST.
 */
export const NODE_RECOUNT_WINDOW_SECONDS = 10;

/**
 * When the recount after a step planned on a kept node LIST at `now` runs, and its FIFO
 * de-duplication id: at the end of the DaemonSet's {@link NODE_RECOUNT_WINDOW_SECONDS} window
 * containing `now` (see daemonSetWindow), with the id `recount:<uid>:<window>`, so all such steps
 * of a window share one recount, which runs after every one of them.
 */
export function nodeRecountSlot(uid: string, now: Date): { afterSeconds: number; deduplicationId: string } {
  return requeueSlot('recount', uid, now.getTime(), NODE_RECOUNT_WINDOW_SECONDS, now);
}

/** The window step of `kind` wanted at `wantedMs` (see daemonSetWindowStep), as a delay from `now`. */
function requeueSlot(
  kind: string,
  uid: string,
  wantedMs: number,
  windowSeconds: number,
  now: Date,
): { afterSeconds: number; deduplicationId: string } {
  const step = daemonSetWindowStep(kind, uid, wantedMs, windowSeconds * 1000);
  return { afterSeconds: (step.endsAt - now.getTime()) / 1000, deduplicationId: step.deduplicationId };
}

/** True when the ingress JSON object `json` is a requeue envelope rather than an EventBridge event. */
export function isRequeueBody(json: Readonly<Record<string, unknown>>): boolean {
  return json.kind === 'requeue';
}

/** The envelope the parsed ingress body `json` holds, or why it holds none. */
export function requeueEnvelopeOf(
  json: Readonly<Record<string, unknown>>,
): ParseResult<'envelope', RequeueEnvelope> {
  const parsed = requeueEnvelopeSchema.safeParse(json);
  if (!parsed.success) {
    return {
      ok: false,
      reason: `invalid requeue envelope: ${z.prettifyError(parsed.error).replaceAll('\n', ' ')}`,
    };
  }
  return { ok: true, envelope: parsed.data };
}

/** The envelope in the ingress body `body`, or why it is none (not a JSON object, or not an envelope). */
export function parseRequeueEnvelope(body: string): ParseResult<'envelope', RequeueEnvelope> {
  const json = parseJsonObject(body);
  return json.ok ? requeueEnvelopeOf(json.value) : json;
}

/**
 * The longest wait the router holds in-process before forwarding an envelope that came early: SQS
 * delays are whole seconds, so an envelope is delayed by its wait rounded DOWN and the router waits
 * out the fraction. Rounding up instead delivers every delayed step up to a second late — a status
 * refresh due at its window's end, on average half a second after it.
 */
export const MAX_ROUTER_HOLD_MS = 1000;

/**
 * The seconds SQS should hold an envelope due at `notBefore` when sent at `now`: the remaining wait,
 * rounded down (the router holds the rest, under {@link MAX_ROUTER_HOLD_MS}), capped at
 * {@link MAX_SQS_DELAY_SECONDS}; 0 when it is due within a second.
 */
export function delaySecondsUntil(notBefore: Date, now: Date): number {
  const remaining = Math.floor((notBefore.getTime() - now.getTime()) / 1000);
  return Math.min(MAX_SQS_DELAY_SECONDS, Math.max(0, remaining));
}

/**
 * The longest wait a requeue may ask for: one day. The reconciler's own waits are far shorter (the
 * failed-pod backoff stops at 15 minutes, upstream's failedPodsBackoff maximum), but minReadySeconds,
 * a termination grace period or a 429's Retry-After can name longer ones: those are cut to a day,
 * after which the step looks again and asks for the rest. An envelope due later than this was made
 * by something else (a bug, a forged or hand-made message): the router refuses it rather than send
 * it round the ingress queue every 15 minutes until then.
 */
export const MAX_REQUEUE_WAIT_SECONDS = 86_400;

/**
 * When a requeue asked at `now` to wait `afterSeconds` is due: `now` plus the wait, cut to
 * 0..{@link MAX_REQUEUE_WAIT_SECONDS} (a wait that is not a number counts as none).
 */
export function requeueNotBefore(afterSeconds: number, now: Date): Date {
  const wait = Number.isNaN(afterSeconds) ? 0 : Math.min(MAX_REQUEUE_WAIT_SECONDS, Math.max(0, afterSeconds));
  return new Date(now.getTime() + wait * 1000);
}

/**
 * True when an envelope due at `notBefore` is due more than {@link MAX_REQUEUE_WAIT_SECONDS} after
 * `now`, which no requeue asks for. A requeue made at the cap first comes back after SQS's longest
 * delay (900 s), so the router sees at most the cap less 15 minutes: only a clock skew of more than
 * that between the two functions could make a capped requeue look too far off.
 */
export function isBeyondRequeueCap(notBefore: Date, now: Date): boolean {
  return notBefore.getTime() - now.getTime() > MAX_REQUEUE_WAIT_SECONDS * 1000;
}

/** The retryable failures in a row `message` was sent back for (0 for a message that never failed). */
export function failuresOf(message: Readonly<WorkMessage>): number {
  return message.cause.type === 'requeue' ? (message.cause.failures ?? 0) : 0;
}

/**
 * `message` sent again for `reason`: its cause becomes a requeue requested at `now` (so it is new
 * work to FIFO de-duplication) with the attempt counted on from a previous requeue — and, when
 * `failed`, its failures in a row too (any other requeue follows a step that succeeded, so it
 * starts them again) — and its hints are dropped (they describe the state that made the wait
 * necessary).
 */
export function withRequeueCause(
  message: Readonly<WorkMessage>,
  reason: string,
  now: Date,
  failed = false,
): WorkMessage {
  const attempt = message.cause.type === 'requeue' ? (message.cause.attempt ?? 0) + 1 : 0;
  const cause = {
    type: 'requeue' as const,
    reason: reason.slice(0, 256),
    attempt,
    ...(failed ? { failures: failuresOf(message) + 1 } : {}),
    requestedAt: now.toISOString(),
  };
  if (message.kind === 'daemonset') return { ...message, cause };
  const { hints: _hints, ...rest } = message;
  return { ...rest, cause };
}
