import type { V1DaemonSet, V1Taint } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_GATE_TAINT_KEY,
  gateKeysFor,
  NODE_READINESS_ANNOTATION,
  NODE_READINESS_DRY_RUN_ANNOTATION,
  NODE_READINESS_TAINT_KEY_ANNOTATION,
  NODE_READINESS_TIMEOUT_ANNOTATION,
  nodeReadinessOf,
  nodeReadinessViolations,
} from '../../../lib/core/node-gates/gate-declaration.ts';
import { nodeShouldRunDaemonPod } from '../../../lib/core/placement.ts';
import { automaticTolerations, daemonPodTolerations } from '../../../lib/core/tolerations.ts';
import { validateDaemonSet } from '../../../lib/core/validation.ts';
import { aDaemonSet, aNode } from '../../support/builders.ts';

const AGENT_KEY = 'example.com/agent-not-ready';
const modeField = 'spec.nodeReadiness.mode';
const annotationField = (name: string) => `metadata.annotations[${name}]`;
const QUALIFIED_NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** An everynode.dev/v1 DaemonSet `name` whose spec.nodeReadiness is `gate` (plus `annotations`). */
function withField(gate: unknown, annotations?: Record<string, string>, name = 'agent'): V1DaemonSet {
  const ds = aDaemonSet(name, annotations ? { annotations } : {});
  ds.apiVersion = 'everynode.dev/v1';
  Object.assign(ds.spec ?? {}, { nodeReadiness: gate });
  return ds;
}

/** An apps/v1 DaemonSet `name` with the gate `annotations`. */
const withAnnotations = (annotations: Record<string, string>, name = 'agent') =>
  aDaemonSet(name, { annotations });

describe('nodeReadinessOf', () => {
  it.each([
    { name: 'no field, no annotation: no gate', ds: aDaemonSet('agent'), expected: undefined },
    {
      name: 'other everynode annotations only: no gate',
      ds: withAnnotations({
        'everynode.dev/partition': '1',
        [NODE_READINESS_TAINT_KEY_ANNOTATION]: AGENT_KEY,
      }),
      expected: undefined,
    },
    {
      name: 'field with a mode only: the defaults',
      ds: withField({ mode: 'Continuous' }),
      expected: { mode: 'Continuous', taintKey: DEFAULT_GATE_TAINT_KEY, dryRun: false },
    },
    {
      name: 'field with every setting',
      ds: withField({
        mode: 'BootstrapOnly',
        taintKey: AGENT_KEY,
        timeoutSeconds: 300,
        dryRun: true,
        effect: 'NoSchedule',
      }),
      expected: { mode: 'BootstrapOnly', taintKey: AGENT_KEY, timeoutSeconds: 300, dryRun: true },
    },
    {
      name: 'field with an empty taint key: the default key',
      ds: withField({ mode: 'BootstrapOnly', taintKey: '' }),
      expected: { mode: 'BootstrapOnly', taintKey: DEFAULT_GATE_TAINT_KEY, dryRun: false },
    },
    {
      name: 'field with dryRun false',
      ds: withField({ mode: 'Continuous', dryRun: false }),
      expected: { mode: 'Continuous', taintKey: DEFAULT_GATE_TAINT_KEY, dryRun: false },
    },
    {
      name: 'annotation with a mode only: the defaults',
      ds: withAnnotations({ [NODE_READINESS_ANNOTATION]: 'BootstrapOnly' }),
      expected: { mode: 'BootstrapOnly', taintKey: DEFAULT_GATE_TAINT_KEY, dryRun: false },
    },
    {
      name: 'annotations with every setting',
      ds: withAnnotations({
        [NODE_READINESS_ANNOTATION]: 'Continuous',
        [NODE_READINESS_TAINT_KEY_ANNOTATION]: AGENT_KEY,
        [NODE_READINESS_TIMEOUT_ANNOTATION]: '120',
        [NODE_READINESS_DRY_RUN_ANNOTATION]: 'true',
      }),
      expected: { mode: 'Continuous', taintKey: AGENT_KEY, timeoutSeconds: 120, dryRun: true },
    },
    {
      name: 'annotation dry run "false"',
      ds: withAnnotations({
        [NODE_READINESS_ANNOTATION]: 'Continuous',
        [NODE_READINESS_DRY_RUN_ANNOTATION]: 'false',
      }),
      expected: { mode: 'Continuous', taintKey: DEFAULT_GATE_TAINT_KEY, dryRun: false },
    },
    {
      name: 'field and annotations: the field wins whole (no setting comes from the annotations)',
      ds: withField(
        { mode: 'BootstrapOnly' },
        {
          [NODE_READINESS_ANNOTATION]: 'Continuous',
          [NODE_READINESS_TAINT_KEY_ANNOTATION]: AGENT_KEY,
          [NODE_READINESS_TIMEOUT_ANNOTATION]: '60',
          [NODE_READINESS_DRY_RUN_ANNOTATION]: 'true',
        },
      ),
      expected: { mode: 'BootstrapOnly', taintKey: DEFAULT_GATE_TAINT_KEY, dryRun: false },
    },
    {
      name: 'an invalid field wins whole too: no gate, though the annotations are valid',
      ds: withField({ mode: 'Always' }, { [NODE_READINESS_ANNOTATION]: 'Continuous' }),
      expected: undefined,
    },
    {
      name: 'a null field counts as absent: the annotations apply',
      ds: withField(null, { [NODE_READINESS_ANNOTATION]: 'Continuous' }),
      expected: { mode: 'Continuous', taintKey: DEFAULT_GATE_TAINT_KEY, dryRun: false },
    },
    {
      name: 'an invalid setting: no gate at all (an invalid gate never taints)',
      ds: withAnnotations({
        [NODE_READINESS_ANNOTATION]: 'Continuous',
        [NODE_READINESS_TIMEOUT_ANNOTATION]: '0',
      }),
      expected: undefined,
    },
  ])('$name', ({ ds, expected }) => {
    expect(nodeReadinessOf(ds)).toEqual(expected);
  });
});

describe('nodeReadinessViolations', () => {
  const notSupportedModes = 'supported values: "BootstrapOnly", "Continuous"';
  it.each([
    { name: 'no gate', ds: aDaemonSet('agent'), expected: [] },
    {
      name: 'valid field',
      ds: withField({
        mode: 'Continuous',
        taintKey: AGENT_KEY,
        timeoutSeconds: 1,
        dryRun: true,
        effect: 'NoSchedule',
      }),
      expected: [],
    },
    {
      name: 'valid annotations',
      ds: withAnnotations({
        [NODE_READINESS_ANNOTATION]: 'BootstrapOnly',
        [NODE_READINESS_TAINT_KEY_ANNOTATION]: 'agent-not-ready',
        [NODE_READINESS_TIMEOUT_ANNOTATION]: ' 30 ',
        [NODE_READINESS_DRY_RUN_ANNOTATION]: 'false',
      }),
      expected: [],
    },
    {
      name: 'field without a mode',
      ds: withField({ taintKey: AGENT_KEY }),
      expected: [{ field: modeField, type: 'FieldValueRequired', message: 'Required value' }],
    },
    {
      name: 'field that is not an object',
      ds: withField('Continuous'),
      expected: [{ field: modeField, type: 'FieldValueRequired', message: 'Required value' }],
    },
    {
      name: 'field mode not supported',
      ds: withField({ mode: 'Always' }),
      expected: [
        { field: modeField, type: 'FieldValueNotSupported', message: notSupportedModes, value: 'Always' },
      ],
    },
    {
      name: 'annotation mode in the wrong case',
      ds: withAnnotations({ [NODE_READINESS_ANNOTATION]: 'continuous' }),
      expected: [
        {
          field: annotationField(NODE_READINESS_ANNOTATION),
          type: 'FieldValueNotSupported',
          message: notSupportedModes,
          value: 'continuous',
        },
      ],
    },
    {
      name: 'annotation mode empty (its presence declares a gate)',
      ds: withAnnotations({ [NODE_READINESS_ANNOTATION]: '' }),
      expected: [
        {
          field: annotationField(NODE_READINESS_ANNOTATION),
          type: 'FieldValueNotSupported',
          message: notSupportedModes,
          value: '',
        },
      ],
    },
    {
      name: 'field taint key not a qualified name',
      ds: withField({ mode: 'Continuous', taintKey: 'agent not ready' }),
      expected: [
        {
          field: 'spec.nodeReadiness.taintKey',
          type: 'FieldValueInvalid',
          message: QUALIFIED_NAME_PART,
          value: 'agent not ready',
        },
      ],
    },
    {
      name: 'annotation taint key with two slashes',
      ds: withAnnotations({
        [NODE_READINESS_ANNOTATION]: 'Continuous',
        [NODE_READINESS_TAINT_KEY_ANNOTATION]: 'a/b/c',
      }),
      expected: [
        {
          field: annotationField(NODE_READINESS_TAINT_KEY_ANNOTATION),
          type: 'FieldValueInvalid',
          message: "a qualified name must have at most one '/'",
          value: 'a/b/c',
        },
      ],
    },
    {
      name: 'field taint key with an uppercase prefix and an empty name',
      ds: withField({ mode: 'Continuous', taintKey: 'Example.com/' }),
      expected: [
        expect.objectContaining({
          field: 'spec.nodeReadiness.taintKey',
          message: expect.stringMatching(/^prefix part /),
        }),
        expect.objectContaining({
          field: 'spec.nodeReadiness.taintKey',
          message: 'name part must be non-empty',
        }),
      ],
    },
    {
      name: 'field taint key not a string',
      ds: withField({ mode: 'Continuous', taintKey: 7 }),
      expected: [
        {
          field: 'spec.nodeReadiness.taintKey',
          type: 'FieldValueInvalid',
          message: 'must be a string',
          value: 7,
        },
      ],
    },
    ...[0, -5, 1.5, 'soon'].map((timeoutSeconds) => ({
      name: `field timeout ${JSON.stringify(timeoutSeconds)}`,
      ds: withField({ mode: 'Continuous', timeoutSeconds }),
      expected: [
        {
          field: 'spec.nodeReadiness.timeoutSeconds',
          type: 'FieldValueInvalid',
          message: 'must be an integer greater than 0',
          value: timeoutSeconds,
        },
      ],
    })),
    ...['0', '30s', '', '-1'].map((timeout) => ({
      name: `annotation timeout ${JSON.stringify(timeout)}`,
      ds: withAnnotations({
        [NODE_READINESS_ANNOTATION]: 'Continuous',
        [NODE_READINESS_TIMEOUT_ANNOTATION]: timeout,
      }),
      expected: [
        {
          field: annotationField(NODE_READINESS_TIMEOUT_ANNOTATION),
          type: 'FieldValueInvalid',
          message: 'must be an integer greater than 0',
          value: timeout,
        },
      ],
    })),
    {
      name: 'annotation dry run "yes"',
      ds: withAnnotations({
        [NODE_READINESS_ANNOTATION]: 'Continuous',
        [NODE_READINESS_DRY_RUN_ANNOTATION]: 'yes',
      }),
      expected: [
        {
          field: annotationField(NODE_READINESS_DRY_RUN_ANNOTATION),
          type: 'FieldValueInvalid',
          message: 'must be true or false',
          value: 'yes',
        },
      ],
    },
    {
      name: 'field dry run a number',
      ds: withField({ mode: 'Continuous', dryRun: 1 }),
      expected: [
        {
          field: 'spec.nodeReadiness.dryRun',
          type: 'FieldValueInvalid',
          message: 'must be true or false',
          value: 1,
        },
      ],
    },
    {
      name: 'field effect NoExecute (it would evict what runs on the node)',
      ds: withField({ mode: 'Continuous', effect: 'NoExecute' }),
      expected: [
        {
          field: 'spec.nodeReadiness.effect',
          type: 'FieldValueNotSupported',
          message: 'supported values: "NoSchedule"',
          value: 'NoExecute',
        },
      ],
    },
    {
      name: 'every setting wrong at once: each reported, in order',
      ds: withField({
        mode: 'Sometimes',
        taintKey: '-x-',
        timeoutSeconds: 0,
        dryRun: 'maybe',
        effect: 'PreferNoSchedule',
      }),
      expected: [
        expect.objectContaining({ field: modeField, type: 'FieldValueNotSupported' }),
        expect.objectContaining({ field: 'spec.nodeReadiness.taintKey', type: 'FieldValueInvalid' }),
        expect.objectContaining({ field: 'spec.nodeReadiness.timeoutSeconds', type: 'FieldValueInvalid' }),
        expect.objectContaining({ field: 'spec.nodeReadiness.dryRun', type: 'FieldValueInvalid' }),
        expect.objectContaining({ field: 'spec.nodeReadiness.effect', type: 'FieldValueNotSupported' }),
      ],
    },
    {
      name: 'a valid field hides invalid annotations (the field wins whole)',
      ds: withField(
        { mode: 'Continuous' },
        { [NODE_READINESS_ANNOTATION]: 'bogus', [NODE_READINESS_TIMEOUT_ANNOTATION]: 'x' },
      ),
      expected: [],
    },
  ])('$name', ({ ds, expected }) => {
    expect(nodeReadinessViolations(ds)).toEqual(expected);
  });
});

describe('validateDaemonSet reports an invalid gate', () => {
  it.each([
    {
      name: 'apps/v1 annotation',
      ds: withAnnotations({ [NODE_READINESS_ANNOTATION]: 'Always' }),
      field: annotationField(NODE_READINESS_ANNOTATION),
    },
    {
      name: 'everynode.dev/v1 field',
      ds: withField({ mode: 'Continuous', effect: 'NoExecute' }),
      field: 'spec.nodeReadiness.effect',
    },
  ])('$name', ({ ds, field }) => {
    expect(validateDaemonSet(ds).map((v) => v.field)).toEqual([field]);
  });

  it('and accepts a valid one', () => {
    expect(
      validateDaemonSet(withField({ mode: 'Continuous', taintKey: AGENT_KEY, timeoutSeconds: 60 })),
    ).toEqual([]);
    expect(validateDaemonSet(withAnnotations({ [NODE_READINESS_ANNOTATION]: 'BootstrapOnly' }))).toEqual([]);
  });
});

describe('gateKeysFor', () => {
  const cni = withField({ mode: 'Continuous', taintKey: 'example.com/cni-not-ready' }, undefined, 'cni');
  const logs = withAnnotations({ [NODE_READINESS_ANNOTATION]: 'BootstrapOnly' }, 'logs');
  const security = withAnnotations(
    { [NODE_READINESS_ANNOTATION]: 'Continuous', [NODE_READINESS_TAINT_KEY_ANNOTATION]: AGENT_KEY },
    'security',
  );
  const sameDefault = withField({ mode: 'Continuous' }, undefined, 'metrics');
  const broken = withAnnotations(
    {
      [NODE_READINESS_ANNOTATION]: 'Continuous',
      [NODE_READINESS_TAINT_KEY_ANNOTATION]: 'broken.example.com/x',
      [NODE_READINESS_TIMEOUT_ANNOTATION]: 'never',
    },
    'broken',
  );
  it.each([
    { name: 'a DaemonSet without a gate, nothing known', ds: aDaemonSet('app'), known: [], expected: [] },
    { name: 'its own gate key', ds: security, known: [], expected: [AGENT_KEY] },
    {
      name: 'a DaemonSet without a gate tolerates the known gates',
      ds: aDaemonSet('app'),
      known: [cni, security],
      expected: [AGENT_KEY, 'example.com/cni-not-ready'],
    },
    {
      name: 'each key once, sorted; invalid gates and DaemonSets without one add nothing',
      ds: logs,
      known: [security, sameDefault, logs, broken, aDaemonSet('plain'), cni],
      expected: ['everynode.dev/not-ready', AGENT_KEY, 'example.com/cni-not-ready'],
    },
  ])('$name', ({ ds, known, expected }) => {
    expect(gateKeysFor(ds, known)).toEqual(expected);
  });
});

const gateTaint = (key: string, effect = 'NoSchedule'): V1Taint => ({ key, effect });
const gateToleration = (key: string) => ({ key, operator: 'Exists', effect: 'NoSchedule' });

describe('daemonPodTolerations with gate keys', () => {
  it.each([
    {
      name: 'no gate keys: the automatic tolerations only',
      podSpec: {},
      gateKeys: [],
      expected: automaticTolerations(false),
    },
    {
      name: 'a NoSchedule Exists toleration per gate key, after the automatic ones',
      podSpec: {},
      gateKeys: [DEFAULT_GATE_TAINT_KEY, AGENT_KEY],
      expected: [
        ...automaticTolerations(false),
        gateToleration(DEFAULT_GATE_TAINT_KEY),
        gateToleration(AGENT_KEY),
      ],
    },
    {
      name: "the template's own equal toleration is replaced in place, not doubled",
      podSpec: { tolerations: [{ key: AGENT_KEY, operator: 'Exists', effect: 'NoSchedule' }] },
      gateKeys: [AGENT_KEY],
      expected: [gateToleration(AGENT_KEY), ...automaticTolerations(false)],
    },
    {
      name: "the template's tolerations of the key with another effect stay beside it",
      podSpec: {
        tolerations: [{ key: AGENT_KEY, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 }],
      },
      gateKeys: [AGENT_KEY],
      expected: [
        { key: AGENT_KEY, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 },
        ...automaticTolerations(false),
        gateToleration(AGENT_KEY),
      ],
    },
  ])('$name', ({ podSpec, gateKeys, expected }) => {
    expect(daemonPodTolerations(podSpec, gateKeys)).toEqual(expected);
  });
});

describe('nodeShouldRunDaemonPod on a node gated by a readiness taint', () => {
  const both = { shouldRun: true, shouldContinueRunning: true };
  const keepOnly = { shouldRun: false, shouldContinueRunning: true };
  const neither = { shouldRun: false, shouldContinueRunning: false };
  it.each([
    {
      name: 'gate taint, no gate keys: not started (a pod there may stay)',
      node: aNode('n1', { taints: [gateTaint(AGENT_KEY)] }),
      gateKeys: [],
      expected: keepOnly,
    },
    {
      name: 'gate taint, its key among the gate keys: runs',
      node: aNode('n1', { taints: [gateTaint(AGENT_KEY)] }),
      gateKeys: [AGENT_KEY],
      expected: both,
    },
    {
      name: 'gate taint, only another key among the gate keys: not started',
      node: aNode('n1', { taints: [gateTaint(AGENT_KEY)] }),
      gateKeys: [DEFAULT_GATE_TAINT_KEY],
      expected: keepOnly,
    },
    {
      name: 'two gate taints, both keys: runs',
      node: aNode('n1', { taints: [gateTaint(AGENT_KEY), gateTaint(DEFAULT_GATE_TAINT_KEY)] }),
      gateKeys: [AGENT_KEY, DEFAULT_GATE_TAINT_KEY],
      expected: both,
    },
    {
      name: 'gate key tolerated, but another controller tainted it NoSchedule too: not started',
      node: aNode('n1', {
        taints: [gateTaint(AGENT_KEY), { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
      }),
      gateKeys: [AGENT_KEY],
      expected: keepOnly,
    },
    {
      name: 'a NoExecute taint with the gate key is not tolerated by the gate toleration',
      node: aNode('n1', { taints: [gateTaint(AGENT_KEY, 'NoExecute')] }),
      gateKeys: [AGENT_KEY],
      expected: neither,
    },
  ])('$name', ({ node, gateKeys, expected }) => {
    expect(nodeShouldRunDaemonPod(node, aDaemonSet('agent'), gateKeys)).toEqual(expected);
  });

  it('a gating DaemonSet lands on its own gated node through gateKeysFor', () => {
    const ds = withField({ mode: 'BootstrapOnly', taintKey: AGENT_KEY });
    const node = aNode('n1', { taints: [gateTaint(AGENT_KEY)] });
    expect(nodeShouldRunDaemonPod(node, ds).shouldRun).toBe(false);
    expect(nodeShouldRunDaemonPod(node, ds, gateKeysFor(ds)).shouldRun).toBe(true);
  });
});
