/**
 * A gate change at cluster scale: one DaemonSet trigger fans out to 2,000 nodes (simulated cluster,
 * real client, fauxqs), every node's message on the queue once; and the send lanes keep each FIFO
 * group's messages in order while sending side by side. Prints the routing time:
 * `npx vitest run test/router/router-gate-fan-out-scale.test.ts`.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionFromKubeConfig, loadKubeConfig } from '../../lib/kube/connection/kubeconfig-connection.ts';
import { createKubePort } from '../../lib/kube/operations/create-kube-port.ts';
import type { WorkMessage } from '../../lib/messages/work-message.ts';
import { type LocalQueues, startLocalQueues } from '../../lib/queue/local-queues.ts';
import { queueDepth } from '../../lib/queue/queue-depth.ts';
import { sendMessages } from '../../lib/queue/send-messages.ts';
import { sqsWorkSender } from '../../lib/queue/sqs-senders.ts';
import type { OutgoingWork, WorkSender } from '../../lib/queue/work-senders.ts';
import { routeIngressMessage } from '../../lib/router/router.ts';
import type { RouterDeps } from '../../lib/router/router-deps.ts';
import { sendInLanes, WORK_SEND_LANES } from '../../lib/router/router-send-lanes.ts';
import { type SimCluster, startSimCluster } from '../../lib/sim/start-sim-cluster.ts';
import { CountersInMemory, watch } from './router-harness.ts';

const NODES = 2_000;

describe('a gate change fanned out to 2,000 nodes', () => {
  let sim: SimCluster;
  let queues: LocalQueues;
  let deps: RouterDeps;
  /** The SendMessageBatch-sized calls in flight on the work queue, and their most at once. */
  const calls = { inFlight: 0, most: 0, total: 0 };

  beforeAll(async () => {
    sim = await startSimCluster({ nodes: NODES });
    queues = await startLocalQueues({ visibilityTimeoutSeconds: 30 });
    const real = sqsWorkSender(queues.sqs, queues.urls.work);
    const counting: WorkSender = {
      send: async (work) => {
        calls.inFlight++;
        calls.total++;
        calls.most = Math.max(calls.most, calls.inFlight);
        try {
          await real.send(work);
        } finally {
          calls.inFlight--;
        }
      },
    };
    deps = {
      kube: createKubePort({
        connection: connectionFromKubeConfig(loadKubeConfig({ yaml: sim.kubeconfig })),
        managedKind: 'apps/v1',
        userAgent: 'everynode/router',
      }),
      managedKind: 'apps/v1',
      work: counting,
      ingress: (messages) => sendMessages(queues.sqs, queues.urls.ingress, messages),
      logger: new Logger({ serviceName: 'everynode-router', logLevel: 'SILENT' }),
      counters: new CountersInMemory(),
      clock: () => new Date(),
    };
  }, 60_000);
  afterAll(async () => {
    await queues?.stop();
    await sim?.stop();
  });

  it('puts one node message per node on the work queue, in concurrent lanes', async () => {
    const trigger = watch({
      event: 'DELETED',
      kind: 'DaemonSet',
      apiVersion: 'apps/v1',
      name: 'cni',
      namespace: 'kube-system',
      gateChange: { keys: ['everynode.dev/not-ready'] },
    });
    const started = performance.now();
    const outcome = await routeIngressMessage(trigger, deps);
    const millis = Math.round(performance.now() - started);
    console.log(`gate change routed to ${NODES} nodes in ${millis} ms (${calls.total} lanes)`);
    expect(outcome).toEqual({ type: 'routed', work: NODES + 1, delayed: 0 });
    // Each message's de-duplication id is its target's and cause's: NODES + 1 on the queue are
    // the DaemonSet's message and one per node, none twice.
    expect(await queueDepth(queues.sqs, queues.urls.work)).toEqual({ now: NODES + 1, delayed: 0 });
    expect(calls).toMatchObject({ total: WORK_SEND_LANES, most: WORK_SEND_LANES, inFlight: 0 });
  }, 60_000);

  it('keeps the messages of one FIFO group in one lane, in order', async () => {
    const recorded: OutgoingWork[][] = [];
    const recording: WorkSender = {
      send: async (work) => {
        recorded.push([...work]);
      },
    };
    const message = (node: string, at: number): WorkMessage => ({
      v: 1,
      kind: 'node',
      cause: { type: 'resync', at: new Date(at).toISOString() },
      node: { name: node },
    });
    // 30 groups of three messages each, interleaved.
    const work = [0, 1, 2].flatMap((round) =>
      Array.from({ length: 30 }, (_, i) => ({ message: message(`n${i}`, round * 1000) })),
    );
    await sendInLanes(recording, work, 4);
    expect(recorded).toHaveLength(4);
    expect(recorded.flat()).toHaveLength(work.length);
    for (const lane of recorded) {
      const byNode = new Map<string, string[]>();
      for (const { message: m } of lane) {
        if (m.kind !== 'node') continue;
        byNode.set(m.node.name, [
          ...(byNode.get(m.node.name) ?? []),
          m.cause.type === 'resync' ? m.cause.at : '',
        ]);
      }
      for (const [node, times] of byNode) {
        expect(times, node).toEqual([...times].sort());
        expect(times, node).toHaveLength(3);
      }
    }
    // A batch's worth or less is one call, as before the lanes.
    recorded.length = 0;
    await sendInLanes(recording, work.slice(0, 10), 4);
    expect(recorded).toHaveLength(1);
  });

  it('names the key on the node messages', async () => {
    const answer = await queues.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queues.urls.work, MaxNumberOfMessages: 10 }),
    );
    const bodies = (answer.Messages ?? []).map((m) => JSON.parse(m.Body ?? '{}') as WorkMessage);
    expect(bodies.length).toBeGreaterThan(0);
    for (const body of bodies.filter((b) => b.kind === 'node'))
      expect(body).toMatchObject({ gateKeys: ['everynode.dev/not-ready'] });
  });
});
