/**
 * `everynode migrate`, both ways, as a user runs it: its own process (bin/everynode.js) against the
 * simulated cluster, with everynode's pipeline managing everynode.dev/v1 and the test playing
 * kube-controller-manager's DaemonSet controller for apps/v1 (test/support/kcm-daemon-set-controller.ts,
 * ported from upstream: its revisions, pods, hash labels, adoption and byte-for-byte Match). Each
 * migration is killed with SIGKILL after every one of its writes and started again; every pod must
 * keep its UID, no pod may be created or deleted by either controller, the history must come along
 * and `rollout status` must settle. Between the two, everynode rolls the DaemonSet once, so the way
 * back hands kube-controller-manager a revision everynode wrote.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KcmController, startKcmDaemonSetController } from '../support/kcm-daemon-set-controller.ts';
import { kubectlBinary, type PipelineWorld, startPipelineWorld } from '../support/pipeline-harness.ts';

const NAMESPACE = 'migrate';
/** More than six: the simulated cluster's generated nodes, all alike, each running the daemon. */
const NODES = 7;
const EVERYNODE = fileURLToPath(new URL('../../bin/everynode.js', import.meta.url));
const PLUGIN = fileURLToPath(new URL('../../bin/kubectl-everynode.js', import.meta.url));

/** The agent DaemonSet as a user applies it for the built-in controller. */
function agent(image: string, name = 'agent') {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace: NAMESPACE, labels: { team: 'platform' } },
    spec: {
      selector: { matchLabels: { app: name } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'agent', image, env: [{ name: 'MODE', value: 'a<b&c' }] }] },
      },
    },
  };
}

/** The outcome of one `everynode migrate` process. */
interface Outcome {
  readonly code: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
}

describe.runIf(kubectlBinary)('everynode migrate between apps/v1 and everynode.dev/v1', () => {
  let world: PipelineWorld;
  let kcm: KcmController;

  /** Runs `everynode migrate ARGS` as its own process, killed with SIGKILL after `killAfter` when given. */
  const migrate = (args: readonly string[], options: { killAfter?: string; kubeconfig?: string } = {}) =>
    new Promise<Outcome>((resolve) => {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        KUBECONFIG: options.kubeconfig ?? world.kubeconfigPath,
        ...(options.killAfter ? { EVERYNODE_MIGRATE_KILL_AFTER: options.killAfter } : {}),
      };
      execFile(
        process.execPath,
        [EVERYNODE, 'migrate', ...args, '-n', NAMESPACE, '--timeout', '60'],
        { env, timeout: 90_000 },
        (error, stdout, stderr) => {
          const failure = error as (Error & { code?: number; signal?: string }) | null;
          resolve({
            code: failure ? (failure.code ?? null) : 0,
            signal: failure?.signal ?? null,
            stdout,
            stderr,
          });
        },
      );
    });
  const plugin = async (args: readonly string[]): Promise<string> => {
    const env = { ...process.env, KUBECONFIG: world.kubeconfigPath, HOME: world.stateDir };
    return (await promisify(execFile)(process.execPath, [PLUGIN, ...args], { env, timeout: 60_000 })).stdout;
  };
  const json = async <T>(args: readonly string[]): Promise<T> =>
    JSON.parse(await world.kubectl([...args, '-o', 'json'])) as T;
  const pods = async (app = 'agent') =>
    (await json<{ items: V1Pod[] }>(['get', 'pods', '-n', NAMESPACE, '-l', `app=${app}`])).items;
  const podIdentities = async () =>
    (await pods())
      .map((p) => `${p.metadata?.uid}@${p.spec?.nodeName}#${p.metadata?.deletionTimestamp ?? ''}`)
      .sort();
  const owners = async (app = 'agent') =>
    new Set((await pods(app)).map((p) => p.metadata?.ownerReferences?.[0]?.apiVersion ?? '-'));

  /** Runs the migration, killed after each of `steps` in turn, then to its end; returns the last run's output. */
  async function migrateThroughKills(args: readonly string[], steps: readonly string[]): Promise<string> {
    for (const step of steps) {
      const killed = await migrate(args, { killAfter: step });
      expect(killed.signal, `${step}: ${killed.stdout}${killed.stderr}`).toBe('SIGKILL');
    }
    const last = await migrate(args);
    expect(last.code, last.stdout + last.stderr).toBe(0);
    return last.stdout;
  }

  beforeAll(async () => {
    world = await startPipelineWorld({ managedKind: 'everynode.dev/v1', secured: true, nodes: NODES });
    await world.kubectl(['create', 'namespace', NAMESPACE]);
    kcm = startKcmDaemonSetController({ kubeconfig: world.kubeconfigPath, namespace: NAMESPACE });
  });
  afterAll(async () => {
    await kcm?.stop();
    await world?.stop();
  });

  it('moves a DaemonSet the built-in controller runs to everynode and back, no pod restarted', async () => {
    await world.kubectl(['apply', '-f', '-'], JSON.stringify(agent('busybox:1.36')));
    await world.kubectl(['rollout', 'status', 'ds/agent', '-n', NAMESPACE, '--timeout=60s']);
    await world.kubectl(['apply', '-f', '-'], JSON.stringify(agent('busybox:1.37')));
    await world.kubectl(['rollout', 'status', 'ds/agent', '-n', NAMESPACE, '--timeout=60s']);
    await world.until('the old pods are gone', async () => (await pods()).length === NODES);
    const before = await podIdentities();
    const kcmBefore = { ...kcm.counters };

    const plan = await migrate(['ds/agent', '--dry-run']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/1\. record the migration .* its current revision 2 .* 7 pods/);
    expect(plan.stdout).toMatch(
      /delete daemonsets\.apps "agent" in namespace "migrate" \(uid .*\) with propagationPolicy Orphan/,
    );
    expect(plan.stdout).toMatch(/accepts daemonsets\.everynode\.dev "agent" .*: yes/);
    expect(await owners()).toEqual(new Set(['apps/v1']));

    const forward = await migrateThroughKills(
      ['ds/agent'],
      ['record', 'delete-source', 'create-target', 'forget-record'],
    );
    expect(forward).toMatch(/already migrated from apps\/v1/);
    await world.quiet();
    expect(await podIdentities()).toEqual(before);
    expect(await owners()).toEqual(new Set(['everynode.dev/v1']));
    expect(world.pipeline.counters.get('PodsCreated')).toBe(0);
    expect(world.pipeline.counters.get('PodsDeleted')).toBe(0);
    expect(kcm.counters).toEqual(kcmBefore);
    expect(await plugin(['-n', NAMESPACE, 'rollout', 'status', 'eds/agent', '--timeout=30s'])).toMatch(
      /successfully rolled out/,
    );
    const history = await plugin(['-n', NAMESPACE, 'rollout', 'history', 'eds/agent']);
    expect(history).toMatch(/^1\s/m);
    expect(history).toMatch(/^2\s/m);
    expect(await plugin(['-n', NAMESPACE, 'rollout', 'history', 'eds/agent', '--revision=1'])).toMatch(
      /busybox:1\.36/,
    );

    // A rollout under everynode makes a revision of its own, which kube-controller-manager must take back.
    await world.kubectl([
      'patch',
      'eds',
      'agent',
      '-n',
      NAMESPACE,
      '--type=json',
      '-p',
      '[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"busybox:1.38"}]',
    ]);
    await plugin(['-n', NAMESPACE, 'rollout', 'status', 'eds/agent', '--timeout=60s']);
    await world.until('the old pods are gone', async () => (await pods()).length === NODES);
    await world.quiet();
    const rolled = await podIdentities();
    const created = world.pipeline.counters.get('PodsCreated');

    const back = await migrateThroughKills(
      ['eds/agent', '--to', 'apps/v1'],
      ['record', 'delete-source', 'delete-revision', 'write-revision', 'create-target', 'forget-record'],
    );
    expect(back).toMatch(/already migrated from everynode\.dev\/v1/);
    await world.kubectl(['rollout', 'status', 'ds/agent', '-n', NAMESPACE, '--timeout=30s']);
    expect(await podIdentities()).toEqual(rolled);
    expect(await owners()).toEqual(new Set(['apps/v1']));
    expect(kcm.counters.podsCreated).toBe(kcmBefore.podsCreated);
    expect(kcm.counters.podsDeleted).toBe(kcmBefore.podsDeleted);
    expect(kcm.counters.revisionsCreated).toBe(kcmBefore.revisionsCreated);
    const kcmHistory = await world.kubectl(['rollout', 'history', 'ds/agent', '-n', NAMESPACE]);
    expect(kcmHistory).toMatch(/^1\s/m);
    expect(kcmHistory).toMatch(/^2\s/m);
    expect(kcmHistory).toMatch(/^3\s/m);
    expect(world.pipeline.counters.get('PodsCreated')).toBe(created);
  }, 240_000);

  it('refuses what it must before changing anything', async () => {
    const onDelete = (image: string) => {
      const ds = agent(image, 'taken');
      return { ...ds, spec: { ...ds.spec, updateStrategy: { type: 'OnDelete' } } };
    };
    const settled = async (generation: number) => {
      const ds = await json<{ status?: { observedGeneration?: number; numberReady?: number } }>([
        'get',
        'ds',
        'taken',
        '-n',
        NAMESPACE,
      ]);
      return ds.status?.observedGeneration === generation && ds.status.numberReady === NODES;
    };
    await world.kubectl(['apply', '-f', '-'], JSON.stringify(onDelete('busybox:1.36')));
    await world.until('kube-controller-manager runs the DaemonSet', () => settled(1), 30_000);

    const noRights = await migrate(['ds/taken'], { kubeconfig: world.identities?.router ?? '' });
    expect(noRights.code).toBe(1);
    expect(noRights.stderr).toMatch(
      /missing permissions in namespace "migrate", so nothing was changed: .*delete daemonsets\.apps/,
    );

    await kcm.stop();
    await world.kubectl(['apply', '-f', '-'], JSON.stringify(onDelete('busybox:1.37')));
    const unobserved = await migrate(['ds/taken']);
    expect(unobserved.code).toBe(1);
    expect(unobserved.stderr).toMatch(
      /in the middle of a rollout \(its controller has not yet acted on generation 2\)/,
    );
    kcm = startKcmDaemonSetController({ kubeconfig: world.kubeconfigPath, namespace: NAMESPACE });
    await world.until('kube-controller-manager observes the change', () => settled(2), 30_000);
    const midRollout = await migrate(['ds/taken']);
    expect(midRollout.code).toBe(1);
    expect(midRollout.stderr).toMatch(/7 of its 7 pods run an older revision than 2\): .* or pass --force/);
    const forced = await migrate(['ds/taken', '--dry-run', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toMatch(
      /--force: .* once everynode has adopted them it finishes the rollout to revision 2/,
    );

    const other = { matchLabels: { app: 'other' } };
    const eds = { ...agent('busybox:1.36', 'taken'), apiVersion: 'everynode.dev/v1' };
    const template = { ...eds.spec.template, metadata: { labels: other.matchLabels } };
    await world.kubectl(
      ['create', '-f', '-'],
      JSON.stringify({ ...eds, spec: { ...eds.spec, selector: other, template } }),
    );
    const taken = await migrate(['ds/taken', '--force']);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/daemonsets\.everynode\.dev "taken" in namespace "migrate" already exists/);
    const records = ['get', 'controllerrevisions', '-n', NAMESPACE, '-l', 'everynode.dev/migration-of'];
    expect((await json<{ items: unknown[] }>(records)).items).toEqual([]);
    expect(await owners('taken')).toEqual(new Set(['apps/v1']));
  }, 120_000);
});
