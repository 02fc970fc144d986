/**
 * The `Available` and `Progressing` conditions of a DaemonSet through the whole local pipeline
 * (relay → bus → router → work queue → reconcile) under least privilege, read the way a user reads
 * them: `kubectl wait --for=condition=Available` returns once every node runs an available daemon
 * pod, and `kubectl get --watch` shows an image change go DaemonSetUpdated → NewRevisionAvailable.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { V1DaemonSet } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { ManagedKind } from '../../lib/kube/managed-kind.ts';
import { generatedNode } from '../../lib/sim/sim-nodes.ts';
import { kubectlBinary, type PipelineWorld, startPipelineWorld } from '../support/pipeline-harness.ts';

const NAMESPACE = 'conds';
/** The node whose kubelet is down while the DaemonSet is created. */
const LATE_NODE = 'node-00003';

/** A kubectl running in the background, in its own process group. */
interface BackgroundKubectl {
  /** Resolves with the exit code and when it exited. */
  readonly exited: Promise<{ code: number | null; at: number }>;
  output(): string;
  /** Kills its whole process group. */
  stop(): void;
}

const running = new Set<ChildProcess>();

function backgroundKubectl(world: PipelineWorld, args: readonly string[]): BackgroundKubectl {
  const child = spawn(kubectlBinary ?? 'kubectl', ['--kubeconfig', world.kubeconfigPath, ...args], {
    detached: true,
    env: { ...process.env, HOME: world.stateDir, KUBECONFIG: world.kubeconfigPath },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    output += String(chunk);
  });
  const exited = new Promise<{ code: number | null; at: number }>((resolve) => {
    child.on('exit', (code) => {
      running.delete(child);
      resolve({ code, at: Date.now() });
    });
  });
  return { exited, output: () => output, stop: () => killGroup(child) };
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** The test's DaemonSet of `kind`: tolerating every taint, as node agents do, so a NotReady node still wants it. */
function agent(kind: ManagedKind, name: string, image: string) {
  return {
    apiVersion: kind,
    kind: 'DaemonSet',
    metadata: { name, namespace: NAMESPACE },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          tolerations: [{ operator: 'Exists' }],
          terminationGracePeriodSeconds: 1,
          containers: [{ name, image }],
        },
      },
    },
  };
}

describe.runIf(kubectlBinary).each([
  // The rollout is the same code for both kinds; apps/v1 checks only that its conditions are kept.
  { kind: 'everynode.dev/v1' as const, resource: 'eds', rollout: true },
  { kind: 'apps/v1' as const, resource: 'daemonset.apps', rollout: false },
])('DaemonSet conditions through the local pipeline, with kubectl ($kind)', ({ kind, resource, rollout }) => {
  let world: PipelineWorld;

  const storeKey = kind === 'apps/v1' ? 'apps/daemonsets' : 'everynode.dev/daemonsets';
  const stored = (name: string) => world.sim.store.get(storeKey, NAMESPACE, name) as V1DaemonSet | undefined;
  const conditionOf = (name: string, type: string) =>
    stored(name)?.status?.conditions?.find((c) => c.type === type);

  beforeAll(async () => {
    world = await startPipelineWorld({
      managedKind: kind,
      secured: true,
      nodes: [1, 2, 3].map((i) => generatedNode(i)),
    });
    await world.kubectl(['create', 'namespace', NAMESPACE]);
  }, 60_000);
  afterEach(() => {
    for (const child of running) killGroup(child);
  });
  afterAll(async () => {
    for (const child of running) killGroup(child);
    await world?.stop();
  });

  it('kubectl wait --for=condition=Available returns only once every node runs an available pod', async () => {
    world.sim.nodes.setReady(LATE_NODE, false);
    // Every version of the DaemonSet ever stored with Available True, as [available, desired].
    const availableVersions: [number | undefined, number | undefined][] = [];
    const unsubscribe = world.sim.store.subscribe((event) => {
      if (event.key !== storeKey || event.object.metadata.name !== 'agent') return;
      const status = (event.object as V1DaemonSet).status;
      if (status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True'))
        availableVersions.push([status.numberAvailable, status.desiredNumberScheduled]);
    });
    onTestFinished(unsubscribe);
    await world.kubectl(['apply', '-f', '-'], JSON.stringify(agent(kind, 'agent', 'busybox:1.36')));
    const wait = backgroundKubectl(world, [
      '-n',
      NAMESPACE,
      'wait',
      '--for=condition=Available',
      `${resource}/agent`,
      '--timeout=60s',
    ]);
    let statusWhenDone: V1DaemonSet['status'];
    const done = wait.exited.then((result) => {
      statusWhenDone = stored('agent')?.status;
      return result;
    });

    // Two of three nodes run an available pod: within maxUnavailable, yet not Available.
    await world
      .until(
        'two nodes run an available pod and the status says so',
        () =>
          stored('agent')?.status?.numberAvailable === 2 &&
          conditionOf('agent', 'Available')?.reason === 'DaemonPodsUnavailable',
      )
      .catch((error: unknown) => {
        throw new Error(`${String(error)}; status ${JSON.stringify(stored('agent')?.status)}`);
      });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(conditionOf('agent', 'Available')).toMatchObject({
      status: 'False',
      message: '2 of 3 nodes run an available daemon pod.',
    });
    expect(conditionOf('agent', 'Progressing')).toMatchObject({ status: 'True', reason: 'DaemonSetUpdated' });
    expect(statusWhenDone).toBeUndefined();

    const kubeletBack = Date.now();
    world.sim.nodes.setReady(LATE_NODE, true);
    const { code, at } = await done;
    expect(wait.output()).toMatch(/condition met/);
    expect(code).toBe(0);
    expect(at).toBeGreaterThan(kubeletBack);
    expect(statusWhenDone?.numberAvailable).toBe(3);
    expect(statusWhenDone?.desiredNumberScheduled).toBe(3);
    expect(availableVersions.length).toBeGreaterThan(0);
    expect(availableVersions.every(([available, desired]) => available === 3 && desired === 3)).toBe(true);

    const shown = JSON.parse(
      await world.kubectl(['-n', NAMESPACE, 'get', resource, 'agent', '-o', 'json']),
    ) as V1DaemonSet;
    expect(shown.status?.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['Progressing', 'True', 'NewRevisionAvailable'],
      ['Available', 'True', 'DaemonPodsAvailable'],
    ]);
  }, 90_000);

  it.runIf(rollout)(
    'an image change shows as Progressing DaemonSetUpdated, then NewRevisionAvailable',
    async () => {
      const lines = backgroundKubectl(world, [
        '-n',
        NAMESPACE,
        'get',
        resource,
        'agent',
        '--watch',
        '-o',
        'jsonpath={.status.observedGeneration} {.status.conditions[?(@.type=="Progressing")].reason} {.status.conditions[?(@.type=="Available")].status}{"\\n"}',
      ]);
      await world.until('the watch prints the current state', () => lines.output().includes('\n'));
      const patch = [
        { op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'busybox:1.37' },
      ];
      await world.kubectl([
        '-n',
        NAMESPACE,
        'patch',
        resource,
        'agent',
        '--type=json',
        '-p',
        JSON.stringify(patch),
      ]);
      await world.until(
        'the watch shows the new revision available',
        () => lines.output().includes('2 NewRevisionAvailable True'),
        30_000,
      );
      lines.stop();

      const seen = lines
        .output()
        .trim()
        .split('\n')
        .filter((line, i, all) => line !== all[i - 1]);
      expect(seen[0]).toBe('1 NewRevisionAvailable True');
      // The first status of the new generation may still count every old pod available.
      const updating = seen.findIndex((line) => line.startsWith('2 DaemonSetUpdated '));
      expect(updating, seen.join(' | ')).toBeGreaterThan(0);
      expect(seen.at(-1)).toBe('2 NewRevisionAvailable True');
      expect(seen.slice(updating).every((line) => line.startsWith('2 '))).toBe(true);
      const images = world.pods(NAMESPACE).map((p) => p.image);
      expect(images).toEqual(['busybox:1.37', 'busybox:1.37', 'busybox:1.37']);
      await world.kubectl([
        '-n',
        NAMESPACE,
        'wait',
        '--for=condition=Available',
        `${resource}/agent`,
        '--timeout=10s',
      ]);
    },
    60_000,
  );
});
