/**
 * The ports every reconcile step runs over (pipeline design decision 1): the same orchestration
 * code runs in a Lambda function, in `everynode run` and in tests; only the deps differ. A handler
 * builds them once per process (see `buildPipelineDeps`).
 */
import type { KubePort } from '../kube/kube-port.ts';
import type { WorkMessage } from '../messages/work-message.ts';
import type { DaemonSetCache } from './daemon-set-cache.ts';
import type { EventRecorder } from './event-recorder.ts';

/** A work message to send to the FIFO work queue. */
export interface OutgoingWork {
  readonly message: WorkMessage;
  /**
   * The FIFO de-duplication id; default `messageDeduplicationId(message)`. The DaemonSet step sets
   * one derived from the intended action, so a fan-out repeated within five minutes is dropped.
   */
  readonly deduplicationId?: string;
}

/** Sends work messages to the FIFO work queue (group id from `messageGroupId`). */
export interface WorkSender {
  /** Resolves when the queue accepted every message. */
  send(work: readonly OutgoingWork[]): Promise<void>;
}

/**
 * Sends a work message back to the pipeline after a delay. SQS FIFO queues cannot delay one
 * message, so the message goes to the ingress (standard) queue wrapped in a requeue envelope with
 * `DelaySeconds = min(afterSeconds, 900)`; the router forwards it to the work queue once its
 * `notBefore` has passed, re-delaying it when the wait is longer than 15 minutes.
 */
export interface RequeueSender {
  /**
   * Resolves when the ingress queue accepted the envelope. `deduplicationId` replaces the message's
   * own FIFO de-duplication id when the router forwards it (see `daemonSetRequeueSlot`).
   */
  requeue(message: WorkMessage, afterSeconds: number, deduplicationId?: string): Promise<void>;
}

/** Puts a message that can never be processed on the work DLQ, with the reason why. */
export interface DeadLetterSender {
  /** Resolves when the DLQ accepted `body`; `groupId` keeps the original FIFO group when known. */
  deadLetter(body: string, reason: string, groupId?: string): Promise<void>;
}

/** Structured logging, as Powertools Logger offers it (and a console-backed logger locally). */
export interface PipelineLogger {
  debug(message: string, ...extra: Record<string, unknown>[]): void;
  info(message: string, ...extra: Record<string, unknown>[]): void;
  warn(message: string, ...extra: Record<string, unknown>[]): void;
  error(message: string, ...extra: Record<string, unknown>[]): void;
}

/** Everything a reconcile step needs from the outside world. */
export interface PipelineDeps {
  readonly kube: KubePort;
  readonly workQueue: WorkSender;
  readonly requeue: RequeueSender;
  readonly deadLetter: DeadLetterSender;
  readonly events: EventRecorder;
  /** The time plans are made at (pod availability, backoff, hint freshness). */
  readonly clock: () => Date;
  readonly logger: PipelineLogger;
  /** Per-process caches (speed only: every write is guarded, so a stale entry costs a retry). */
  readonly cache: DaemonSetCache;
}

/** A logger that drops everything, for callers that do not log. */
export const silentLogger: PipelineLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
