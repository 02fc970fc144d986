/**
 * Extra pods are handled at once: a pod made by hand that matches a managed DaemonSet's selector
 * is adopted and deleted when it is extra, as upstream's controller does on the orphan's ADD —
 * through the relay's orphan watch, the router and the pair step, under least privilege.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagedKind } from '../../lib/kube/managed-kind.ts';
import { kubectlBinary, type PipelineWorld, startPipelineWorld } from '../support/pipeline-harness.ts';

/** The agent DaemonSet of `kind`, on the nodes labelled `role=agent`. */
function agent(kind: ManagedKind, namespace: string) {
  return {
    apiVersion: kind,
    kind: 'DaemonSet',
    metadata: { name: 'agent', namespace },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      template: {
        metadata: { labels: { app: 'agent' } },
        spec: {
          nodeSelector: { role: 'agent' },
          tolerations: [{ operator: 'Exists' }],
          containers: [{ name: 'agent', image: 'agent:1' }],
        },
      },
    },
  };
}

/** A pod made by hand with the agent's labels, bound to `node`. */
function handMade(name: string, namespace: string, node: string) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels: { app: 'agent', made: 'by-hand' } },
    spec: { nodeName: node, containers: [{ name: 'agent', image: 'agent:1' }] },
  };
}

/** The pod's uid, or undefined when it is gone or being deleted. */
function liveUid(world: PipelineWorld, namespace: string, name: string): string | undefined {
  const pod = world.sim.store.list('pods', { namespace }).find((p) => p.metadata.name === name);
  return pod === undefined || pod.metadata.deletionTimestamp ? undefined : pod.metadata.uid;
}

describe.runIf(kubectlBinary).each<ManagedKind>(['apps/v1', 'everynode.dev/v1'])(
  'orphan pods matching a %s DaemonSet',
  (kind) => {
    let world: PipelineWorld;
    const namespace = 'orphans';

    beforeAll(async () => {
      world = await startPipelineWorld({ managedKind: kind, secured: true, nodes: 8 });
      await world.kubectl(['label', 'node', 'node-00001', 'node-00002', 'role=agent']);
      await world.kubectl(['create', 'namespace', namespace]);
      await world.kubectl(['apply', '-f', '-'], JSON.stringify(agent(kind, namespace)));
      await world.until(
        'the agent runs on node-00001 and node-00002',
        () => world.pods(namespace).length === 2,
      );
      await world.quiet();
    });
    afterAll(async () => world?.stop());

    it('deletes a hand-made pod on a node that already runs the agent, keeping the agent', async () => {
      const before = world.pods(namespace).find((pod) => pod.node === 'node-00001');
      await world.kubectl(['apply', '-f', '-'], JSON.stringify(handMade('extra-1', namespace, 'node-00001')));
      await world.until(
        'the extra pod is deleted',
        () => liveUid(world, namespace, 'extra-1') === undefined,
        10_000,
      );
      await world.quiet();
      const after = world.pods(namespace).find((pod) => pod.node === 'node-00001');
      expect(after?.uid).toBe(before?.uid);
      expect(world.pods(namespace)).toHaveLength(2);
    });

    it('deletes a hand-made pod on a node the DaemonSet does not run on', async () => {
      await world.kubectl(['apply', '-f', '-'], JSON.stringify(handMade('extra-3', namespace, 'node-00003')));
      await world.until(
        'the extra pod is deleted',
        () => liveUid(world, namespace, 'extra-3') === undefined,
        10_000,
      );
      await world.quiet();
      expect(
        world
          .pods(namespace)
          .map((pod) => pod.node)
          .sort(),
      ).toEqual(['node-00001', 'node-00002']);
    });

    it('leaves a pod another controller owns alone', async () => {
      const other = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'other', namespace },
        spec: { nodeName: 'node-00004', containers: [{ name: 'c', image: 'other:1' }] },
      };
      await world.kubectl(['apply', '-f', '-'], JSON.stringify(other));
      const uid = await world.kubectl([
        'get',
        'pod',
        '-n',
        namespace,
        'other',
        '-o',
        'jsonpath={.metadata.uid}',
      ]);
      // Any object may control a pod; the simulated cluster serves no ReplicaSets.
      const owner = { apiVersion: 'v1', kind: 'Pod', name: 'other', uid, controller: true };
      const owned = handMade('owned-1', namespace, 'node-00002');
      const pod = { ...owned, metadata: { ...owned.metadata, ownerReferences: [owner] } };
      await world.kubectl(['apply', '-f', '-'], JSON.stringify(pod));
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await world.quiet();
      expect(liveUid(world, namespace, 'owned-1')).toBeDefined();
      expect(world.pods(namespace)).toHaveLength(2);
    });
  },
);
