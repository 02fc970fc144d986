import type { CoreV1Event } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { DaemonSet } from '../../../lib/core/daemon-set.ts';
import { dns1123SubdomainErrors } from '../../../lib/core/object-names.ts';
import type { KubePort } from '../../../lib/kube/kube-port.ts';
import { silentLogger } from '../../../lib/log/structured-logger.ts';
import { daemonSetEvent, EventReason, EventRecorder } from '../../../lib/reconcile/memory/event-recorder.ts';
import { aDaemonSet, aNode } from '../../support/builders.ts';

function recorder(lingerMs: number) {
  const written: CoreV1Event[] = [];
  const kube = {
    createEvent: async (event: CoreV1Event) => {
      written.push(event);
      return event;
    },
  } as unknown as KubePort;
  const events = new EventRecorder({ kube, clock: () => new Date(), logger: silentLogger, lingerMs });
  return { events, written };
}

const ds = aDaemonSet('agent') as DaemonSet;
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('EventRecorder', () => {
  it('lets events linger so the writes of a step go first, and writes them all at flush', async () => {
    const { events, written } = recorder(10_000);
    events.normal(ds, EventReason.SuccessfulCreate, 'Created pod: a');
    events.normal(ds, EventReason.SuccessfulCreate, 'Created pod: b');
    await settle(20);
    expect(written).toEqual([]);
    await events.flush();
    expect(written.map((e) => e.message)).toEqual(['Created pod: a', 'Created pod: b']);
    expect(events.counts.written).toBe(2);
  });

  it('writes lingering events without a flush once the linger ends', async () => {
    const { events, written } = recorder(5);
    events.warning(ds, EventReason.FailedCreate, 'Error creating: quota');
    await settle(50);
    expect(written.map((e) => e.reason)).toEqual(['FailedCreate']);
    events.normal(ds, EventReason.SuccessfulDelete, 'Deleted pod: a');
    await settle(50);
    expect(written.map((e) => e.reason)).toEqual(['FailedCreate', 'SuccessfulDelete']);
  });
});

describe('daemonSetEvent', () => {
  it('names the events of a 253-character DaemonSet validly and distinctly', () => {
    const long = aDaemonSet(`${'a'.repeat(240)}.${'b'.repeat(12)}`) as DaemonSet;
    const now = new Date('2026-01-01T00:00:00Z');
    const names = [1, 2].map((i) => daemonSetEvent(long, 'Normal', 'r', `m${i}`, now).metadata?.name ?? '');
    expect(names.map(dns1123SubdomainErrors)).toEqual([[], []]);
    expect(names[0]).not.toBe(names[1]);
  });
});

describe('EventRecorder.onNode', () => {
  const node = aNode('n1');

  it('records an event about the Node as controllers do: the node uid, the Event in default', async () => {
    const { events, written } = recorder(0);
    expect(events.onNode(node, 'Normal', EventReason.NodeReadinessGateLifted, 'Lifted taint k')).toBe(true);
    await events.flush();
    expect(written[0]).toMatchObject({
      metadata: { namespace: 'default' },
      involvedObject: { apiVersion: 'v1', kind: 'Node', name: 'n1', namespace: '', uid: 'uid-node-n1' },
      type: 'Normal',
      reason: 'NodeReadinessGateLifted',
      source: { component: 'everynode' },
    });
  });

  it('records a state reported once again only when its value changes, or after forget', async () => {
    const { events, written } = recorder(0);
    const warn = (value: string) =>
      events.onNode(node, 'Warning', EventReason.NodeReadinessGateTimeout, `gated since ${value}`, {
        scope: 'timeout/n1/k',
        value,
      });
    expect([warn('a'), warn('a'), warn('b'), warn('b')]).toEqual([true, false, true, false]);
    events.forget('timeout/n1/k');
    expect(warn('b')).toBe(true);
    await events.flush();
    expect(written.map((e) => e.message)).toEqual(['gated since a', 'gated since b', 'gated since b']);
  });
});
