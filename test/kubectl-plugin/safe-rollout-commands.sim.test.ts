/**
 * The plugin's safe-rollout commands as kubectl runs them (`kubectl everynode rollout
 * resume|retry|status|plan`), on a simulated cluster of seven nodes in two zones that runs no
 * DaemonSet controller: the test writes the DaemonSets, their status, their rollout records and
 * their pods itself (kubectl apply, `kubectl patch --subresource=status`, kubectl annotate), in the
 * places the controller keeps them — `status.rollout` on everynode.dev/v1, the
 * `everynode.dev/rollout-status` annotation on apps/v1 — and checks the output and the requests the
 * plugin writes.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CoreV1Api, V1DaemonSet } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonPodFor } from '../../lib/core/daemon-pod.ts';
import type { RolloutRecord } from '../../lib/core/safe-rollout/rollout-record.ts';
import { templateHash } from '../../lib/core/template-hash.ts';
import { type SimCluster, startSimCluster } from '../../lib/sim/start-sim-cluster.ts';
import { groupAlive } from '../conformance/everynode-run.ts';
import { aNode } from '../support/builders.ts';
import { findKubectl } from '../support/kubectl-harness.ts';
import { apisFor } from '../support/test-daemon-controller.ts';
import { kubectlStarter, pluginBinIn, type ToolResult } from './plugin-kubectl.ts';

const binary = findKubectl();
const ZONE = 'topology.kubernetes.io/zone';
const STEPS = [{ nodes: 1 }, { pause: {} }, { nodes: '50%' }];
const TEST_TIMEOUT_MS = 60_000;

/** The two kinds, as kubectl names their type and the plugin prints their names. */
const KINDS = [
  {
    apiVersion: 'everynode.dev/v1',
    type: 'eds',
    printed: 'daemonset.everynode.dev',
    resource: 'daemonsets.everynode.dev',
  },
  { apiVersion: 'apps/v1', type: 'ds', printed: 'daemonset.apps', resource: 'daemonsets.apps' },
] as const;
type Kind = (typeof KINDS)[number];

let cluster: SimCluster;
let core: CoreV1Api;
let root: string;
let start: ReturnType<typeof kubectlStarter>;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  const nodes = Array.from({ length: 7 }, (_, i) =>
    aNode(`node-0000${i + 1}`, { labels: { [ZONE]: i < 4 ? 'a' : 'b' } }),
  );
  cluster = await startSimCluster({ nodes, timing: { timeScale: 0.01 } });
  core = apisFor(cluster.kubeconfig).core;
  root = mkdtempSync(join(tmpdir(), 'everynode-safe-rollout-plugin-'));
  const kubeconfig = join(root, 'kubeconfig');
  writeFileSync(kubeconfig, cluster.kubeconfig);
  mkdirSync(join(root, 'home'));
  start = kubectlStarter(kubeconfig, join(root, 'home'), pluginBinIn(root), children);
}, 60_000);

afterAll(async () => {
  for (const child of children)
    if (child.pid !== undefined && groupAlive(child.pid)) process.kill(-child.pid, 'SIGKILL');
  await cluster?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

const kubectl = (args: readonly string[], stdin?: string): Promise<ToolResult> =>
  start(args, stdin === undefined ? {} : { stdin }).done;

async function ok(args: readonly string[], stdin?: string): Promise<string> {
  const result = await kubectl(args, stdin);
  expect(result, `kubectl ${args.join(' ')}`).toMatchObject({ code: 0 });
  return result.stdout;
}

/** The PATCH requests the plugin sent so far. */
const pluginPatches = () => cluster.counters.total({ verb: 'patch', userAgent: 'kubectl-everynode' });

/** `kubectl everynode rollout …`. */
const plugin = (args: readonly string[]) => kubectl(['everynode', 'rollout', ...args]);

/** Creates the DaemonSet `name` of `kind` with steps by zone; resolves with it and its revision. */
async function createDaemonSet(
  kind: Kind,
  name: string,
  extra: Readonly<{ paused?: boolean }> = {},
): Promise<{ ds: V1DaemonSet; hash: string }> {
  const safe = { steps: STEPS, topologyKey: ZONE };
  const annotations =
    kind.type === 'ds'
      ? {
          'everynode.dev/rollout-steps': JSON.stringify(STEPS),
          'everynode.dev/rollout-topology-key': ZONE,
          ...(extra.paused ? { 'everynode.dev/paused': 'true' } : {}),
        }
      : {};
  const rollingUpdate = {
    maxUnavailable: 2,
    maxSurge: 0,
    ...(kind.type === 'eds' ? { ...safe, ...(extra.paused ? { paused: true } : {}) } : {}),
  };
  const manifest = {
    apiVersion: kind.apiVersion,
    kind: 'DaemonSet',
    metadata: { name, namespace: 'default', annotations },
    spec: {
      selector: { matchLabels: { app: name } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'agent', image: 'busybox:1.36', command: ['sleep', 'infinity'] }] },
      },
    },
  };
  await ok(['apply', '-f', '-'], JSON.stringify(manifest));
  const ds = await read(kind, name);
  return { ds, hash: templateHash(ds.spec?.template ?? {}, ds.status?.collisionCount) };
}

async function read(kind: Kind, name: string): Promise<V1DaemonSet> {
  return JSON.parse(await ok(['get', kind.type, name, '-o', 'json'])) as V1DaemonSet;
}

/** Writes the DaemonSet's status (merged into what it has) through the status subresource. */
async function writeStatus(kind: Kind, name: string, status: Record<string, unknown>): Promise<void> {
  const patch = JSON.stringify({ status });
  await ok(['patch', kind.type, name, '--subresource=status', '--type=merge', '-p', patch]);
}

/** Writes the rollout record where the controller keeps it for `kind`. */
async function writeRecord(kind: Kind, name: string, record: RolloutRecord): Promise<void> {
  if (kind.type === 'eds') await writeStatus(kind, name, { rollout: record });
  else
    await ok([
      'annotate',
      'ds',
      name,
      '--overwrite',
      `everynode.dev/rollout-status=${JSON.stringify(record)}`,
    ]);
}

/** The status counts of a rollout of seven nodes with `updated` on the new revision. */
function counts(ds: V1DaemonSet, updated: number): Record<string, unknown> {
  return {
    observedGeneration: ds.metadata?.generation ?? 1,
    desiredNumberScheduled: 7,
    currentNumberScheduled: 7,
    numberMisscheduled: 0,
    numberReady: 7,
    numberAvailable: 7,
    updatedNumberScheduled: updated,
  };
}

const pausedAt = (hash: string): RolloutRecord => ({
  revision: hash,
  phase: 'Paused',
  step: 1,
  stepStartedAt: '2026-01-02T00:00:00Z',
  domain: 'a',
  updatedNodes: 1,
});

const haltedAt = (hash: string): RolloutRecord => ({
  revision: hash,
  phase: 'Halted',
  step: 0,
  stepStartedAt: '2026-01-02T00:00:00Z',
  domain: 'a',
  updatedNodes: 1,
  failedNodes: [
    { node: 'node-00001', reason: 'PodNotAvailable', message: 'not available', at: '2026-01-02T00:05:00Z' },
  ],
  haltedAt: '2026-01-02T00:05:00Z',
  haltReason: 'TooManyFailedNodes',
  haltMessage: '1 nodes failed, at most 0 tolerated: node-00001 (PodNotAvailable: not available)',
});

async function until<T>(what: string, look: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = await look();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.runIf(binary)('kubectl everynode rollout on safe rollouts', () => {
  it(
    'resume ends the pause step the record holds, naming it, in the request that also clears paused',
    async () => {
      for (const kind of KINDS) {
        const { hash } = await createDaemonSet(kind, 'pausing', { paused: kind.type === 'eds' });
        await writeRecord(kind, 'pausing', pausedAt(hash));
        const patches = pluginPatches();
        expect(await plugin(['resume', `${kind.type}/pausing`])).toEqual({
          code: 0,
          stdout: `${kind.printed}/pausing resumed\n`,
          stderr: '',
        });
        expect(pluginPatches()).toBe(patches + 1);
        const ds = await read(kind, 'pausing');
        expect(ds.metadata?.annotations?.['everynode.dev/rollout-resume']).toBe(`${hash}/1`);
        expect(ds.metadata?.annotations?.['everynode.dev/paused']).toBeUndefined();
        expect(ds.spec?.updateStrategy?.rollingUpdate).not.toHaveProperty('paused');
        expect(await plugin(['resume', `${kind.type}/pausing`])).toEqual({
          code: 0,
          stdout: `${kind.printed}/pausing already resumed\n`,
          stderr: '',
        });
        // A record of another template holds no step of this one.
        await createDaemonSet(kind, 'stale-pause');
        await writeRecord(kind, 'stale-pause', pausedAt('oldhash'));
        expect((await plugin(['resume', `${kind.type}/stale-pause`])).stdout).toBe(
          `${kind.printed}/stale-pause already resumed\n`,
        );
      }
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'retry lifts a halt by naming it, and refuses a rollout that is not halted with exit code 1',
    async () => {
      for (const kind of KINDS) {
        const { hash } = await createDaemonSet(kind, 'halting');
        await writeRecord(kind, 'halting', haltedAt(hash));
        expect(await plugin(['retry', `${kind.type}/halting`])).toEqual({
          code: 0,
          stdout: `${kind.printed}/halting retried\n`,
          stderr: '',
        });
        expect((await read(kind, 'halting')).metadata?.annotations?.['everynode.dev/rollout-retry']).toBe(
          `${hash}/2026-01-02T00:05:00Z`,
        );
        const steady = await createDaemonSet(kind, 'steady');
        await writeRecord(kind, 'steady', pausedAt(steady.hash));
        await createDaemonSet(kind, 'stale-halt');
        await writeRecord(kind, 'stale-halt', haltedAt('oldhash'));
        expect(await plugin(['retry', `${kind.type}/steady`])).toEqual({
          code: 1,
          stdout: '',
          stderr: `error: ${kind.resource} "steady" is not halted\n`,
        });
        expect(await plugin(['retry', `${kind.type}/stale-halt`, `${kind.type}/missing`])).toEqual({
          code: 1,
          stdout: '',
          stderr: `Error from server (NotFound): ${kind.resource} "missing" not found\nerror: ${kind.resource} "stale-halt" is not halted\n`,
        });
      }
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'status names the step and the domain as they change, and ends with exit code 1 on a halt',
    async () => {
      await Promise.all(
        KINDS.map(async (kind) => {
          const { ds, hash } = await createDaemonSet(kind, 'following');
          await writeStatus(kind, 'following', counts(ds, 1));
          await writeRecord(kind, 'following', pausedAt(hash));
          const waiting = (where: string, updated: number) =>
            `Waiting for daemon set "following" rollout to finish: ${where}: ${updated} out of 7 new pods have been updated...\n`;
          const pauseLine = waiting('step 2 of 3 (pause until resumed), zone a', 1);
          expect(await plugin(['status', `${kind.type}/following`, '--watch=false'])).toEqual({
            code: 0,
            stdout: pauseLine,
            stderr: '',
          });
          const follower = start(['everynode', 'rollout', 'status', `${kind.type}/following`]);
          await until('the follower printed its first line', () =>
            follower.output().includes(pauseLine) ? true : undefined,
          );
          const stepLine = waiting('step 3 of 3 (50% of nodes), zone a', 3);
          await writeStatus(kind, 'following', counts(ds, 3));
          await writeRecord(kind, 'following', {
            ...pausedAt(hash),
            phase: 'Progressing',
            step: 2,
            updatedNodes: 3,
          });
          await until('the follower printed the next step', () =>
            follower.output().includes(stepLine) ? true : undefined,
          );
          await writeRecord(kind, 'following', { ...haltedAt(hash), step: 2, updatedNodes: 3 });
          const result = await follower.done;
          expect(result.code).toBe(1);
          expect(result.stderr).toBe(
            `error: daemon set "following" rollout halted: ${haltedAt(hash).haltMessage}\n`,
          );
          const lines = result.stdout.split(/(?<=\n)/);
          expect(lines[0]).toBe(pauseLine);
          expect(lines.at(-1)).toBe(stepLine);
        }),
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'plan prints the order of the steps, the zones and the batches of seven nodes, and the time they take',
    async () => {
      const ready = (name: string) =>
        until(`the 7 pods of ${name} are ready`, async () => {
          const pods = await core.listNamespacedPod({ namespace: 'default', labelSelector: `app=${name}` });
          const isReady = pods.items.filter((p) =>
            p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
          );
          return isReady.length === 7 ? true : undefined;
        });
      const patches = pluginPatches();
      const plans = await Promise.all(
        KINDS.map(async (kind) => {
          const name = `planned-${kind.type}`;
          const { ds, hash } = await createDaemonSet(kind, name);
          // The eds rollout holds at its pause, node-00001 on the new revision; the ds one has not begun.
          for (let i = 1; i <= 7; i++) {
            const revision = kind.type === 'eds' && i === 1 ? hash : 'oldhash';
            const body = daemonPodFor(ds, `node-0000${i}`, revision);
            // An old pod is of an older template generation than the one apps/v1 stamps on the DaemonSet.
            if (revision === 'oldhash') delete body.metadata?.labels?.['pod-template-generation'];
            await core.createNamespacedPod({ namespace: 'default', body });
          }
          if (kind.type === 'eds') await writeRecord(kind, name, pausedAt(hash));
          await ready(name);
          return { hash, result: await plugin(['plan', `${kind.type}/${name}`, '--pod-ready-seconds=20']) };
        }),
      );
      const header = (printed: string, hash: string) =>
        `${printed}, revision ${hash}: 7 nodes; steps: 1 node, pause until resumed, 50% of nodes; topologyKey: ${ZONE}; maxUnavailable: 2; maxSurge: 0; minReadySeconds: 0; pod ready: 20s\n`;
      const rest = [
        'step 3: 3 nodes (zone a) in 2 batches of ≤2: node-00002, node-00003, node-00004\n',
        'then zone b: 3 nodes in 2 batches of ≤2: node-00005, node-00006, node-00007\n',
      ].join('');
      const [eds, apps] = plans as [(typeof plans)[number], (typeof plans)[number]];
      expect(eds.result).toEqual({
        code: 0,
        stdout:
          header('daemonset.everynode.dev/planned-eds', eds.hash) +
          `rollout Paused at step 2 of 3, zone a: 1 of 7 nodes run revision ${eds.hash}; the rest would go as follows:\n` +
          'step 2: pause until resumed (holds now)\n' +
          rest +
          'expected time: 1m20s = 4 batches × 20s (pod ready 20s + minReadySeconds 0s) + 0s of timed pauses\n' +
          'waits for a person to resume: step 2\n',
        stderr: '',
      });
      expect(apps.result).toEqual({
        code: 0,
        stdout:
          header('daemonset.apps/planned-ds', apps.hash) +
          `0 of 7 nodes run revision ${apps.hash}; the rollout would go as follows:\n` +
          'step 1: 1 node (zone a): node-00001\n' +
          'step 2: pause until resumed\n' +
          rest +
          'expected time: 1m40s = 5 batches × 20s (pod ready 20s + minReadySeconds 0s) + 0s of timed pauses\n' +
          'waits for a person to resume: step 2\n',
        stderr: '',
      });
      // Nothing was written.
      expect(pluginPatches()).toBe(patches);
      expect(await plugin(['plan', 'eds/planned-eds', '--pod-ready-seconds=-1'])).toEqual({
        code: 1,
        stdout: '',
        stderr: 'error: pod-ready-seconds must be a non-negative integer: -1\n',
      });
    },
    TEST_TIMEOUT_MS,
  );
});
