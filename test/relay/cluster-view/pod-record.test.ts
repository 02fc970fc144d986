import type { V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { daemonPodFor } from '../../../lib/core/daemon-pod.ts';
import type { DaemonSet } from '../../../lib/core/daemon-set.ts';
import { type PodHint, podHintOf } from '../../../lib/messages/pair-hints.ts';
import { podHintFrom, podRecordOf } from '../../../lib/relay/cluster-view/pod-record.ts';
import {
  Interner,
  MAX_INTERNED_STRINGS,
  MAX_INTERNED_VALUES,
} from '../../../lib/relay/cluster-view/shared-values.ts';
import { aDaemonSet, aPod } from '../../support/builders.ts';

const agent = aDaemonSet('agent', { uid: 'ds-agent' }) as V1DaemonSet;
const t = (s: string) => new Date(s);

/** Pods whose hints take every path of a record: bound or pinned, times or not, odd fields. */
const pods: Record<string, V1Pod> = {
  'a running pod with its kubelet conditions': (() => {
    const pod = aPod('agent-n1', { owner: agent, nodeName: 'n1', uid: 'p1', resourceVersion: '42' });
    pod.status = {
      phase: 'Running',
      conditions: [
        { type: 'PodReadyToStartContainers', status: 'True', lastTransitionTime: t('2026-01-01T00:00:01Z') },
        { type: 'Initialized', status: 'True', lastTransitionTime: t('2026-01-01T00:00:00Z') },
        { type: 'Ready', status: 'True', lastTransitionTime: t('2026-01-01T00:00:05.123Z') },
        { type: 'ContainersReady', status: 'True' },
        { type: 'PodScheduled', status: 'True', lastTransitionTime: t('2026-01-01T00:00:00Z') },
      ],
    };
    return pod;
  })(),
  'a pinned pod not bound yet, without status': (() => {
    const pod = daemonPodFor(agent as DaemonSet, 'n2', 'hash1');
    pod.metadata = { ...pod.metadata, uid: 'p2', resourceVersion: '3' };
    return pod;
  })(),
  'a terminating pod with annotations of everynode and of others': aPod('agent-n3', {
    owner: agent,
    nodeName: 'n3',
    uid: 'p3',
    phase: 'Failed',
    deletionTimestamp: t('2026-01-02T03:04:05Z'),
    annotations: { 'everynode.dev/failed-restarts': '2', 'example.com/note': 'not hinted' },
  }),
  'an orphan with empty conditions and no labels': (() => {
    const pod = aPod('orphan', { nodeName: 'n4', uid: 'p4' });
    pod.metadata = { ...pod.metadata, labels: undefined, creationTimestamp: undefined };
    pod.status = { conditions: [] };
    return pod;
  })(),
};

describe('PodRecord', () => {
  it.each(Object.entries(pods))('gives back the hint of %s, the same JSON text', (_, pod) => {
    const hint = podHintOf(pod);
    const record = podRecordOf(hint, pod.spec?.nodeName ?? 'n2', new Interner());
    expect(JSON.stringify(podHintFrom(record))).toBe(JSON.stringify(hint));
    expect(podHintFrom(record)).toEqual(hint);
  });

  it('keeps a time it cannot write back as the same text as that text', () => {
    const hint: PodHint = {
      name: 'p',
      uid: 'u',
      resourceVersion: '1',
      creationTimestamp: '2026-01-01T00:00:00+00:00',
      ready: false,
      conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: '2026-01-01T00:00:00Z' }],
    };
    expect(JSON.stringify(podHintFrom(podRecordOf(hint, 'n1', new Interner())))).toBe(JSON.stringify(hint));
  });

  it("shares what a DaemonSet's pods repeat: label values, controller, condition kinds, the node's name", () => {
    const interner = new Interner();
    const on = (node: string, uid: string) => {
      const pod = structuredClone(pods['a running pod with its kubelet conditions'] as V1Pod);
      pod.metadata = {
        ...pod.metadata,
        uid,
        labels: { ...pod.metadata?.labels, 'everynode.dev/node': node },
      };
      pod.spec = { ...pod.spec, containers: [], nodeName: node };
      // Each its own copy of the node's name, as each decoded pod has.
      return podRecordOf(podHintOf(structuredClone(pod)), `${node}`, interner);
    };
    const [a, b] = [on('n1', 'p1'), on('n2', 'p2')];
    expect(a.controller).toBe(b.controller);
    expect(a.conditionKinds).toBe(b.conditionKinds);
    expect(a.labels).not.toBe(b.labels);
    expect(a.labels?.['everynode.dev/node']).toBe('n1');
    expect(a.nodeName).toBe(a.node);
    expect(Object.isFrozen(a.labels)).toBe(false);
  });
});

describe('Interner', () => {
  it('hands out one copy of equal values, and leaves the caller its own object', () => {
    const interner = new Interner();
    const mine = { apiVersion: 'apps/v1', kind: 'DaemonSet' };
    const shared = interner.value(mine);
    expect(interner.value({ apiVersion: 'apps/v1', kind: 'DaemonSet' })).toBe(shared);
    expect(shared).not.toBe(mine);
    expect(Object.isFrozen(mine)).toBe(false);
    expect(interner.value({ kind: 'DaemonSet', apiVersion: 'apps/v1' })).not.toBe(shared);
    expect(interner.string(['ab', 'c'].join(''))).toBe(interner.string('abc'));
  });

  it('starts over past its bounds, still answering equal values', () => {
    const interner = new Interner();
    const first = interner.value({ n: -1 });
    for (let n = 0; n < MAX_INTERNED_VALUES; n++) interner.value({ n });
    expect(interner.value({ n: -1 })).not.toBe(first);
    expect(interner.value({ n: -1 })).toEqual(first);
    for (let n = 0; n <= MAX_INTERNED_STRINGS; n++) interner.string(`s${n}`);
    expect(interner.string('s1')).toBe('s1');
  });
});
