/**
 * A resync moves the node readiness gates the relay never saw move: with the relay stopped, a node
 * joins tainted, a resync creates its gating pod, the pod becomes ready unseen, and the next resync
 * lifts the gate — the DaemonSet step of a resync sends the node steps of the nodes whose gate its
 * full view says may be wrong (docs/design.md, 26. Node readiness gates).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resyncTriggerEvent } from '../../lib/relay/output/trigger.ts';
import { kubectlBinary, type PipelineWorld, startPipelineWorld } from '../support/pipeline-harness.ts';

const NAMESPACE = 'gates';
const KEY = 'everynode.dev/not-ready';

const gatingDaemonSet = {
  apiVersion: 'everynode.dev/v1',
  kind: 'DaemonSet',
  metadata: { name: 'agent', namespace: NAMESPACE },
  spec: {
    selector: { matchLabels: { app: 'agent' } },
    nodeReadiness: { mode: 'BootstrapOnly' },
    template: {
      metadata: { labels: { app: 'agent' } },
      spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'agent', image: 'busybox:1.36' }] },
    },
  },
};

const joiningNode = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'late-1', labels: { 'kubernetes.io/os': 'linux', 'kubernetes.io/hostname': 'late-1' } },
  spec: { taints: [{ key: KEY, effect: 'NoSchedule' }] },
};

describe.runIf(kubectlBinary)('a resync and the node readiness gates no relay saw', () => {
  let world: PipelineWorld;
  const apply = (object: unknown) => world.kubectl(['apply', '-f', '-'], JSON.stringify(object));
  const gated = () =>
    (world.sim.nodes.get('late-1')?.spec?.taints ?? []).some(
      (t) => t.key === KEY && t.effect === 'NoSchedule',
    );
  const agentOnLate = () => world.pods(NAMESPACE).find((p) => p.node === 'late-1');
  const resync = (reason: string) => world.pipeline.bus.publish([resyncTriggerEvent(reason, new Date())]);

  beforeAll(async () => {
    world = await startPipelineWorld({ managedKind: 'everynode.dev/v1', secured: true, nodes: 1 });
    await world.kubectl(['create', 'namespace', NAMESPACE]);
    await apply(gatingDaemonSet);
    await world.quiet();
  }, 60_000);
  afterAll(async () => world?.stop());

  it('lifts the gate of a node whose gating pod became ready while no relay watched', async () => {
    await world.pipeline.stopRelay();
    await apply(joiningNode);
    await resync('test: a resync creates the gating pod');
    await world.until('the gating pod on late-1 runs', () => agentOnLate()?.phase === 'Running');
    const ready = async () => {
      const pod = await world.kubectl(['-n', NAMESPACE, 'get', 'pods', '-o', 'json']);
      return (
        JSON.parse(pod) as {
          items: {
            spec: { nodeName?: string };
            status: { conditions?: { type: string; status: string }[] };
          }[];
        }
      ).items.some(
        (p) =>
          p.spec.nodeName === 'late-1' &&
          p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
      );
    };
    await world.until('the gating pod on late-1 is ready', ready);
    await world.quiet();
    // Nothing saw the pod turn ready: the node stays gated until something looks.
    expect(gated()).toBe(true);
    await resync('test: a resync re-checks the gates');
    await world.until('the gate of late-1 is lifted', () => !gated());
    const events = JSON.parse(await world.kubectl(['get', 'events', '-A', '-o', 'json'])) as {
      items: { reason?: string; involvedObject: { kind?: string; name?: string } }[];
    };
    expect(
      events.items.filter(
        (e) => e.involvedObject.name === 'late-1' && e.reason === 'NodeReadinessGateLifted',
      ),
    ).toHaveLength(1);
  });
});
