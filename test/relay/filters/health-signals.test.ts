import { describe, expect, it } from 'vitest';
import type { RelayNodeContext } from '../../../lib/relay/cluster-view/node-context.ts';
import { mayBreakHealthRule, rolloutsWatchingNode } from '../../../lib/relay/filters/health-signals.ts';
import { aDaemonSet, aNode, aPod } from '../../support/builders.ts';

const health = { podReadySeconds: 60, maxRestarts: 2 };
function contextWith(phase: string, withHealth = true): RelayNodeContext {
  const ds = aDaemonSet('agent', {
    updateStrategy: {
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: 1, ...(withHealth ? { health } : {}) } as never,
    },
  });
  const rolled = { ...ds, status: { rollout: { revision: 'new', phase, updatedNodes: 1 } } } as never;
  return {
    daemonSet: (uid: string) => (uid === ds.metadata?.uid ? rolled : undefined),
  } as unknown as RelayNodeContext;
}
const pod = (hash: string, ready: boolean) =>
  aPod('p', { owner: aDaemonSet('agent'), ready, labels: { 'controller-revision-hash': hash } });

describe('mayBreakHealthRule', () => {
  it('flags a restart or a lost readiness of the rolled revision’s pod while the rollout runs', () => {
    expect(mayBreakHealthRule(contextWith('Progressing'), 'MODIFIED', ['restarts'], pod('new', true))).toBe(
      true,
    );
    expect(mayBreakHealthRule(contextWith('Paused'), 'MODIFIED', ['ready'], pod('new', false))).toBe(true);
  });

  it('leaves the rest to the status window', () => {
    expect(mayBreakHealthRule(contextWith('Progressing'), 'MODIFIED', ['ready'], pod('new', true))).toBe(
      false,
    );
    expect(mayBreakHealthRule(contextWith('Progressing'), 'MODIFIED', ['restarts'], pod('old', true))).toBe(
      false,
    );
    expect(mayBreakHealthRule(contextWith('Complete'), 'MODIFIED', ['restarts'], pod('new', true))).toBe(
      false,
    );
    expect(mayBreakHealthRule(contextWith('Halted'), 'MODIFIED', ['restarts'], pod('new', true))).toBe(false);
    expect(
      mayBreakHealthRule(contextWith('Progressing', false), 'MODIFIED', ['restarts'], pod('new', true)),
    ).toBe(false);
    expect(mayBreakHealthRule(contextWith('Progressing'), 'ADDED', ['restarts'], pod('new', false))).toBe(
      false,
    );
    expect(mayBreakHealthRule(undefined, 'MODIFIED', ['restarts'], pod('new', true))).toBe(false);
  });
});

describe('rolloutsWatchingNode', () => {
  const ds = aDaemonSet('agent', {
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, health } as never },
  });
  const uid = ds.metadata?.uid ?? '';
  const withRecord = (phase: string) =>
    ({ ...ds, status: { rollout: { revision: 'new', phase, updatedNodes: 1 } } }) as never;
  const hint = (hash: string) => ({
    name: `agent-${hash}`,
    uid: `pod-${hash}`,
    resourceVersion: '1',
    ready: true,
    labels: { 'controller-revision-hash': hash },
    controller: { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid },
  });
  const contextOf = (phase: string, hash: string) =>
    ({
      daemonSet: (id: string) => (id === uid ? withRecord(phase) : undefined),
      podsOn: (name: string) => (name === 'n1' ? [hint(hash)] : []),
    }) as unknown as RelayNodeContext;
  const node = (ready: string) => {
    const n = aNode('n1');
    return { ...n, status: { conditions: [{ type: 'Ready', status: ready }] } };
  };

  it('names the rollouts whose new pod runs on a node that turned NotReady or Unknown', () => {
    const expected = [{ namespace: 'default', name: 'agent', uid }];
    expect(
      rolloutsWatchingNode(contextOf('Progressing', 'new'), 'MODIFIED', ['ready'], node('False')),
    ).toEqual(expected);
    expect(rolloutsWatchingNode(contextOf('Paused', 'new'), 'MODIFIED', ['ready'], node('Unknown'))).toEqual(
      expected,
    );
  });

  it('names none for a node turned Ready, an old pod, a rollout not running, or another change', () => {
    expect(
      rolloutsWatchingNode(contextOf('Progressing', 'new'), 'MODIFIED', ['ready'], node('True')),
    ).toEqual([]);
    expect(
      rolloutsWatchingNode(contextOf('Progressing', 'old'), 'MODIFIED', ['ready'], node('False')),
    ).toEqual([]);
    expect(rolloutsWatchingNode(contextOf('Complete', 'new'), 'MODIFIED', ['ready'], node('False'))).toEqual(
      [],
    );
    expect(
      rolloutsWatchingNode(contextOf('Progressing', 'new'), 'MODIFIED', ['labels'], node('False')),
    ).toEqual([]);
    expect(rolloutsWatchingNode(undefined, 'MODIFIED', ['ready'], node('False'))).toEqual([]);
  });
});
