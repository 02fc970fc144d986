import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { findKubectl, tableRows, useKubectlSim } from '../../support/kubectl-harness.ts';
import {
  createDaemonPods,
  pollUntil,
  recordRevision,
  writeDaemonSetStatus,
} from '../../support/test-daemon-controller.ts';

const binary = findKubectl();

function dsManifest(name: string, image: string): string {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace: 'default', annotations: { team: 'obs' } },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'agent', image, ports: [{ containerPort: 9100 }] }] },
      },
    },
  });
}

describe.runIf(binary)('kubectl rollout on ControllerRevisions the test writes as controller', () => {
  const sim = useKubectlSim(binary, { timing: { timeScale: 0.01 } });
  const { kubectl, ok } = sim;
  const readyPods = async (): Promise<V1Pod[]> =>
    (await sim.core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=agent' })).items.filter(
      (p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
    );

  it('`kubectl rollout status` waits until the status the controller writes says it is done', async () => {
    await ok(['apply', '-f', '-'], dsManifest('agent', 'example.com/agent:1'));
    await recordRevision(sim.apps, 'default', 'agent', 1);
    const status = kubectl(['rollout', 'status', 'ds/agent', '--timeout=30s']);
    let finished = false;
    void status.then(() => {
      finished = true;
    });
    await writeDaemonSetStatus(sim.core, sim.apps, 'default', 'agent');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(finished).toBe(false);
    expect(await createDaemonPods(sim.core, sim.apps, 'default', 'agent')).toHaveLength(3);
    expect(await pollUntil(readyPods, (pods) => pods.length === 3)).toHaveLength(3);
    await writeDaemonSetStatus(sim.core, sim.apps, 'default', 'agent');
    const result = await status;
    expect(result).toMatchObject({ code: 0 });
    expect(result.stdout).toContain('daemon set "agent" successfully rolled out');
  });

  it('`kubectl rollout history` lists the revisions and `undo` restores the old template only', async () => {
    await ok(['apply', '-f', '-'], dsManifest('agent', 'example.com/agent:2'));
    await recordRevision(sim.apps, 'default', 'agent', 2);
    const history = tableRows(await ok(['rollout', 'history', 'ds/agent']));
    expect(history[0]).toEqual(['daemonset.apps/agent']);
    expect(history.slice(2).map((r) => r[0])).toEqual(['1', '2']);
    expect(await ok(['rollout', 'history', 'ds/agent', '--revision=1'])).toContain('example.com/agent:1');
    expect(await ok(['rollout', 'undo', 'ds/agent', '--to-revision=1'])).toContain(
      'daemonset.apps/agent rolled back',
    );
    const ds = await sim.apps.readNamespacedDaemonSet({ namespace: 'default', name: 'agent' });
    expect(ds.spec?.template.spec?.containers).toEqual([
      expect.objectContaining({
        name: 'agent',
        image: 'example.com/agent:1',
        ports: [expect.objectContaining({ containerPort: 9100 })],
      }),
    ]);
    expect(ds.metadata?.annotations?.team).toBe('obs');
    expect(ds.metadata?.generation).toBe(3);
  });
});
