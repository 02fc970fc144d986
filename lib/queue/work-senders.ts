/**
 * The senders a reconcile step puts work on the queues through (ports: SQS on AWS and locally,
 * in-memory recorders in tests).
 */
import type { WorkMessage } from '../messages/work-message.ts';

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
 * `DelaySeconds` = the wait in whole seconds, rounded down, at most 900; the router forwards it to
 * the work queue once its `notBefore` has passed (waiting out in-process a remaining fraction of a
 * second), re-delaying it when the wait is longer than 15 minutes. A wait longer than a day is cut
 * to a day (`MAX_REQUEUE_WAIT_SECONDS`): the router refuses envelopes due later.
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
