/**
 * The whole pipeline in one process (`everynode run`, the end-to-end tests and benchmarks): the
 * relay watching the cluster, the local bus journalling every trigger onto the ingress queue, and
 * the router and reconcile Lambda handlers — the very handlers the functions export — invoked by
 * local SQS event sources over real SQS queues (fauxqs), with the same batching, partial batch
 * failures, visibility timeouts and DLQ redrive as the Lambda event source mappings on AWS.
 */
import { join } from 'node:path';
import type { KubePort } from '../kube/kube-port.ts';
import { LocalEventBus } from '../queue/event-bus-local.ts';
import { Journal } from '../queue/journal.ts';
import { type LocalQueues, startLocalQueues } from '../queue/local-queues.ts';
import { type SqsEventSource, type SqsHandler, startSqsEventSource } from '../queue/sqs-event-source.ts';
import { FileCheckpointStore } from '../relay/run/checkpoint.ts';
import type { Relay } from '../relay/run/relay.ts';
import { type LocalComponents, localComponents } from './local-pipeline-components.ts';
import { LocalCounters } from './local-pipeline-metrics.ts';
import type { LocalPipelineOptions } from './local-pipeline-options.ts';
import { type QueueDepths, queueDepths } from './local-pipeline-queues.ts';
import { RelaySupervisor } from './local-pipeline-relay.ts';
import { startupResyncEvent } from './local-pipeline-resync.ts';

/** A running local pipeline. */
export interface LocalPipeline {
  readonly queues: LocalQueues;
  readonly bus: LocalEventBus;
  readonly journalPath: string;
  /** Router and reconcile metrics, relay-published triggers included. */
  readonly counters: LocalCounters;
  /** A client for the CLI's own reads (the live view), with its own user agent. */
  readonly kube: KubePort;
  /** The running relay, if any. */
  readonly relay: Relay | undefined;
  /** Starts the relay (resuming from its checkpoint); a no-op when it runs. */
  startRelay(): Promise<void>;
  /** Stops the relay after publishing what it has and writing its checkpoint. */
  stopRelay(): Promise<void>;
  /** Messages waiting (visible, in flight or delayed) on each queue. */
  queueDepths(): Promise<QueueDepths>;
  /** Stops the relay, the event sources and the queues. */
  stop(): Promise<void>;
}

/** The local Lambda event sources: reconcile on the work queue, router on the ingress queue. */
function startEventSources(
  options: Readonly<LocalPipelineOptions>,
  queues: LocalQueues,
  parts: LocalComponents,
): SqsEventSource[] {
  const source = (name: string, queueUrl: string, handler: SqsHandler, concurrency: number) =>
    startSqsEventSource({
      sqs: queues.sqs,
      queueUrl,
      handler,
      concurrency,
      functionName: `everynode-${name}`,
      onError: (error) =>
        parts.log(name).warn('invocation failed; the batch will be redelivered', { error: String(error) }),
    });
  return [
    source('reconcile', queues.urls.work, parts.reconcileHandler, options.reconcileConcurrency ?? 8),
    source('router', queues.urls.ingress, parts.routerHandler, options.routerConcurrency ?? 8),
  ];
}

/**
 * Starts the queues, the reconcile and router event sources, then the relay, and publishes the
 * start-up resync (`local-pipeline-resync.ts`): every start, with or without a relay checkpoint,
 * since the queues start empty. It resolves once the resync is journalled and on the ingress queue,
 * so whatever reports the pipeline running (`everynode run`'s state file and hints) comes after it;
 * a run killed before the router took it leaves the resync to the next start.
 */
export async function startLocalPipeline(options: Readonly<LocalPipelineOptions>): Promise<LocalPipeline> {
  const queues = await startLocalQueues({
    maxReceiveCount: options.maxReceiveCount ?? 5,
    visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? 30,
  });
  const counters = new LocalCounters();
  const journalPath = options.journalPath ?? join(options.stateDir, 'journal.jsonl');
  const bus = new LocalEventBus({
    sqs: queues.sqs,
    ingressUrl: queues.urls.ingress,
    journal: new Journal(journalPath),
  });
  let sources: SqsEventSource[] = [];
  let supervisor: RelaySupervisor | undefined;
  try {
    const parts = localComponents(options, queues, counters);
    sources = startEventSources(options, queues, parts);
    const relay = new RelaySupervisor(
      {
        kube: parts.relayKube,
        managedKind: options.managedKind,
        bus,
        checkpoints: new FileCheckpointStore(join(options.stateDir, 'relay-checkpoint.json')),
        logger: parts.log('relay'),
        checkpointEveryMs: 500,
      },
      parts.log('relay'),
    );
    supervisor = relay;
    const pipeline: LocalPipeline = {
      queues,
      bus,
      journalPath,
      counters,
      kube: parts.viewKube,
      get relay() {
        return relay.relay;
      },
      startRelay: () => relay.start(),
      stopRelay: () => relay.stop(),
      queueDepths: () => queueDepths(queues),
      stop: async () => {
        await relay.stop().catch(() => undefined);
        await Promise.all(sources.map((s) => s.stop()));
        await queues.stop();
      },
    };
    if (options.startRelay !== false) await pipeline.startRelay();
    // After the relay's first LISTs: any change after them comes as a watch event, and the resync's
    // steps read the cluster afresh for everything before (a restart of the relay alone, later,
    // needs none: the queues and what they delay survive it).
    await bus.publish([startupResyncEvent(new Date())]);
    return pipeline;
  } catch (error) {
    await supervisor?.stop().catch(() => undefined);
    await Promise.all(sources.map((s) => s.stop()));
    await queues.stop();
    throw error;
  }
}
