/**
 * The ports every reconcile step runs over: the same orchestration code runs in a Lambda function,
 * in `everynode run` and in tests; only the deps differ. A handler builds them once per process
 * (see `buildReconcileDeps`).
 */
import type { V1Node } from '@kubernetes/client-node';
import type { KubePort, ListResult } from '../../kube/kube-port.ts';
import type { StructuredLogger } from '../../log/structured-logger.ts';
import type { DeadLetterSender, RequeueSender, WorkSender } from '../../queue/work-senders.ts';
import type { FanOutState } from '../daemon-set-step/fan-out-message.ts';
import type { StepLimiter } from '../memory/daemon-set-steps.ts';
import type { EventRecorder } from '../memory/event-recorder.ts';
import type { Expectations } from '../memory/expectations.ts';
import type { FanOutFeeds } from '../memory/fan-out-feed.ts';
import type { NodeListReuse } from '../memory/kept-node-lists.ts';
import type { KeptPodLists } from '../memory/kept-pod-lists.ts';
import type { KeptRevisions } from '../memory/kept-revisions.ts';
import type { ObjectCache } from '../memory/object-cache.ts';
import type { SharedRead } from '../memory/shared-read.ts';

/** Everything a reconcile step needs from the outside world. */
export interface ReconcileDeps {
  readonly kube: KubePort;
  readonly workQueue: WorkSender;
  readonly requeue: RequeueSender;
  readonly deadLetter: DeadLetterSender;
  readonly events: EventRecorder;
  /** The time plans are made at (pod availability, backoff, hint freshness). */
  readonly clock: () => Date;
  readonly logger: StructuredLogger;
  /** The objects this process has read (speed only: every write is guarded, so a stale entry costs a retry). */
  readonly objects: ObjectCache;
  /** What this process expects of its own work on each pair (fan-outs, replacements, LISTs planned from). */
  readonly expectations: Expectations;
  /** What the DaemonSet steps left to release as fanned-out pairs are acted on (see FanOutFeeds). */
  readonly fanOutFeeds: FanOutFeeds<FanOutState>;
  /** The LIST of every node, shared by the DaemonSet steps that run together (see SharedRead). */
  readonly nodeList: SharedRead<ListResult<V1Node>>;
  /** One `daemonset` step at a time in the process (see StepLimiter). */
  readonly daemonSetSteps: StepLimiter;
  /** When the DaemonSet steps plan on a kept node LIST, and the recounts that follow (see NodeListReuse). */
  readonly nodeListReuse: NodeListReuse;
  /** Each DaemonSet's pods as its latest step read them, caught up by a watch by the next (see KeptPodLists). */
  readonly keptPods: KeptPodLists;
  /** Each DaemonSet's revisions as its latest step listed them, while its spec stands (see KeptRevisions). */
  readonly keptRevisions: KeptRevisions;
}
