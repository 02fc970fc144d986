/**
 * The node-join benchmark's reconciler, in a worker thread of its own (the simulated cluster keeps
 * the main thread): joins `joins` nodes one at a time through the API, takes each join's `node`
 * message from the way it comes on AWS — the relay's watch event (with its hints) turned into work
 * by the router's rule — and runs the `node` step for it, timing every pair from the start of the
 * step to its pod's creation. The relay runs in a worker of its own (`node-join-relay-worker.ts`),
 * so only the reconciler's requests are counted here. Posts the results.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { Logger } from '@aws-lambda-powertools/logger';
import { processRequestCounter } from '../../lib/kube/requests/request-counter.ts';
import type { NodeMessage } from '../../lib/messages/work-message.ts';
import { startLocalQueues } from '../../lib/queue/local-queues.ts';
import type { ReconcileDeps } from '../../lib/reconcile/deps/reconcile-deps.ts';
import { reconcileNode } from '../../lib/reconcile/node-step/node-step.ts';
import { reconcilePair } from '../../lib/reconcile/pair-step/pair-step.ts';
import { buildReconcileDeps } from '../../lib/reconcile/setup/deps-for-config.ts';
import { startCpuProfile } from './cpu-profile.ts';

/** What the worker is started with. */
export interface NodeJoinTask {
  readonly kubeconfigPath: string;
  readonly url: string;
  readonly joins: number;
  /** Milliseconds from one join's start to the next one's. */
  readonly intervalMs: number;
  readonly clientQps: number;
  /** Where the relay's worker posts the node messages. */
  readonly nodeMessages: MessagePort;
  /** Writes a V8 CPU profile of this thread during the joins to this file. */
  readonly cpuProfile?: string;
}

/** One join's figures. */
export interface JoinResult {
  /** Milliseconds from the start of the step until its reads (DaemonSets, node, pods) answered, if any. */
  readonly readsMs: number;
  /** Reads the step made (GET and LIST). */
  readonly reads: number;
  /** Whether the node message carried the relay's hints. */
  readonly hinted: boolean;
  /** Milliseconds from the node's creation to its node message. */
  readonly relayMs: number;
  readonly pairs: number;
  readonly requests: number;
  readonly events: number;
  readonly latencies: number[];
}

const task = workerData as NodeJoinTask;
const queues = await startLocalQueues();
const base = buildReconcileDeps({
  config: {
    managedKind: 'apps/v1',
    cluster: { type: 'kubeconfig', path: task.kubeconfigPath },
    apiQps: task.clientQps,
    apiBurst: task.clientQps,
    queues: { work: queues.urls.work, workDlq: queues.urls.workDlq, ingress: queues.urls.ingress },
    sqsEndpoint: queues.endpoint,
  },
  logger: new Logger({ logLevel: 'SILENT' }),
  sqs: queues.sqs,
});
let started = 0;
let readsDone = 0;
let latencies: number[] = [];
const timed =
  <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
  async (...args: A): Promise<R> => {
    const result = await call(...args);
    readsDone = Math.max(readsDone, performance.now() - started);
    return result;
  };
const deps: ReconcileDeps = {
  ...base,
  ports: {
    ...base.ports,
    kube: {
      ...base.ports.kube,
      listDaemonSets: timed(base.ports.kube.listDaemonSets),
      getNode: timed(base.ports.kube.getNode),
      listPods: timed(base.ports.kube.listPods),
      createPod: async (pod) => {
        const created = await base.ports.kube.createPod(pod);
        latencies.push(performance.now() - started);
        return created;
      },
    },
  },
};

/** Creates the node through the API, as a cloud provider's node registration would. */
async function join(name: string): Promise<void> {
  const body = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux' } },
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  };
  const answer = await fetch(`${task.url}/api/v1/nodes`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'User-Agent': 'everynode-bench' },
    body: JSON.stringify(body),
  });
  if (!answer.ok) throw new Error(`creating node ${name}: HTTP ${answer.status}`);
}

/** Node messages by node name, as the relay's worker posts them. */
const nodeMessages = new Map<string, (message: NodeMessage) => void>();
task.nodeMessages.on('message', (message: NodeMessage) => nodeMessages.get(message.node.name)?.(message));

parentPort?.postMessage({ type: 'ready' });
const profile = await startCpuProfile(task.cpuProfile);
const results: JoinResult[] = [];
for (let i = 1; i <= task.joins; i++) {
  const name = `joined-${i}`;
  const due = performance.now() + task.intervalMs;
  const routed = new Promise<NodeMessage>((resolve) => nodeMessages.set(name, resolve));
  const joinedAt = performance.now();
  await join(name);
  const message = await routed;
  const relayMs = performance.now() - joinedAt;
  const requestsBefore = processRequestCounter.total();
  const readsBefore = readCount();
  const eventsBefore = deps.memory.events.counts.written;
  latencies = [];
  readsDone = 0;
  started = performance.now();
  const report = await reconcileNode(deps, message, reconcilePair);
  await deps.memory.events.flush();
  results.push({
    readsMs: readsDone,
    reads: readCount() - readsBefore,
    hinted: message.hints !== undefined,
    relayMs,
    pairs: report.created,
    requests: processRequestCounter.total() - requestsBefore,
    events: deps.memory.events.counts.written - eventsBefore,
    latencies,
  });
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
}
await profile.stop();
task.nodeMessages.close();
await queues.stop();
parentPort?.postMessage({ type: 'done', results });

function readCount(): number {
  const counts = processRequestCounter.snapshot();
  return counts.get + counts.list;
}
