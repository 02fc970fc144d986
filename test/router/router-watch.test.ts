/**
 * How the router routes a pod without a controller: one the relay's orphan watch found for a
 * managed DaemonSet becomes that DaemonSet's pair on the pod's node, naming the pod; any other
 * becomes a step of every managed DaemonSet of its namespace. And the signals that may break a
 * safe rollout: its step at the end of the short rollout window.
 */
import { describe, expect, it } from 'vitest';
import { daemonSetWindowStep } from '../../lib/messages/daemon-set-window.ts';
import type { MessageCause } from '../../lib/messages/message-cause.ts';
import type { WatchEventDetail } from '../../lib/messages/trigger.ts';
import { routeWatch } from '../../lib/router/router-watch.ts';
import { aDaemonSet } from '../support/builders.ts';

const cause: MessageCause = {
  type: 'watch',
  kind: 'Pod',
  event: 'ADDED',
  resourceVersion: '7',
};

const orphan: WatchEventDetail = {
  v: 1,
  event: 'ADDED',
  kind: 'Pod',
  apiVersion: 'v1',
  name: 'hand-made',
  namespace: 'agents',
  uid: 'pod-uid',
  resourceVersion: '7',
  nodeName: 'worker-1',
};

/** Router deps whose API server holds the DaemonSets `names` in every namespace. */
function deps(names: readonly string[]) {
  const kube = {
    listDaemonSets: async () => ({ items: names.map((name) => aDaemonSet(name)), resourceVersion: '9' }),
  };
  return {
    managedKind: 'apps/v1' as const,
    kube: kube as never,
    clock: () => new Date('2026-12-04T00:00:00Z'),
  };
}

describe('routeWatch: pods without a controller', () => {
  it('sends the pair of the DaemonSet that may adopt it, naming the pod, and reads nothing', async () => {
    const detail = { ...orphan, adoptableBy: { name: 'agent', uid: 'ds-uid' } };
    const routing = await routeWatch(deps([]), detail, undefined, cause);
    expect(routing).toEqual({
      work: [
        {
          to: 'work',
          message: {
            v: 1,
            cause,
            managedKind: 'apps/v1',
            kind: 'pair',
            daemonSet: { namespace: 'agents', name: 'agent', uid: 'ds-uid' },
            node: { name: 'worker-1' },
            orphan: { name: 'hand-made', uid: 'pod-uid' },
          },
        },
      ],
    });
  });

  it("sends that DaemonSet's step when the pod targets no node yet", async () => {
    const { nodeName: _, ...unbound } = orphan;
    const detail = { ...unbound, adoptableBy: { name: 'agent', uid: 'ds-uid' } };
    const routing = await routeWatch(deps([]), detail, undefined, cause);
    expect(routing).toMatchObject({
      work: [
        {
          to: 'work',
          message: { kind: 'daemonset', daemonSet: { namespace: 'agents', name: 'agent', uid: 'ds-uid' } },
        },
      ],
    });
  });

  it('sends every managed DaemonSet of the namespace a step for any other pod without a controller', async () => {
    const routing = await routeWatch(deps(['a', 'b']), orphan, undefined, cause);
    const work = 'work' in routing ? routing.work : [];
    expect(
      work.map((w) => (w.message.kind === 'daemonset' ? w.message.daemonSet.name : w.message.kind)),
    ).toEqual(['a', 'b']);
  });
});

describe('routeWatch: signals that may break a safe rollout', () => {
  const base = { v: 1, cause, managedKind: 'apps/v1' };
  const daemonSet = { namespace: 'agents', name: 'agent', uid: 'ds-uid' };
  const now = new Date('2026-12-04T00:00:00Z');
  const window = daemonSetWindowStep('rollout', 'ds-uid', now.getTime(), 250);
  /** The rollout's step at the end of its 250 ms window, listing afresh (no node or pod version). */
  const rolloutStep = {
    to: 'delayed',
    message: { ...base, kind: 'daemonset', daemonSet },
    notBefore: new Date(window.endsAt),
    deduplicationId: window.deduplicationId,
  };

  it("sends a node's step and, for a node turned NotReady, each named rollout's step in its window", async () => {
    const detail: WatchEventDetail = {
      v: 1,
      event: 'MODIFIED',
      kind: 'Node',
      apiVersion: 'v1',
      name: 'worker-1',
      uid: 'node-uid',
      resourceVersion: '42',
      changes: ['ready'],
      rollouts: [daemonSet],
    };
    expect(await routeWatch(deps([]), detail, ['ready'], cause)).toEqual({
      work: [{ to: 'work', message: { ...base, kind: 'node', node: { name: 'worker-1' } } }, rolloutStep],
    });
  });

  it("sends a health signal's DaemonSet step in the same window, whatever versions the trigger had", async () => {
    const detail: WatchEventDetail = {
      v: 1,
      event: 'MODIFIED',
      kind: 'Pod',
      apiVersion: 'v1',
      name: 'agent-x',
      namespace: 'agents',
      uid: 'pod-uid',
      resourceVersion: '43',
      nodeName: 'worker-1',
      controller: { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: 'ds-uid' },
      changes: ['restarts'],
      nodesVersion: '40',
      healthSignal: true,
    };
    const routing = await routeWatch(deps([]), detail, ['restarts'], cause);
    expect('work' in routing && routing.work).toContainEqual(rolloutStep);
  });
});
