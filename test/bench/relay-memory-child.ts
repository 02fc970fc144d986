/**
 * The relay-memory benchmark's relay, in a process of its own as it is a Lambda function of its own
 * on AWS, and bundled by esbuild as its Lambda is (relay-memory.ts bundles it): started as
 * `node --expose-gc <bundle>` with an IPC channel, argument the cluster's kubeconfig. Runs
 * `startRelay` with a bus that only counts what it is given and a checkpoint store that keeps
 * nothing, and posts a {@link RelayMemorySample} every 500 ms; on `{ type: 'gc' }` it collects
 * garbage and posts one last sample, marked `afterGc` — measured before it writes a heap snapshot to
 * the path the message names, if any (what the relay holds, by constructor, in Chrome's DevTools).
 */
import { writeHeapSnapshot } from 'node:v8';
import { Logger } from '@aws-lambda-powertools/logger';
import { connectionFromKubeConfig, loadKubeConfig } from '../../lib/kube/connection/kubeconfig-connection.ts';
import { createKubePort } from '../../lib/kube/operations/create-kube-port.ts';
import { RequestBudget } from '../../lib/kube/requests/request-budget.ts';
import { type Relay, startRelay } from '../../lib/relay/run/relay.ts';
import type { RelayStats } from '../../lib/relay/watches/relay-stats.ts';

/** One report of the child: its memory, and how far the relay got. */
export interface RelayMemorySample {
  readonly type: 'sample';
  /** `baseline`: after imports and a GC, before the relay starts; `afterGc`: after the forced GC. */
  readonly phase: 'baseline' | 'running' | 'afterGc';
  /** Whether `startRelay` resolved: the first LISTs done and every watch started. */
  readonly started: boolean;
  readonly memory: NodeJS.MemoryUsage;
  readonly stats: Readonly<RelayStats>;
  /** Triggers the relay counts as published. */
  readonly published: number;
  /** Events the counting bus was given. */
  readonly busEvents: number;
  /** CPU time the child has used, user and system, in microseconds (`process.cpuUsage`). */
  readonly cpuMicros: number;
}

const kubeconfigPath = process.argv[2];
if (kubeconfigPath === undefined || process.send === undefined)
  throw new Error('relay-memory-child: start with an IPC channel and the kubeconfig path as argument');
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('relay-memory-child: start node with --expose-gc');

let relay: Relay | undefined;
let busEvents = 0;

function send(phase: RelayMemorySample['phase'], memory = process.memoryUsage()): void {
  const sample: RelayMemorySample = {
    type: 'sample',
    phase,
    started: relay !== undefined,
    memory,
    stats: { ...(relay?.stats ?? { forwarded: 0, dropped: 0, coalesced: 0, relists: 0 }) },
    published: relay?.published ?? 0,
    busEvents,
    cpuMicros: (({ user, system }) => user + system)(process.cpuUsage()),
  };
  process.send?.(sample);
}

gc();
send('baseline');
const timer = setInterval(() => send('running'), 500);
process.on('message', (message: { type: string; heapSnapshot?: string }) => {
  if (message.type === 'gc') {
    // The last sample: writing a snapshot takes memory of its own, which is not the relay's.
    clearInterval(timer);
    gc();
    const memory = process.memoryUsage();
    if (message.heapSnapshot !== undefined) writeHeapSnapshot(message.heapSnapshot);
    send('afterGc', memory);
  }
});
process.on('disconnect', () => {
  clearInterval(timer);
  void relay?.stop().finally(() => process.exit(0));
});

const kube = createKubePort({
  connection: connectionFromKubeConfig(loadKubeConfig({ path: kubeconfigPath })),
  managedKind: 'apps/v1',
  userAgent: 'everynode/relay',
  budget: new RequestBudget({ requestsPerSecond: 1000, burst: 1000 }),
});
relay = await startRelay({
  kube,
  managedKind: 'apps/v1',
  bus: {
    publish: async (events) => {
      busEvents += events.length;
    },
  },
  checkpoints: { load: async () => undefined, save: async () => undefined },
  logger: new Logger({ logLevel: 'SILENT' }),
});
send('running');
