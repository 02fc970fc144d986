import type { V1DaemonSet } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  effectiveGateOf,
  gateChangeBetween,
  mergeGateChanges,
} from '../../../lib/core/node-gates/gate-change.ts';
import {
  DEFAULT_GATE_TAINT_KEY,
  NODE_READINESS_ANNOTATION,
  NODE_READINESS_DRY_RUN_ANNOTATION,
  NODE_READINESS_TAINT_KEY_ANNOTATION,
  NODE_READINESS_TIMEOUT_ANNOTATION,
} from '../../../lib/core/node-gates/gate-declaration.ts';
import { aDaemonSet } from '../../support/builders.ts';

const K = DEFAULT_GATE_TAINT_KEY;
const AGENT = 'example.com/agent-not-ready';

/** apps/v1 DaemonSet `agent` with the gate annotations `gate` (none: no gate). */
function agent(gate?: { mode?: string; key?: string; dryRun?: boolean; timeout?: string }): V1DaemonSet {
  if (gate === undefined) return aDaemonSet('agent');
  return aDaemonSet('agent', {
    annotations: {
      [NODE_READINESS_ANNOTATION]: gate.mode ?? 'BootstrapOnly',
      ...(gate.key ? { [NODE_READINESS_TAINT_KEY_ANNOTATION]: gate.key } : {}),
      ...(gate.dryRun ? { [NODE_READINESS_DRY_RUN_ANNOTATION]: 'true' } : {}),
      ...(gate.timeout ? { [NODE_READINESS_TIMEOUT_ANNOTATION]: gate.timeout } : {}),
    },
  });
}

function terminating(ds: V1DaemonSet): V1DaemonSet {
  return { ...ds, metadata: { ...ds.metadata, deletionTimestamp: new Date('2026-01-02T00:00:00Z') } };
}

describe('effectiveGateOf', () => {
  it('is the valid gate of a live DaemonSet, none while it is deleted, invalid, or absent', () => {
    expect(effectiveGateOf(agent({ mode: 'Continuous' }))).toEqual({
      mode: 'Continuous',
      taintKey: K,
      dryRun: false,
    });
    expect(effectiveGateOf(terminating(agent({ mode: 'Continuous' })))).toBeUndefined();
    expect(effectiveGateOf(agent({ mode: 'Sometimes' }))).toBeUndefined();
    expect(effectiveGateOf(agent())).toBeUndefined();
    expect(effectiveGateOf(undefined)).toBeUndefined();
  });
});

describe('gateChangeBetween', () => {
  it.each<{ name: string; before?: V1DaemonSet; after?: V1DaemonSet; keys: string[] | undefined }>([
    { name: 'no gate before or after', before: agent(), after: agent(), keys: undefined },
    { name: 'the same gate', before: agent(), after: agent(), keys: undefined },
    {
      name: 'only the timeout changed: no taint decision changes',
      before: agent({ timeout: '60' }),
      after: agent({ timeout: '120' }),
      keys: undefined,
    },
    { name: 'gate declared', before: agent(), after: agent({ mode: 'Continuous' }), keys: [K] },
    { name: 'first seen with a gate', after: agent({ mode: 'Continuous' }), keys: [K] },
    { name: 'first seen without a gate', after: agent(), keys: undefined },
    { name: 'gate removed', before: agent({}), after: agent(), keys: [K] },
    { name: 'deleted while gating', before: agent({ key: AGENT }), keys: [AGENT] },
    { name: 'deleted without a gate', before: agent(), keys: undefined },
    { name: 'being deleted while gating', before: agent({}), after: terminating(agent({})), keys: [K] },
    {
      name: 'deleted after being marked for deletion: already counted',
      before: terminating(agent({})),
      keys: undefined,
    },
    { name: 'mode changed', before: agent({}), after: agent({ mode: 'Continuous' }), keys: [K] },
    { name: 'key changed: both keys', before: agent({ key: AGENT }), after: agent({}), keys: [K, AGENT] },
    {
      name: 'dry run turned off: the key is now held',
      before: agent({ dryRun: true }),
      after: agent({}),
      keys: [K],
    },
    {
      name: 'dry run turned on: the key was held',
      before: agent({}),
      after: agent({ dryRun: true }),
      keys: [K],
    },
    {
      name: 'a dry-run gate removed: a change, naming no key (a dry run never held its taint)',
      before: agent({ dryRun: true, key: AGENT }),
      after: agent(),
      keys: [],
    },
    {
      name: 'an invalid gate fixed: declared',
      before: agent({ mode: 'Sometimes' }),
      after: agent({ mode: 'Continuous' }),
      keys: [K],
    },
    {
      name: 'a gate made invalid: it gates nothing now',
      before: agent({ mode: 'Continuous' }),
      after: agent({ mode: 'Sometimes' }),
      keys: [K],
    },
  ])('$name', ({ before, after, keys }) => {
    expect(gateChangeBetween(before, after)).toEqual(keys === undefined ? undefined : { keys });
  });
});

describe('mergeGateChanges', () => {
  it('unites the keys, each once and sorted; none when no change', () => {
    expect(mergeGateChanges([undefined, { keys: [K] }, { keys: [AGENT, K] }, { keys: [] }])).toEqual({
      keys: [K, AGENT],
    });
    expect(mergeGateChanges([{ keys: [] }])).toEqual({ keys: [] });
    expect(mergeGateChanges([undefined, undefined])).toBeUndefined();
    expect(mergeGateChanges([])).toBeUndefined();
  });
});
