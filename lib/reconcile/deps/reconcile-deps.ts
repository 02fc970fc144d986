/**
 * What every reconcile step runs over: the same orchestration code runs in a Lambda function, in
 * `everynode run` and in tests; only the deps differ. A process builds them once
 * (`setup/deps-for-config.ts`, `setup/deps-for-connection.ts`). They come in three groups, so a
 * step's signature says what it may touch: the ports it talks to the world through, the memory the
 * process keeps between messages, and the clock.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { KubePort, ListResult } from '../../kube/kube-port.ts';
import type { StructuredLogger } from '../../log/structured-logger.ts';
import type { DeadLetterSender, RequeueSender, WorkSender } from '../../queue/work-senders.ts';
import type { DaemonSetSteps } from '../memory/daemon-set-steps.ts';
import type { EventRecorder } from '../memory/event-recorder.ts';
import type { Expectations } from '../memory/expectations.ts';
import type { FanOutFeeds, FanOutState } from '../memory/fan-out-feed.ts';
import type { KeptNodeLists } from '../memory/kept-node-lists.ts';
import type { KeptPodLists } from '../memory/kept-pod-lists.ts';
import type { KeptRevisions } from '../memory/kept-revisions.ts';
import type { ObjectCache } from '../memory/object-cache.ts';
import type { SharedRead } from '../memory/shared-read.ts';

/** The outside world: the API server (with its request budget), the queues and the logs. */
export interface ReconcilePorts {
  readonly kube: KubePort;
  readonly workQueue: WorkSender;
  readonly requeue: RequeueSender;
  readonly deadLetter: DeadLetterSender;
  readonly logger: StructuredLogger;
}

/**
 * What the process keeps between messages, for as long as it lives (a Lambda container: hours).
 * Speed only: every write is guarded by the API server, so a stale entry costs a retry, never a
 * wrong pod.
 */
export interface ProcessMemory {
  /** The objects this process has read (see ObjectCache). */
  readonly objects: ObjectCache;
  /** What this process expects of its own work on each pair (fan-outs, replacements, LISTs planned from). */
  readonly expectations: Expectations;
  /** What the DaemonSet steps left to release as fanned-out pairs are acted on (see FanOutFeeds). */
  readonly fanOutFeeds: FanOutFeeds<FanOutState>;
  /** The LIST of every node, shared by the DaemonSet steps that run together (see SharedRead). */
  readonly sharedNodeList: SharedRead<ListResult<V1Node>>;
  /** One `daemonset` step at a time, and which messages a completed one covers (see DaemonSetSteps). */
  readonly daemonSetSteps: DaemonSetSteps;
  /** When the DaemonSet steps plan on a kept node LIST, and the recounts that follow (see KeptNodeLists). */
  readonly keptNodes: KeptNodeLists;
  /** Each DaemonSet's pods as its latest step read them, caught up by a watch by the next (see KeptPodLists). */
  readonly keptPods: KeptPodLists;
  /** Each DaemonSet's revisions as its latest step listed them, while its spec stands (see KeptRevisions). */
  readonly keptRevisions: KeptRevisions;
  /** Kubernetes Events, with the spam filter's per-process memory (see EventRecorder). */
  readonly events: EventRecorder;
}

/** Settings of the reconcile function the steps read (setup/reconcile-config.ts); each has a default. */
export interface ReconcileSettings {
  /** How long an in-place resize may stay Deferred before its pod is recreated (core/in-place/resize-fallback.ts). */
  readonly resizeDeferredSeconds?: number;
}

/** Everything a reconcile step needs from the outside world. */
export interface ReconcileDeps {
  readonly ports: ReconcilePorts;
  readonly memory: ProcessMemory;
  /** The time plans are made at (pod availability, backoff, hint freshness). */
  readonly clock: () => Date;
  readonly settings?: ReconcileSettings;
}

/** The part of the deps a helper may touch: the ports named `P`, the memory named `M`, and the clock. */
export interface DepsPart<P extends keyof ReconcilePorts, M extends keyof ProcessMemory> {
  readonly ports: Pick<ReconcilePorts, P>;
  readonly memory: Pick<ProcessMemory, M>;
  readonly clock: () => Date;
}
