import { describe, expect, it } from 'vitest';
import type { RelayNodeContext } from '../../../lib/relay/cluster-view/node-context.ts';
import { mayBreakHealthRule } from '../../../lib/relay/filters/health-signals.ts';
import { aDaemonSet, aPod } from '../../support/builders.ts';

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
