import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectionFromKubeConfig,
  loadKubeConfig,
} from '../../../lib/kube/connection/kubeconfig-connection.ts';
import { createKubePort } from '../../../lib/kube/operations/create-kube-port.ts';
import { LocalEventBus } from '../../../lib/queue/event-bus-local.ts';
import { Journal, readJournal } from '../../../lib/queue/journal.ts';
import { type LocalQueues, startLocalQueues } from '../../../lib/queue/local-queues.ts';
import { FileCheckpointStore } from '../../../lib/relay/run/checkpoint.ts';
import { createRelayHandler } from '../../../lib/relay/run/handler.ts';
import { relayDeadlineMillis } from '../../../lib/relay/run/run.ts';
import { relayConfigFromEnvironment } from '../../../lib/relay/setup/relay-config.ts';
import { type SimCluster, startSimCluster } from '../../../lib/sim/start-sim-cluster.ts';

describe('how long a relay run may watch', () => {
  it.each([
    { name: 'a 6-minute timeout leaves 5 min 45 s', remaining: 360_000, watch: 345_000 },
    { name: 'the 15-minute Lambda maximum', remaining: 900_000, watch: 885_000 },
    { name: 'no time left: no watching', remaining: 10_000, watch: 0 },
  ])('$name', ({ remaining, watch }) => {
    expect(relayDeadlineMillis(remaining)).toBe(watch);
  });
});

describe('relay configuration', () => {
  const base = {
    EVERYNODE_EVENT_BUS_NAME: 'everynode',
    EVERYNODE_RELAY_CHECKPOINT_PARAMETER: '/everynode/relay',
  };
  it.each([
    {
      name: 'EKS',
      env: {
        ...base,
        EVERYNODE_CLUSTER_ENDPOINT: 'https://x.eks',
        EVERYNODE_CLUSTER_NAME: 'c',
        EVERYNODE_CLUSTER_CA: 'Q0E=',
        AWS_REGION: 'eu-west-1',
        EVERYNODE_RELAY_RUN_SECONDS: '120',
      },
      cluster: { type: 'eks', name: 'c', endpoint: 'https://x.eks', ca: 'Q0E=', region: 'eu-west-1' },
      runSeconds: 120,
    },
    {
      name: 'a local kubeconfig',
      env: { ...base, KUBECONFIG: '/k' },
      cluster: { type: 'kubeconfig', path: '/k' },
      runSeconds: 300,
    },
  ])('$name', ({ env, cluster, runSeconds }) => {
    expect(relayConfigFromEnvironment(env)).toMatchObject({
      cluster,
      runSeconds,
      eventBusName: 'everynode',
      managedKind: 'everynode.dev/v1',
    });
  });
  it.each([
    { name: 'no bus', env: { EVERYNODE_RELAY_CHECKPOINT_PARAMETER: 'p' }, error: /EVERYNODE_EVENT_BUS_NAME/ },
    {
      name: 'an endpoint without CA',
      env: { ...base, EVERYNODE_CLUSTER_ENDPOINT: 'https://x', AWS_REGION: 'r', EVERYNODE_CLUSTER_NAME: 'c' },
      error: /EVERYNODE_CLUSTER_CA/,
    },
    {
      name: 'a run longer than Lambda allows',
      env: { ...base, EVERYNODE_RELAY_RUN_SECONDS: '3600' },
      error: /EVERYNODE_RELAY_RUN_SECONDS/,
    },
  ])('rejects $name', ({ env, error }) => {
    expect(() => relayConfigFromEnvironment(env)).toThrow(error);
  });
});

describe('the relay handler', () => {
  let sim: SimCluster;
  let queues: LocalQueues;
  beforeAll(async () => {
    sim = await startSimCluster({ nodes: 3 });
    queues = await startLocalQueues();
  });
  afterAll(async () => {
    await queues.stop();
    await sim.stop();
  });

  it('watches until its deadline, invokes its successor, publishes, checkpoints and reports', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'everynode-relay-run-'));
    const journal = join(dir, 'journal.jsonl');
    const checkpoints = new FileCheckpointStore(join(dir, 'checkpoint.json'));
    const invoked: Array<{ arn: string; event: unknown }> = [];
    const handler = createRelayHandler({
      relay: {
        kube: createKubePort({
          connection: connectionFromKubeConfig(loadKubeConfig({ yaml: sim.kubeconfig })),
          managedKind: 'apps/v1',
        }),
        managedKind: 'apps/v1',
        bus: new LocalEventBus({
          sqs: queues.sqs,
          ingressUrl: queues.urls.ingress,
          journal: new Journal(journal),
        }),
        checkpoints,
      },
      logger: new Logger({ serviceName: 'everynode-relay', logLevel: 'SILENT' }),
      runSeconds: 10,
      invokeFunction: async (arn, event) => {
        invoked.push({ arn, event });
      },
    });
    // A timeout 16.5 s away leaves 1.5 s of watching; a 10 s period invokes the successor at once.
    const arn = 'arn:aws:lambda:eu-west-1:111122223333:function:relay';
    const context = {
      getRemainingTimeInMillis: () => 16_500,
      functionName: 'relay',
      invokedFunctionArn: arn,
      awsRequestId: 'r-1',
    } as unknown as Context;
    setTimeout(() => sim.nodes.add('joined-1'), 300);
    const report = await handler({}, context);
    expect(report).toMatchObject({ runId: 'r-1', trigger: 'schedule', outcome: 'deadline' });
    expect(invoked[0]).toEqual({ arn, event: { everynode: 'relay-successor', predecessor: 'r-1' } });
    expect(report.watchedMillis).toBeGreaterThanOrEqual(1_400);
    expect(report.watchedMillis).toBeLessThan(5_000);
    expect(report.published).toBeGreaterThanOrEqual(2);
    const types: string[] = [];
    for await (const entry of readJournal(journal))
      types.push((entry.trigger as { 'detail-type': string })['detail-type']);
    expect(types).toContain('Everynode Resync');
    expect(types).toContain('Kubernetes Watch Event');
    expect((await checkpoints.load())?.resourceVersions.nodes).toMatch(/^\d+$/);
  });
});
