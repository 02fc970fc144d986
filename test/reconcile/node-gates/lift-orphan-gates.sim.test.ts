/**
 * Every node follows a change of the node readiness gates, on the reconcile side: the simulated
 * cluster over HTTP, the reconcile handler on the work queue and the router on the ingress queue
 * (the reconcile harness). A DaemonSet trigger is built by the relay's own functions from the
 * DaemonSet before and after the change and put on the ingress queue; the router fans it out to
 * every node, and the node steps lift the taints of keys no DaemonSet gates any more, or restore a
 * gate made Continuous. Node messages naming the keys are also sent directly, and in one batch
 * with a duplicate of the same node.
 */
import type { CoreV1Event, V1DaemonSet, V1Node, V1Pod, V1Taint } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DaemonSet } from '../../../lib/core/daemon-set.ts';
import { gateChangeBetween } from '../../../lib/core/node-gates/gate-change.ts';
import { DAEMONSETS_READY_CONDITION } from '../../../lib/core/node-gates/gate-decision.ts';
import type { WorkMessage } from '../../../lib/messages/work-message.ts';
import { eventEnvelopeOf } from '../../../lib/queue/event-bus.ts';
import { sendMessages } from '../../../lib/queue/send-messages.ts';
import { watchDetailOf, watchTriggerEvent } from '../../../lib/relay/output/trigger.ts';
import { aDaemonSet, aNode } from '../../support/builders.ts';
import {
  createDaemonSet,
  daemonSetMessage,
  isReady,
  nodeMessage,
  podsOf,
  storedDaemonSet,
  updateDaemonSet,
  waitFor,
} from '../../support/reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from '../../support/reconcile-harness.ts';
import { lambdaContext } from '../../support/reconcile-queues.ts';

const K = 'everynode.dev/not-ready';
const GONE = 'example.com/gone-agent-not-ready';
const SHARED = 'example.com/shared-not-ready';
const gateTaint = (key: string): V1Taint => ({ key, effect: 'NoSchedule' });
/** Another controller's taint (one that keeps no daemon pod away), which every write keeps. */
const dedicated: V1Taint = { key: 'dedicated', value: 'infra', effect: 'PreferNoSchedule' };
const NEVER_READY = 'everynode.dev/sim:unready';

function gating(name: string, key: string, selector: Record<string, string>, mode = 'BootstrapOnly') {
  return aDaemonSet(name, {
    image: NEVER_READY,
    annotations: {
      'everynode.dev/node-readiness': mode,
      'everynode.dev/node-readiness-taint-key': key,
    },
    nodeSelector: selector,
  });
}

/** A `node` message for `name` naming `gateKeys`, as the router's fan-out sends it. */
function namingKeys(name: string, gateKeys: string[]): WorkMessage {
  return { ...(nodeMessage(name) as Extract<WorkMessage, { kind: 'node' }>), gateKeys };
}

describe('gate changes: every node follows', () => {
  let harness: Harness;

  const node = (name: string): V1Node | undefined => harness.sim.nodes.get(name);
  const taintKeys = (name: string) => (node(name)?.spec?.taints ?? []).map((t) => t.key).sort();
  const condition = (name: string) =>
    node(name)?.status?.conditions?.find((c) => c.type === DAEMONSETS_READY_CONDITION);
  const lifted = (name: string) =>
    (harness.sim.store.list('events') as unknown as CoreV1Event[]).filter(
      (e) => e.involvedObject.name === name && e.reason === 'NodeReadinessGateLifted',
    );
  const podOn = (ds: V1DaemonSet, name: string): V1Pod | undefined =>
    podsOf(harness, ds.metadata?.uid ?? '').find(
      (pod) => pod.spec?.nodeName === name && !pod.metadata?.deletionTimestamp,
    );

  async function settle(...messages: WorkMessage[]): Promise<void> {
    await harness.send(...messages);
    await harness.quiet();
    await harness.deps.memory.events.flush();
  }

  /** Puts on the ingress queue the trigger the relay publishes for `event` of `after` (seen as `before` until now). */
  async function relayed(
    event: 'MODIFIED' | 'DELETED',
    before: Readonly<V1DaemonSet>,
    after: Readonly<V1DaemonSet>,
  ): Promise<void> {
    const gateChange = gateChangeBetween(
      before as DaemonSet,
      event === 'DELETED' ? undefined : (after as DaemonSet),
    );
    expect(gateChange).toBeDefined();
    const resourceVersion = after.metadata?.resourceVersion ?? '1';
    const detail = watchDetailOf(
      'daemonsets',
      { type: event, object: after, resourceVersion },
      [],
      'apps/v1',
      {
        gateChange,
      },
    );
    const body = JSON.stringify(eventEnvelopeOf(watchTriggerEvent(detail, new Date())));
    await sendMessages(harness.queues.sqs, harness.queues.urls.ingress, [{ body }]);
    await harness.quiet();
    await harness.deps.memory.events.flush();
  }

  beforeAll(async () => {
    harness = await startReconcileHarness({ nodes: [aNode('n1')] });
  });
  afterAll(async () => harness?.stop());

  it('the only DaemonSet gating a key deleted: a node message naming the key lifts its taint, others kept', async () => {
    const gone = createDaemonSet(harness, gating('gone', GONE, { role: 'gone' }));
    harness.sim.nodes.add('a1', { labels: { role: 'gone' }, taints: [dedicated, gateTaint(GONE)] });
    await settle(daemonSetMessage(gone), nodeMessage('a1'));
    await waitFor('gone placed on a1', () => podOn(gone, 'a1') !== undefined);
    expect(taintKeys('a1')).toEqual(['dedicated', GONE]);
    // Bootstrapping: the taint shows that the node waits, no condition is written yet.
    expect(condition('a1')).toBeUndefined();

    harness.sim.store.delete('apps/daemonsets', 'default', 'gone');
    // Without the key named, the step sees no gate of GONE and leaves its taint: nothing would lift it.
    await settle(nodeMessage('a1'));
    expect(taintKeys('a1')).toEqual(['dedicated', GONE]);

    await settle(namingKeys('a1', [GONE]));
    expect(node('a1')?.spec?.taints).toEqual([dedicated]);
    expect(condition('a1')).toMatchObject({ status: 'True', reason: 'DaemonSetsReady' });
    expect(lifted('a1').map((e) => e.message)).toEqual([
      expect.stringContaining(`Lifted taint ${GONE}:NoSchedule`),
    ]);
    // Lifted as no longer gated: no BootstrapOnly release is marked for it.
    expect(node('a1')?.metadata?.annotations?.['everynode.dev/node-readiness-released']).toBeUndefined();
  });

  it('another DaemonSet still gating the key: the taint is kept', async () => {
    const first = createDaemonSet(harness, gating('shared-a', SHARED, { role: 'shared' }));
    const second = createDaemonSet(harness, gating('shared-b', SHARED, { role: 'shared' }));
    harness.sim.nodes.add('b1', { labels: { role: 'shared' }, taints: [gateTaint(SHARED)] });
    await settle(daemonSetMessage(first), daemonSetMessage(second), nodeMessage('b1'));
    harness.sim.store.delete('apps/daemonsets', 'default', 'shared-a');
    await settle(namingKeys('b1', [SHARED]));
    expect(taintKeys('b1')).toEqual([SHARED]);
    expect(condition('b1')).toBeUndefined();
    expect(lifted('b1')).toEqual([]);
  });

  it('the last gating DaemonSet deleted: its trigger fans out and every tainted node is released', async () => {
    const key = 'example.com/fleet-not-ready';
    const fleet = createDaemonSet(harness, gating('fleet', key, { role: 'fleet' }));
    for (const name of ['f1', 'f2', 'f3'])
      harness.sim.nodes.add(name, { labels: { role: 'fleet' }, taints: [gateTaint(key)] });
    await settle(daemonSetMessage(fleet), nodeMessage('f1'), nodeMessage('f2'), nodeMessage('f3'));
    const before = storedDaemonSet(harness, 'default', 'fleet') as V1DaemonSet;
    harness.sim.store.delete('apps/daemonsets', 'default', 'fleet');
    await relayed('DELETED', before, before);
    for (const name of ['f1', 'f2', 'f3']) {
      expect(taintKeys(name)).toEqual([]);
      expect(condition(name)?.status).toBe('True');
    }
  });

  it('a gate declared BootstrapOnly changes no untainted node; made Continuous, the fan-out taints the node whose gating pod is not ready, only it', async () => {
    // OnDelete: a template change replaces no pod by itself, so c1 keeps its ready pod while c2's
    // replacement, of the new template, never becomes ready (a readiness probe that never passes).
    const agent = createDaemonSet(
      harness,
      aDaemonSet('agent', { nodeSelector: { role: 'agent' }, updateStrategy: { type: 'OnDelete' } }),
    );
    harness.sim.nodes.add('c1', { labels: { role: 'agent' } });
    harness.sim.nodes.add('c2', { labels: { role: 'agent' } });
    await settle(daemonSetMessage(agent));
    await waitFor('agent ready on c1 and c2', () =>
      ['c1', 'c2'].every((name) => {
        const pod = podOn(agent, name);
        return pod !== undefined && isReady(pod);
      }),
    );
    updateDaemonSet(harness, 'default', 'agent', (ds) => {
      const container = ds.spec?.template.spec?.containers[0];
      if (container) container.image = NEVER_READY;
    });
    const replaced = podOn(agent, 'c2')?.metadata?.name ?? '';
    harness.sim.store.delete('pods', 'default', replaced, { gracePeriodSeconds: 0 });
    await settle(daemonSetMessage(agent));
    await waitFor('a running replacement on c2', () => {
      const pod = podOn(agent, 'c2');
      return pod !== undefined && pod.metadata?.name !== replaced && pod.status?.phase === 'Running';
    });
    const notReady = podOn(agent, 'c2')?.metadata?.name;
    expect(taintKeys('c2')).toEqual([]);

    const gateAgent = async (mode: string) => {
      const before = storedDaemonSet(harness, 'default', 'agent') as V1DaemonSet;
      const after = updateDaemonSet(harness, 'default', 'agent', (ds) => {
        ds.metadata = {
          ...ds.metadata,
          annotations: { ...ds.metadata?.annotations, 'everynode.dev/node-readiness': mode },
        };
      });
      await relayed('MODIFIED', before, after);
    };
    // A BootstrapOnly gate declared: the nodes were never tainted, so nothing changes on them.
    await gateAgent('BootstrapOnly');
    expect([taintKeys('c1'), taintKeys('c2')]).toEqual([[], []]);
    await gateAgent('Continuous');
    expect(taintKeys('c2')).toEqual([K]);
    expect(condition('c2')).toMatchObject({ status: 'False', reason: 'WaitingForDaemonSets' });
    expect(condition('c2')?.message).toContain('default/agent');
    // c1's pod (of the old template: any revision serves) is available, and nodes the gate does
    // not want are left as they were: no taint, and no condition written on a node never gated.
    expect(taintKeys('c1')).toEqual([]);
    expect(condition('c1')).toBeUndefined();
    expect(taintKeys('n1')).toEqual([]);
    const c2Pod = podOn(agent, 'c2');
    expect(c2Pod?.metadata?.name).toBe(notReady);
    expect(isReady(c2Pod as V1Pod)).toBe(false);
  });
});

describe('gate keys of a duplicate in the same batch', () => {
  let harness: Harness;
  const key = 'example.com/batch-not-ready';

  beforeAll(async () => {
    harness = await startReconcileHarness({
      nodes: [aNode('d1', { taints: [gateTaint(key)] })],
      pollWork: false,
    });
  });
  afterAll(async () => harness?.stop());

  it('are not lost when the node runs once for both', async () => {
    // The node's own event first, then the fan-out naming the key: one batch, one run of the node.
    const earlier = nodeMessage('d1', new Date(Date.now() - 60_000));
    await harness.send(earlier, namingKeys('d1', [key]));
    const event = await harness.takeRecords(2);
    const response = await harness.handler(event, lambdaContext());
    expect(response.batchItemFailures).toEqual([]);
    expect((harness.sim.nodes.get('d1')?.spec?.taints ?? []).map((t) => t.key)).toEqual([]);
  });
});
