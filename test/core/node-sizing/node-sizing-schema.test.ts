import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetManifest } from '../../../lib/core/migration/target-manifest.ts';
import { nodeSizingOf } from '../../../lib/core/node-sizing/node-sizing.ts';
import { createApiServer } from '../../../lib/sim/apiserver/api-server.ts';
import { kubeconfigFor } from '../../../lib/sim/kubeconfig.ts';
import { everynodeCrdVersion } from '../../../lib/sim/schema/crd.ts';
import { ClusterStore } from '../../../lib/sim/storage/store.ts';
import { findKubectl } from '../../support/kubectl.ts';
import { type KubectlResult, kubectlFor } from '../../support/kubectl-harness.ts';

type Schema = { properties?: Record<string, Schema>; items?: Schema; type?: string; [key: string]: unknown };

const rules = [
  {
    container: 'main',
    perAllocatable: { cpu: '0.5%', memory: '1%' },
    perAllocatablePod: { memory: '4Mi' },
    min: { cpu: '50m', memory: '128Mi' },
    max: { cpu: '2', memory: '4Gi' },
  },
  {
    container: 'main',
    nodeSelector: { matchLabels: { 'node.kubernetes.io/instance-type': 'r6a.32xlarge' } },
    requests: { memory: '6Gi' },
  },
];

const spec = {
  selector: { matchLabels: { app: 'agent' } },
  template: {
    metadata: { labels: { app: 'agent' } },
    spec: { containers: [{ name: 'main', image: 'busybox' }] },
  },
};

describe('spec.nodeSizing in the CRD', () => {
  it('is a list of entries naming a container, with a label selector and per-resource maps', () => {
    const schema = everynodeCrdVersion().schema?.openAPIV3Schema as Schema;
    const sizing = schema.properties?.spec?.properties?.nodeSizing;
    expect(sizing?.type).toBe('array');
    expect(sizing?.items?.required).toEqual(['container']);
    expect(Object.keys(sizing?.items?.properties ?? {}).sort()).toEqual([
      'container',
      'limits',
      'max',
      'min',
      'nodeSelector',
      'perAllocatable',
      'perAllocatablePod',
      'requests',
    ]);
    expect(Object.keys(sizing?.items?.properties?.nodeSelector?.properties ?? {})).toEqual([
      'matchLabels',
      'matchExpressions',
    ]);
  });
});

describe('everynode migrate and node sizing', () => {
  it('carries spec.nodeSizing to the everynode.dev/node-sizing annotation on the way to apps/v1, and reads the same rules there', () => {
    const source = {
      apiVersion: 'everynode.dev/v1',
      metadata: { name: 'agent', namespace: 'ns' },
      spec: { ...spec, nodeSizing: rules },
    };
    const { manifest, changes } = targetManifest(source, 'apps/v1', 'u1');
    expect(manifest.spec).toEqual(spec);
    const annotations = (manifest.metadata as { annotations: Record<string, string> }).annotations;
    expect(JSON.parse(annotations['everynode.dev/node-sizing'] ?? 'null')).toEqual(rules);
    expect(changes).toContain(
      'spec.nodeSizing becomes annotation everynode.dev/node-sizing, which kube-controller-manager ignores',
    );
    const fromField = nodeSizingOf(source as never);
    const fromAnnotation = nodeSizingOf(manifest as never);
    expect(fromField).toHaveLength(2);
    expect(fromAnnotation).toEqual(fromField);
  });

  it('keeps the annotation on the way to everynode.dev/v1, where it still applies', () => {
    const source = {
      apiVersion: 'apps/v1',
      metadata: {
        name: 'agent',
        namespace: 'ns',
        annotations: { 'everynode.dev/node-sizing': JSON.stringify(rules) },
      },
      spec,
    };
    const { manifest } = targetManifest(source, 'everynode.dev/v1', 'u1');
    expect(nodeSizingOf(manifest as never)).toHaveLength(2);
  });
});

const kubectlBinary = findKubectl();
if (!kubectlBinary) console.warn('SKIPPING the kubectl node-sizing schema test: no kubectl found');

describe.skipIf(!kubectlBinary)('kubectl apply of spec.nodeSizing against the simulated API server', () => {
  const store = new ClusterStore();
  const server = createApiServer(store);
  let kubectl: (args: readonly string[], stdin?: string) => Promise<KubectlResult>;
  beforeAll(async () => {
    kubectl = kubectlFor(kubectlBinary ?? 'kubectl', { kubeconfig: kubeconfigFor(await server.listen()) });
  });
  afterAll(() => server.close());

  it('accepts and keeps the rules as written; refuses a quantity of the wrong type', async () => {
    const manifest = (name: string, sizing: unknown) =>
      JSON.stringify({
        apiVersion: 'everynode.dev/v1',
        kind: 'DaemonSet',
        metadata: { name, namespace: 'default' },
        spec: { ...spec, nodeSizing: sizing },
      });
    const applied = await kubectl(['apply', '-f', '-'], manifest('agent', rules));
    expect(applied).toMatchObject({ code: 0, stderr: '' });
    const shown = await kubectl([
      'get',
      'eds',
      'agent',
      '-o',
      'jsonpath={.spec.nodeSizing[1].requests.memory}',
    ]);
    expect(shown.stdout).toBe('6Gi');
    const stored = store.get('everynode.dev/daemonsets', 'default', 'agent')?.spec as
      | { nodeSizing?: unknown }
      | undefined;
    expect(stored?.nodeSizing).toEqual(rules);
    const refused = await kubectl(
      ['apply', '-f', '-'],
      manifest('bad', [{ container: 'main', requests: { cpu: true } }]),
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('spec.nodeSizing[0].requests.cpu');
  });
});
