import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aNode } from '../support/builders.ts';
import { findKubectl, type KubectlResult, kubectlFor } from '../support/kubectl-harness.ts';
import { daemonSetMessage, podsOf, storedDaemonSet } from '../support/reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from '../support/reconcile-harness.ts';

const kubectlBinary = findKubectl();

const manifest = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
  namespace: default
spec:
  selector:
    matchLabels: {app: agent}
  updateStrategy:
    type: RollingUpdate
    rollingUpdate: {maxUnavailable: 1}
  template:
    metadata:
      labels: {app: agent}
    spec:
      terminationGracePeriodSeconds: 0
      containers:
      - name: main
        image: busybox:1.36
`;

describe.runIf(kubectlBinary !== undefined)('kubectl on an apps/v1 DaemonSet managed by everynode', () => {
  let harness: Harness;
  let kubectl: (args: readonly string[], stdin?: string) => Promise<KubectlResult>;
  let pumping = true;
  let pump: Promise<void>;

  beforeAll(async () => {
    harness = await startReconcileHarness({
      nodes: ['n1', 'n2', 'n3'].map((name) => aNode(name)),
      podDeletions: true,
    });
    kubectl = kubectlFor(kubectlBinary ?? 'kubectl', harness.sim);
    // What the router does as the DaemonSet and its pods change: a DaemonSet step every few hundred ms.
    pump = (async () => {
      while (pumping) {
        const ds = storedDaemonSet(harness, 'default', 'agent');
        if (ds) await harness.send(daemonSetMessage(ds));
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    })();
  });
  afterAll(async () => {
    pumping = false;
    await pump;
    await harness?.stop();
  });

  const images = () =>
    podsOf(harness, storedDaemonSet(harness, 'default', 'agent')?.metadata?.uid ?? '')
      .filter((pod: V1Pod) => !pod.metadata?.deletionTimestamp)
      .map((pod) => pod.spec?.containers[0]?.image)
      .sort();

  async function rolloutStatus(): Promise<KubectlResult> {
    return kubectl(['rollout', 'status', 'daemonset/agent', '--timeout=60s']);
  }

  it('kubectl rollout status completes after apply and after an image change', async () => {
    expect((await kubectl(['apply', '-f', '-'], manifest)).code).toBe(0);
    const created = await rolloutStatus();
    expect(created.stdout).toContain('successfully rolled out');
    expect(images()).toEqual(['busybox:1.36', 'busybox:1.36', 'busybox:1.36']);
    expect((await kubectl(['set', 'image', 'daemonset/agent', 'main=busybox:1.37'])).code).toBe(0);
    const rolled = await rolloutStatus();
    expect(rolled.code).toBe(0);
    expect(rolled.stdout).toContain('successfully rolled out');
    expect(images()).toEqual(['busybox:1.37', 'busybox:1.37', 'busybox:1.37']);
  });

  it('kubectl rollout undo goes back to the previous revision', async () => {
    const history = await kubectl(['rollout', 'history', 'daemonset/agent']);
    expect(history.code).toBe(0);
    expect(history.stdout).toMatch(/^1\s/m);
    expect(history.stdout).toMatch(/^2\s/m);
    const undo = await kubectl(['rollout', 'undo', 'daemonset/agent']);
    expect(undo.code, undo.stderr).toBe(0);
    const status = await rolloutStatus();
    expect(status.stdout).toContain('successfully rolled out');
    expect(images()).toEqual(['busybox:1.36', 'busybox:1.36', 'busybox:1.36']);
    const after = await kubectl(['rollout', 'history', 'daemonset/agent']);
    expect(after.stdout).toMatch(/^2\s/m);
    expect(after.stdout).toMatch(/^3\s/m);
    expect(after.stdout).not.toMatch(/^1\s/m);
  });
});
