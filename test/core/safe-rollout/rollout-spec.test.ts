import { describe, expect, it } from 'vitest';
import {
  ROLLOUT_HEALTH_ANNOTATION,
  ROLLOUT_STEPS_ANNOTATION,
  ROLLOUT_TOPOLOGY_KEY_ANNOTATION,
  safeRolloutOf,
  safeRolloutViolations,
} from '../../../lib/core/safe-rollout/rollout-spec.ts';
import { validateDaemonSet } from '../../../lib/core/validation.ts';
import { aDaemonSet } from '../../support/builders.ts';

const withFields = (rollingUpdate: Record<string, unknown>) =>
  aDaemonSet('agent', {
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, ...rollingUpdate } },
  });
const withAnnotations = (annotations: Record<string, string>) => aDaemonSet('agent', { annotations });

describe('safeRolloutOf', () => {
  it('reads steps, topology key and health from the fields, with the defaults of health', () => {
    const ds = withFields({
      topologyKey: 'topology.kubernetes.io/zone',
      steps: [{ nodes: 1 }, { pause: { seconds: 300 } }, { nodes: '10%' }, { pause: {} }],
      health: { maxRestarts: 3 },
    });
    expect(safeRolloutOf(ds)).toEqual({
      topologyKey: 'topology.kubernetes.io/zone',
      steps: [{ nodes: 1 }, { pause: { seconds: 300 } }, { nodes: '10%' }, { pause: {} }],
      health: { podReadySeconds: 300, maxRestarts: 3, maxFailedNodes: 0, onFailure: 'Pause' },
    });
    expect(safeRolloutViolations(ds)).toEqual([]);
  });

  it('reads the same JSON from the apps/v1 annotations; the field wins', () => {
    const ds = withAnnotations({
      [ROLLOUT_STEPS_ANNOTATION]: '[{"nodes":2}]',
      [ROLLOUT_TOPOLOGY_KEY_ANNOTATION]: 'zone',
      [ROLLOUT_HEALTH_ANNOTATION]: '{"maxFailedNodes":"10%","onFailure":"Revert","nodeReadySeconds":600}',
    });
    expect(safeRolloutOf(ds)).toEqual({
      topologyKey: 'zone',
      steps: [{ nodes: 2 }],
      health: { podReadySeconds: 300, nodeReadySeconds: 600, maxFailedNodes: '10%', onFailure: 'Revert' },
    });
    const both = { ...withFields({ steps: [{ nodes: 5 }] }), metadata: ds.metadata };
    expect(safeRolloutOf(both).steps).toEqual([{ nodes: 5 }]);
    expect(safeRolloutOf(withAnnotations({ [ROLLOUT_TOPOLOGY_KEY_ANNOTATION]: '"zone"' })).topologyKey).toBe(
      'zone',
    );
  });

  it('is empty without settings', () => {
    expect(safeRolloutOf(aDaemonSet('agent'))).toEqual({});
  });
});

describe('safeRolloutViolations', () => {
  const cases: [string, Record<string, unknown> | Record<string, string>, boolean, string][] = [
    [
      'a step with both nodes and pause',
      { steps: [{ nodes: 1, pause: {} }] },
      true,
      'spec.updateStrategy.rollingUpdate.steps[0]: must set exactly one of nodes and pause',
    ],
    ['no steps', { steps: [] }, true, 'spec.updateStrategy.rollingUpdate.steps: must list at least one step'],
    [
      'zero nodes',
      { steps: [{ nodes: 0 }] },
      true,
      'steps[0].nodes: must be an integer greater than or equal to 1',
    ],
    [
      'a percent over 100',
      { steps: [{ nodes: '150%' }] },
      true,
      'steps[0].nodes: must be a percentage from 1% to 100%',
    ],
    [
      'a pause of 0 seconds',
      { steps: [{ pause: { seconds: 0 } }] },
      true,
      'steps[0].pause.seconds: must be an integer greater than or equal to 1',
    ],
    ['a bad topology key', { topologyKey: 'a b' }, true, 'topologyKey: name part must consist of'],
    [
      'an unknown onFailure',
      { health: { onFailure: 'Explode' } },
      true,
      'health.onFailure: supported values: "Pause", "Revert"',
    ],
    ['an unknown health field', { health: { maxFailures: 1 } }, true, 'health.maxFailures: unknown field'],
    [
      'negative restarts',
      { health: { maxRestarts: -1 } },
      true,
      'health.maxRestarts: must be an integer greater than or equal to 0',
    ],
    [
      'annotation JSON that does not parse',
      { [ROLLOUT_STEPS_ANNOTATION]: '[{nodes:1}' },
      false,
      `metadata.annotations[${ROLLOUT_STEPS_ANNOTATION}]: must be JSON`,
    ],
  ];
  it.each(cases)('refuses %s', (_, settings, asFields, expected) => {
    const ds = asFields ? withFields(settings) : withAnnotations(settings as Record<string, string>);
    const texts = safeRolloutViolations(ds).map((v) => `${v.field}: ${v.message}`);
    expect(texts.some((t) => t.includes(expected))).toBe(true);
    expect(validateDaemonSet(ds).length).toBeGreaterThan(0);
    expect(safeRolloutOf(ds)).toEqual({});
  });
});
