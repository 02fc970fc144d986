/**
 * The node version the relay stamps on pod and DaemonSet triggers, against the simulated cluster
 * through the real client: the version of its node LIST at first, moved by every node change it
 * forwards (one that can move a placement) and by no other; the router passes it on to the
 * `daemonset` messages it makes, where a DaemonSet step may plan on a node LIST at least that new
 * (docs/design.md, 15. The DaemonSet step).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import type { V1DaemonSet } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAEMONSET_UID_LABEL } from '../../lib/core/daemon-set.ts';
import { createKubePort } from '../../lib/kube/create-kube-port.ts';
import { connectionFromKubeConfig, loadKubeConfig } from '../../lib/kube/kubeconfig-connection.ts';
import { silentLogger } from '../../lib/log/structured-logger.ts';
import { parseRequeueEnvelope, type RequeueEnvelope } from '../../lib/messages/requeue-envelope.ts';
import { LocalEventBus } from '../../lib/queue/event-bus-local.ts';
import { Journal } from '../../lib/queue/journal.ts';
import { type LocalQueues, startLocalQueues } from '../../lib/queue/local-queues.ts';
import { sendMessages } from '../../lib/queue/send-messages.ts';
import { sqsWorkSender } from '../../lib/queue/sqs-senders.ts';
import { startRelay } from '../../lib/relay/relay.ts';
import { FileCheckpointStore } from '../../lib/relay/relay-checkpoint.ts';
import { RecentlySent, routeIngressMessage } from '../../lib/router/router.ts';
import { type SimCluster, startSimCluster } from '../../lib/sim/start-sim-cluster.ts';
import type { KubeObject } from '../../lib/sim/storage/store.ts';
import { CountersInMemory, drain } from '../router/router-harness.ts';
import { aPod } from '../support/builders.ts';
import { eventually, journaledTriggers } from '../support/journal-triggers.ts';
import { newDaemonSet } from '../support/store-test-helpers.ts';

describe('the node version on pod and DaemonSet triggers: relay → router', () => {
  let sim: SimCluster;
  let queues: LocalQueues;
  let dir: string;

  beforeAll(async () => {
    sim = await startSimCluster({ nodes: 2, timing: { timeScale: 0.1 } });
    queues = await startLocalQueues({ visibilityTimeoutSeconds: 1 });
    dir = await mkdtemp(join(tmpdir(), 'everynode-relay-nodes-version-'));
  });
  afterAll(async () => {
    await sim.stop();
    await queues.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const kube = () =>
    createKubePort({
      connection: connectionFromKubeConfig(loadKubeConfig({ yaml: sim.kubeconfig })),
      managedKind: 'apps/v1',
      userAgent: 'everynode/test',
    });
  const nodeNames = () => sim.store.list('nodes').map((n) => n.metadata.name ?? '');
  const versionOf = (name: string) =>
    (sim.store.get('nodes', undefined, name) as KubeObject).metadata.resourceVersion ?? '';

  function createPodOf(ds: V1DaemonSet, name: string, nodeName: string): void {
    const pod = aPod(name, {
      owner: ds,
      nodeName,
      labels: { [DAEMONSET_UID_LABEL]: ds.metadata?.uid ?? '' },
    });
    const { uid: _u, resourceVersion: _r, creationTimestamp: _c, ...metadata } = pod.metadata ?? {};
    const { status: _s, ...creatable } = JSON.parse(JSON.stringify({ ...pod, metadata }));
    sim.store.create('pods', creatable);
  }

  it('stamps the newest forwarded node change, not a change placement ignores, and the router passes it on', async () => {
    const [first, second] = nodeNames();
    const journalPath = join(dir, 'journal.jsonl');
    const relay = await startRelay({
      kube: kube(),
      managedKind: 'apps/v1',
      bus: new LocalEventBus({
        sqs: queues.sqs,
        ingressUrl: queues.urls.ingress,
        journal: new Journal(journalPath),
      }),
      checkpoints: new FileCheckpointStore(join(dir, 'checkpoint.json')),
      logger: silentLogger,
      checkpointEveryMs: 100,
    });
    const triggerOf = async (kind: string, name: string) => {
      const named = async () =>
        (await journaledTriggers(journalPath))
          .map((s) => s.detail)
          .filter((d) => d.kind === kind && d.name === name);
      return (await eventually(named, (seen) => seen.length > 0))[0];
    };
    let stamped: { ds?: string; afterLabel?: string; afterAnnotation?: string } = {};
    let bodies: string[] = [];
    let labelled = '';
    try {
      const ds = sim.store.create('apps/daemonsets', newDaemonSet('agent')) as unknown as V1DaemonSet;
      // A second DaemonSet: a pod's creation is the first change of its DaemonSet's status window.
      const other = sim.store.create('apps/daemonsets', newDaemonSet('other')) as unknown as V1DaemonSet;
      const listed = (await triggerOf('DaemonSet', 'agent'))?.nodesVersion;
      // A label moves placements: forwarded, so it moves the version.
      sim.store.mutate('nodes', undefined, first ?? '', (n) => {
        n.metadata.labels = { ...n.metadata.labels, zone: 'b' };
      });
      labelled = versionOf(first ?? '');
      await triggerOf('Node', first ?? '');
      createPodOf(ds, 'agent-a', first ?? '');
      const afterLabel = (await triggerOf('Pod', 'agent-a'))?.nodesVersion;
      // An annotation moves none: dropped as a trigger, so the version stays.
      sim.store.mutate('nodes', undefined, second ?? '', (n) => {
        n.metadata.annotations = { ...n.metadata.annotations, note: 'x' };
      });
      createPodOf(other, 'other-b', second ?? '');
      const afterAnnotation = (await triggerOf('Pod', 'other-b'))?.nodesVersion;
      stamped = { ...(listed ? { ds: listed } : {}), afterLabel, afterAnnotation } as typeof stamped;
      bodies = (await journaledTriggers(journalPath))
        .filter((s) => s.detail.kind === 'Pod' && s.detail.name === 'agent-a' && s.detail.event === 'ADDED')
        .map((s) => s.body);
    } finally {
      await relay.stop();
    }
    expect(stamped.ds).toBeDefined();
    // The node LIST's version at first, older than the label's change.
    expect(BigInt(stamped.ds ?? '0')).toBeLessThan(BigInt(labelled));
    expect(stamped.afterLabel).toBe(labelled);
    expect(stamped.afterAnnotation).toBe(labelled);

    // The router's status refresh of the pod's event carries the version to the DaemonSet step.
    const delayed: RequeueEnvelope[] = [];
    const deps = {
      kube: kube(),
      managedKind: 'apps/v1' as const,
      work: sqsWorkSender(queues.sqs, queues.urls.work),
      ingress: (messages: { body: string }[]) => {
        for (const m of messages) {
          const parsed = parseRequeueEnvelope(m.body);
          if (parsed.ok) delayed.push(parsed.envelope);
        }
        return sendMessages(queues.sqs, queues.urls.ingress, messages as never);
      },
      logger: new Logger({ serviceName: 'everynode-router', logLevel: 'SILENT' }),
      counters: new CountersInMemory(),
      clock: () => new Date(),
    };
    for (const body of bodies) await routeIngressMessage(body, deps as never, new RecentlySent());
    expect(await drain(queues)).toEqual([]);
    expect(delayed.map((e) => e.message)).toMatchObject([
      { kind: 'daemonset', daemonSet: { name: 'agent' }, nodesVersion: labelled },
    ]);
  });
});
