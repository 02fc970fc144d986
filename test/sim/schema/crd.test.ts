import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer } from '../../../lib/sim/apiserver/api-server.ts';
import { kubeconfigFor } from '../../../lib/sim/kubeconfig.ts';
import { everynodeCrdVersion, loadEverynodeCrd } from '../../../lib/sim/schema/crd.ts';
import { ClusterStore } from '../../../lib/sim/storage/store.ts';
import { findKubectl } from '../../support/kubectl.ts';
import { type KubectlResult, kubectlFor, tableRows } from '../../support/kubectl-harness.ts';

type Schema = { properties?: Record<string, Schema>; type?: string; [key: string]: unknown };
const at = (schema: Schema | undefined, ...path: string[]): Schema | undefined =>
  path.reduce<Schema | undefined>((s, key) => s?.properties?.[key], schema);

describe('the everynode CRD manifest', () => {
  it('declares daemonsets.everynode.dev, namespaced, short name eds', () => {
    const crd = loadEverynodeCrd();
    expect(crd.metadata?.name).toBe('daemonsets.everynode.dev');
    expect(crd.spec.group).toBe('everynode.dev');
    expect(crd.spec.scope).toBe('Namespaced');
    expect(crd.spec.names).toMatchObject({ plural: 'daemonsets', kind: 'DaemonSet', shortNames: ['eds'] });
  });

  it('serves and stores v1 with a status subresource, kubectl-get-ds printer columns, the rollout phase, the gate and the node sizing under -o wide', () => {
    const version = everynodeCrdVersion();
    expect(version).toMatchObject({ name: 'v1', served: true, storage: true, subresources: { status: {} } });
    expect(version.additionalPrinterColumns?.map((c) => [c.name, c.jsonPath, c.priority ?? 0])).toEqual([
      ['Desired', '.status.desiredNumberScheduled', 0],
      ['Current', '.status.currentNumberScheduled', 0],
      ['Ready', '.status.numberReady', 0],
      ['Up-to-date', '.status.updatedNumberScheduled', 0],
      ['Available', '.status.numberAvailable', 0],
      ['Node Selector', '.spec.template.spec.nodeSelector', 0],
      ['Age', '.metadata.creationTimestamp', 0],
      ['Rollout', '.status.rollout.phase', 1],
      ['Gate', '.spec.nodeReadiness.mode', 1],
      ['Node Sizing', '.status.nodeSizing', 1],
    ]);
  });

  it.each([
    [['spec', 'updateStrategy', 'rollingUpdate', 'partition'], 'integer'],
    [['spec', 'updateStrategy', 'rollingUpdate', 'paused'], 'boolean'],
    [['spec', 'updateStrategy', 'rollingUpdate', 'selector'], 'object'],
    [['spec', 'updateStrategy', 'rollingUpdate', 'strict'], 'boolean'],
    [['spec', 'updateStrategy', 'rollingUpdate', 'inPlace'], 'string'],
    [['spec', 'progressDeadlineSeconds'], 'integer'],
    [['spec', 'burstReplicas'], 'integer'],
    [['spec', 'nodeReadiness'], 'object'],
    [['spec', 'nodeReadiness', 'mode'], 'string'],
    [['spec', 'nodeReadiness', 'taintKey'], 'string'],
    [['spec', 'nodeReadiness', 'timeoutSeconds'], 'integer'],
    [['spec', 'nodeReadiness', 'dryRun'], 'boolean'],
    [['spec', 'nodeReadiness', 'effect'], 'string'],
    [['spec', 'updateStrategy', 'rollingUpdate', 'topologyKey'], 'string'],
    [['spec', 'updateStrategy', 'rollingUpdate', 'steps'], 'array'],
    [['spec', 'updateStrategy', 'rollingUpdate', 'health'], 'object'],
    [['spec', 'updateStrategy', 'rollingUpdate', 'health', 'onFailure'], 'string'],
    [['status', 'rollout'], 'object'],
    [['status', 'nodeSizing'], 'string'],
    [['status', 'conditions'], 'array'],
    [['spec', 'selector'], 'object'],
    [['status', 'numberAvailable'], 'integer'],
  ])('has %j of type %s in its schema', (path, type) => {
    const schema = everynodeCrdVersion().schema?.openAPIV3Schema as Schema;
    expect(at(schema, ...path)?.type).toBe(type);
  });

  it('requires a selector and template and keeps the rolling update selector a label selector', () => {
    const schema = everynodeCrdVersion().schema?.openAPIV3Schema as Schema;
    expect(at(schema, 'spec')?.required).toEqual(['selector', 'template']);
    expect(
      Object.keys(at(schema, 'spec', 'updateStrategy', 'rollingUpdate', 'selector')?.properties ?? {}),
    ).toEqual(['matchLabels', 'matchExpressions']);
  });

  it('makes the selector immutable with a transition rule, as apps/v1 does, and the simulator keeps refusing a change', () => {
    const schema = everynodeCrdVersion().schema?.openAPIV3Schema as Schema;
    expect(at(schema, 'spec', 'selector')?.['x-kubernetes-validations']).toEqual([
      { rule: 'self == oldSelf', message: 'field is immutable' },
    ]);
    const store = new ClusterStore();
    const ds = {
      apiVersion: 'everynode.dev/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent', namespace: 'default' },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: {
          metadata: { labels: { app: 'agent', tier: 'node' } },
          spec: { containers: [{ name: 'main', image: 'busybox' }] },
        },
      },
    };
    const stored = store.create('everynode.dev/daemonsets', ds);
    const changed = {
      ...stored,
      spec: { ...ds.spec, selector: { matchLabels: { app: 'agent', tier: 'node' } } },
    };
    expect(() => store.update('everynode.dev/daemonsets', changed)).toThrow(
      /spec\.selector: .*field is immutable/,
    );
  });

  it('declares the node readiness gate: a required mode of two values, NoSchedule only, a timeout of at least 1', () => {
    const schema = everynodeCrdVersion().schema?.openAPIV3Schema as Schema;
    const gate = at(schema, 'spec', 'nodeReadiness');
    expect(gate?.required).toEqual(['mode']);
    expect(at(gate, 'mode')?.enum).toEqual(['BootstrapOnly', 'Continuous']);
    expect(at(gate, 'effect')?.enum).toEqual(['NoSchedule']);
    expect(at(gate, 'timeoutSeconds')?.minimum).toBe(1);
    expect(Object.keys(gate?.properties ?? {}).sort()).toEqual([
      'dryRun',
      'effect',
      'mode',
      'taintKey',
      'timeoutSeconds',
    ]);
  });

  it('declares inPlace as IfPossible or Never; the simulator keeps it and refuses another value', () => {
    const schema = everynodeCrdVersion().schema?.openAPIV3Schema as Schema;
    expect(at(schema, 'spec', 'updateStrategy', 'rollingUpdate', 'inPlace')?.enum).toEqual([
      'IfPossible',
      'Never',
    ]);
    const store = new ClusterStore();
    const ds = (name: string, inPlace: string) => ({
      apiVersion: 'everynode.dev/v1',
      kind: 'DaemonSet',
      metadata: { name, namespace: 'default' },
      spec: {
        selector: { matchLabels: { app: name } },
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, inPlace } },
        template: {
          metadata: { labels: { app: name } },
          spec: { containers: [{ name: 'main', image: 'busybox' }] },
        },
      },
    });
    const stored = store.create('everynode.dev/daemonsets', ds('kept', 'IfPossible'));
    expect(stored.spec).toMatchObject({ updateStrategy: { rollingUpdate: { inPlace: 'IfPossible' } } });
    expect(() => store.create('everynode.dev/daemonsets', ds('refused', 'Sometimes'))).toThrow(
      'spec.updateStrategy.rollingUpdate.inPlace: Unsupported value: "Sometimes": supported values: "IfPossible", "Never"',
    );
  });

  it('returns a fresh copy each time', () => {
    const first = loadEverynodeCrd();
    first.spec.group = 'changed';
    expect(loadEverynodeCrd().spec.group).toBe('everynode.dev');
  });
});

const kubectlBinary = findKubectl();
if (!kubectlBinary)
  console.warn('SKIPPING the kubectl node readiness schema tests: no kubectl found (PATH or layer package)');

/** An everynode.dev/v1 DaemonSet manifest `name` whose spec ends with `gate` (YAML lines under spec). */
function gatedManifest(name: string, gate: string, apiVersion = 'everynode.dev/v1'): string {
  return `apiVersion: ${apiVersion}
kind: DaemonSet
metadata:
  name: ${name}
  namespace: default
spec:
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: main
        image: busybox
${gate}`;
}

describe.skipIf(!kubectlBinary)(
  'kubectl apply of a node readiness gate against the simulated API server',
  () => {
    const store = new ClusterStore();
    const server = createApiServer(store);
    let kubectl: (args: readonly string[], stdin?: string) => Promise<KubectlResult>;
    beforeAll(async () => {
      kubectl = kubectlFor(kubectlBinary ?? 'kubectl', { kubeconfig: kubeconfigFor(await server.listen()) });
    });
    afterAll(() => server.close());

    it('accepts spec.nodeReadiness on an everynode.dev DaemonSet, keeps it, and shows its mode with -o wide only', async () => {
      const gate = `  nodeReadiness:
    mode: Continuous
    taintKey: example.com/agent-not-ready
    timeoutSeconds: 300
    dryRun: true
    effect: NoSchedule
`;
      const applied = await kubectl(['apply', '-f', '-'], gatedManifest('gated', gate));
      expect(applied).toMatchObject({ code: 0, stderr: '' });
      expect(applied.stdout.trim()).toBe('daemonset.everynode.dev/gated created');
      const stored = store.get('everynode.dev/daemonsets', 'default', 'gated');
      expect((stored?.spec as { nodeReadiness?: unknown } | undefined)?.nodeReadiness).toEqual({
        mode: 'Continuous',
        taintKey: 'example.com/agent-not-ready',
        timeoutSeconds: 300,
        dryRun: true,
        effect: 'NoSchedule',
      });
      const plain = tableRows((await kubectl(['get', 'eds', 'gated'])).stdout);
      expect(plain[0]).not.toContain('GATE');
      const wide = tableRows((await kubectl(['get', 'eds', 'gated', '-o', 'wide'])).stdout);
      // GATE, then NODE SIZING, which is empty without node-sizing rules.
      expect(wide[0]?.slice(-2)).toEqual(['GATE', 'NODE SIZING']);
      expect(wide[1]?.at(-1)).toBe('Continuous');
    });

    it.each([
      {
        name: 'a mode that is not BootstrapOnly or Continuous',
        gate: '  nodeReadiness: {mode: Sometimes}\n',
        error:
          'spec.nodeReadiness.mode: Unsupported value: "Sometimes": supported values: "BootstrapOnly", "Continuous"',
      },
      {
        name: 'a gate without a mode',
        gate: '  nodeReadiness: {taintKey: example.com/agent-not-ready}\n',
        error: 'spec.nodeReadiness.mode: Required value',
      },
      {
        name: 'a NoExecute effect',
        gate: '  nodeReadiness: {mode: BootstrapOnly, effect: NoExecute}\n',
        error: 'spec.nodeReadiness.effect: Unsupported value: "NoExecute": supported values: "NoSchedule"',
      },
    ])('refuses $name as a real API server does, and stores nothing', async ({ gate, error }) => {
      const refused = await kubectl(['apply', '-f', '-'], gatedManifest('refused', gate));
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim()).toBe(`The DaemonSet "refused" is invalid: ${error}`);
      expect(store.get('everynode.dev/daemonsets', 'default', 'refused')).toBeUndefined();
    });

    it('refuses an unknown gate field as strict field validation does', async () => {
      const refused = await kubectl(
        ['apply', '-f', '-'],
        gatedManifest('typo', '  nodeReadiness: {mode: Continuous, taintkey: a/b}\n'),
      );
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('unknown field "spec.nodeReadiness.taintkey"');
    });

    it('accepts any gate annotation on an apps/v1 DaemonSet: the API server does not know them', async () => {
      const manifest = gatedManifest('annotated', '', 'apps/v1').replace(
        '  namespace: default\n',
        '  namespace: default\n  annotations: {everynode.dev/node-readiness: Sometimes}\n',
      );
      const applied = await kubectl(['apply', '-f', '-'], manifest);
      expect(applied).toMatchObject({ code: 0, stderr: '' });
      expect(store.get('apps/daemonsets', 'default', 'annotated')).toBeDefined();
    });
  },
);
