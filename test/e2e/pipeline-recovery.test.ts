import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyDemoDaemonSets } from '../../lib/cli/demo-daemon-sets.ts';
import { writePipelineState } from '../../lib/cli/pipeline-state.ts';
import { runRedriveCommand } from '../../lib/cli/redrive-command.ts';
import { localReplayName, replayJournal } from '../../lib/local/local-pipeline-replay.ts';
import { sendMessages } from '../../lib/queue/send-messages.ts';
import { type PipelineWorld, startPipelineWorld } from '../support/pipeline-harness.ts';

const on = (world: PipelineWorld, node: string) => world.placement().filter((p) => p.endsWith(`@${node}`));
const both = (node: string) => [`kiada/demo@${node}`, `kube-system/fluentd-elasticsearch@${node}`];

describe('the local pipeline loses no event and replays safely', () => {
  let world: PipelineWorld;

  beforeAll(async () => {
    world = await startPipelineWorld({ managedKind: 'apps/v1', secured: true });
    applyDemoDaemonSets(world.sim.store, 'apps/v1');
    await world.until('the seed DaemonSets are placed', () => world.placement().length === 7);
  });
  afterAll(async () => world.stop());

  it('catches up on changes made while the relay was down', async () => {
    // No delayed step left over from the placement: a status refresh or a recount lists every node,
    // and would place joined-1 with the relay down.
    await world.quiet(30_000, { delayed: true });
    await world.pipeline.stopRelay();
    world.sim.nodes.add('joined-1', { labels: { 'kubernetes.io/os': 'linux' } });
    world.sim.nodes.taint('master-1', { key: 'dedicated', value: 'infra', effect: 'NoExecute' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(on(world, 'joined-1')).toEqual([]);
    await world.pipeline.startRelay();
    await world.until('joined-1 runs both daemon pods', () => on(world, 'joined-1').length === 2);
    await world.until('master-1 runs nothing', () => on(world, 'master-1').length === 0);
    expect(on(world, 'joined-1')).toEqual(both('joined-1'));
  });

  it('relists after a forced 410 and misses nothing', async () => {
    const relists = world.pipeline.relay?.stats.relists ?? 0;
    // The relayed resources' watches; the orphan watches (one per DaemonSet) reconnect as usual.
    for (const key of ['nodes', 'pods', 'apps/daemonsets']) world.sim.faults.forceWatchGone(1, key);
    world.sim.faults.dropWatches();
    world.sim.nodes.add('joined-2', { labels: { 'kubernetes.io/os': 'linux' } });
    // Which watch meets the 410 first is a race: the node's pods may appear before the relist.
    await world.until(
      'the relay relisted and joined-2 runs both daemon pods',
      () => (world.pipeline.relay?.stats.relists ?? 0) > relists && on(world, 'joined-2').length === 2,
    );
  });

  it('changes nothing when the whole journal is replayed, twice', async () => {
    await world.quiet();
    const before = world
      .pods()
      .map((p) => `${p.uid}@${p.node}`)
      .sort();
    const created = world.pipeline.counters.get('PodsCreated');
    const deleted = world.pipeline.counters.get('PodsDeleted');
    for (const round of [1, 2]) {
      const result = await replayJournal({
        journalPath: world.pipeline.journalPath,
        replayName: `${localReplayName(new Date())}-${round}`,
        deliver: (envelopes) => world.pipeline.bus.deliver(envelopes),
      });
      expect(result.replayed).toBeGreaterThan(10);
      await world.quiet();
    }
    expect(
      world
        .pods()
        .map((p) => `${p.uid}@${p.node}`)
        .sort(),
    ).toEqual(before);
    expect(world.pipeline.counters.get('PodsCreated')).toBe(created);
    expect(world.pipeline.counters.get('PodsDeleted')).toBe(deleted);
  });
});

describe('the local pipeline dead-letters and redrives', () => {
  let world: PipelineWorld;

  beforeAll(async () => {
    world = await startPipelineWorld({
      managedKind: 'apps/v1',
      secured: true,
      maxReceiveCount: 2,
      visibilityTimeoutSeconds: 1,
    });
    applyDemoDaemonSets(world.sim.store, 'apps/v1');
    await world.until('the seed DaemonSets are placed', () => world.placement().length === 7);
    await world.quiet();
  });
  afterAll(async () => world.stop());

  async function deadLettered(): Promise<Array<{ body: string; reason: string | undefined }>> {
    const answer = await world.pipeline.queues.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: world.pipeline.queues.urls.workDlq,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 0,
        MessageAttributeNames: ['All'],
      }),
    );
    return (answer.Messages ?? []).map((m) => ({
      body: m.Body ?? '',
      reason: m.MessageAttributes?.reason?.StringValue,
    }));
  }

  it('sends a poison message to the DLQ at once, with its reason', async () => {
    await sendMessages(world.pipeline.queues.sqs, world.pipeline.queues.urls.work, [
      { body: '{"v":1,"kind":"teleport"}', groupId: 'poison-test', deduplicationId: 'poison-1' },
    ]);
    await world.until(
      'the poison message is dead-lettered',
      async () => (await world.pipeline.queueDepths()).workDlq === 1,
      10_000,
    );
    const [message] = await deadLettered();
    expect(message?.body).toBe('{"v":1,"kind":"teleport"}');
    expect(message?.reason).toMatch(/unknown message kind/);
  });

  it('brings a failed message back with everynode redrive', async () => {
    // A 401 is retryable but not an outage: after its requeues it is dead-lettered with its reason
    // (a 5xx is an outage, requeued for as long as it lasts, and never reaches the DLQ).
    world.sim.faults.setErrorRate('create', { status: 401, rate: 1 });
    world.sim.nodes.add('joined-3', { labels: { 'kubernetes.io/os': 'linux' } });
    await world.until(
      'the failed work is dead-lettered',
      async () => (await world.pipeline.queueDepths()).workDlq > 1,
      45_000,
    );
    // Every requeue of the failing work spent (each dead-lettered with its reason) before the fault ends.
    await world.quiet(30_000, { delayed: true });
    world.sim.faults.setErrorRate('create', { status: 401, rate: 0 });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(on(world, 'joined-3')).toEqual([]);

    await writePipelineState(world.stateDir, {
      pid: process.pid,
      startedAt: new Date().toISOString(),
      sqsEndpoint: world.pipeline.queues.endpoint,
      queues: world.pipeline.queues.urls,
      journalPath: world.pipeline.journalPath,
      kubeconfigPath: world.kubeconfigPath,
      managedKind: 'apps/v1',
    });
    const out: string[] = [];
    const code = await runRedriveCommand(['--state-dir', world.stateDir], {
      stdout: (text) => out.push(text),
      stderr: (text) => out.push(text),
      isTTY: false,
    });
    expect(code).toBe(0);
    expect(out.join('')).toMatch(/moved \d+ message\(s\)/);
    await world.until('joined-3 runs both daemon pods', () => on(world, 'joined-3').length === 2);
    expect(on(world, 'joined-3')).toEqual(both('joined-3'));
  }, 90_000);
});
