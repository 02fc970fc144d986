/**
 * The `kubectl-everynode` plugin end to end: the real kubectl runs it (`kubectl everynode …`, the
 * plugin linked on the PATH as npm links it) against `everynode run` managing everynode.dev/v1
 * DaemonSets, and its output is compared line by line with the real `kubectl rollout` on an
 * apps/v1 DaemonSet in the same state, under a second `everynode run --manage apps/v1` — names
 * normalised (`daemonset.everynode.dev` ↔ `daemonset.apps`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Watch } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import {
  type DaemonSetJson,
  type PluginCluster,
  type PluginWorld,
  type RunningTool,
  startPluginWorld,
  type ToolResult,
} from './plugin-world.ts';

/** Pods start and become ready in a tenth of a real cluster's time. */
const TIME_SCALE = 0.1;
const NAMESPACE = 'rollout';
const IMAGE = 'busybox:1.36';
const NEW_IMAGE = 'busybox:1.37';
const TEST_TIMEOUT_MS = 120_000;

let world: PluginWorld;

/** The parts of a kubeconfig file the tests rewrite. */
interface KubeconfigYaml {
  clusters: Array<{ name: string; cluster: Record<string, unknown> }>;
  users: Array<{ name: string }>;
  contexts: Array<{ name: string; context: Record<string, unknown> }>;
  'current-context': string;
}

beforeAll(async () => {
  world = await startPluginWorld(TIME_SCALE);
  await Promise.all(
    [world.eds, world.apps].map((cluster) => ok(cluster, ['create', 'namespace', NAMESPACE])),
  );
}, 120_000);

afterAll(() => world?.stop(), 30_000);

/** kubectl's text for an apps/v1 DaemonSet, from the plugin's for an everynode.dev/v1 one. */
function normalised(text: string): string {
  return text
    .replaceAll('daemonset.everynode.dev', 'daemonset.apps')
    .replaceAll('daemonsets.everynode.dev', 'daemonsets.apps');
}

/** Runs kubectl on `cluster` and expects exit code 0. */
async function ok(cluster: PluginCluster, args: readonly string[], stdin?: string): Promise<string> {
  const result = await cluster.kubectl(args, stdin === undefined ? {} : { stdin });
  expect(result, `kubectl ${args.join(' ')}`).toMatchObject({ code: 0 });
  return result.stdout;
}

/** `kubectl everynode -n rollout rollout …` on `cluster`. */
function plugin(cluster: PluginCluster, args: readonly string[]): Promise<ToolResult> {
  return cluster.kubectl(['everynode', '-n', NAMESPACE, 'rollout', ...args]);
}

/** The real `kubectl rollout … -n rollout` on `cluster`. */
function rollout(cluster: PluginCluster, args: readonly string[]): Promise<ToolResult> {
  return cluster.kubectl(['rollout', ...args, '-n', NAMESPACE]);
}

/** Creates the DaemonSet `name` (its pods on the three nodes that take them, one at a time). */
async function createDaemonSet(cluster: PluginCluster, name: string): Promise<void> {
  const manifest = {
    apiVersion: cluster.kind,
    kind: 'DaemonSet',
    metadata: { name, namespace: NAMESPACE },
    spec: {
      selector: { matchLabels: { app: name } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'main', image: IMAGE, command: ['sleep', 'infinity'] }] },
      },
    },
  };
  await ok(cluster, ['create', '-f', '-'], JSON.stringify(manifest));
}

/** Replaces the image of the DaemonSet `name` (kubectl set image knows no eds: a JSON patch). */
async function setImage(cluster: PluginCluster, name: string, image: string): Promise<void> {
  const patch = [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: image }];
  await ok(cluster, [
    '-n',
    NAMESPACE,
    'patch',
    cluster.type,
    name,
    '--type=json',
    '-p',
    JSON.stringify(patch),
  ]);
}

async function until<T>(what: string, look: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await look();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const observed = (ds: DaemonSetJson) => (ds.status?.observedGeneration ?? 0) >= ds.metadata.generation;

/** Waits until the DaemonSet's status has seen its spec and all its pods are updated and available. */
function settled(cluster: PluginCluster, name: string): Promise<DaemonSetJson> {
  return until(`${cluster.printed(name)} has rolled out`, async () => {
    const ds = await cluster.daemonSet(NAMESPACE, name);
    const { desiredNumberScheduled = 0, updatedNumberScheduled = 0, numberAvailable = 0 } = ds.status ?? {};
    const done = desiredNumberScheduled > 0 && updatedNumberScheduled === desiredNumberScheduled;
    return observed(ds) && done && numberAvailable === desiredNumberScheduled ? ds : undefined;
  });
}

/** Waits until the DaemonSet `name` has not changed for half a second. */
async function quiet(cluster: PluginCluster, name: string): Promise<void> {
  let last = '';
  await until(`${cluster.printed(name)} stops changing`, async () => {
    const version = (await cluster.daemonSet(NAMESPACE, name)).metadata.resourceVersion;
    const still = version === last;
    last = version;
    if (!still) await new Promise((resolve) => setTimeout(resolve, 500));
    return still ? true : undefined;
  });
}

/** A DaemonSet `name` on both clusters, rolled out. */
async function onBoth(name: string): Promise<void> {
  await Promise.all(
    [world.eds, world.apps].map((c) => createDaemonSet(c, name).then(() => settled(c, name))),
  );
}

/** Both clusters at once: the plugin on everynode.dev/v1 and whatever `apps` runs on apps/v1. */
async function compared(
  edsArgs: readonly string[],
  appsRun: (apps: PluginCluster) => Promise<ToolResult>,
): Promise<{ eds: ToolResult; apps: ToolResult }> {
  const [eds, apps] = await Promise.all([plugin(world.eds, edsArgs), appsRun(world.apps)]);
  return { eds: { ...eds, stdout: normalised(eds.stdout), stderr: normalised(eds.stderr) }, apps };
}

/**
 * True when `lines` are kubectl's waiting lines for a DaemonSet of 3 pods in the order a rollout
 * can produce them: pods updated (never fewer than before), then updated pods available (never
 * fewer), with `spec update to be observed` anywhere a spec changed.
 */
function inKubectlOrder(lines: readonly string[], name: string): boolean {
  const steps = lines
    .filter((line) => line !== 'Waiting for daemon set spec update to be observed...\n')
    .map((line) => {
      const updated = new RegExp(
        `^Waiting for daemon set "${name}" rollout to finish: (\\d) out of 3 new pods have been updated\\.\\.\\.\\n$`,
      ).exec(line);
      const available = new RegExp(
        `^Waiting for daemon set "${name}" rollout to finish: (\\d) of 3 updated pods are available\\.\\.\\.\\n$`,
      ).exec(line);
      return updated ? Number(updated[1]) : available ? 10 + Number(available[1]) : Number.NaN;
    });
  return steps.every((step, i) => !Number.isNaN(step) && (i === 0 || step >= (steps[i - 1] ?? 0)));
}

const rolledOut = (name: string) => `daemon set "${name}" successfully rolled out\n`;
const updatedLine = (name: string, updated: number) =>
  `Waiting for daemon set "${name}" rollout to finish: ${updated} out of 3 new pods have been updated...\n`;

// Each test has DaemonSets of its own: they run side by side, one's waits another's work.
describe.concurrent('kubectl everynode rollout', () => {
  it(
    'shows the status of a settled DaemonSet, in every form kubectl takes, as kubectl does',
    async () => {
      await onBoth('settled');
      // `TYPE NAME`, and a kubeconfig named on the command line only, whose current context points
      // nowhere: --context chooses the cluster, and the namespace is that context's.
      const config = parse(readFileSync(world.eds.kubeconfigPath, 'utf8')) as KubeconfigYaml;
      config.contexts = [
        ...config.contexts.map((c) => ({ ...c, context: { ...c.context, namespace: NAMESPACE } })),
        { name: 'elsewhere', context: { cluster: 'nowhere', user: config.users[0]?.name ?? '' } },
      ];
      config.clusters.push({ name: 'nowhere', cluster: { server: 'https://127.0.0.1:1' } });
      config['current-context'] = 'elsewhere';
      const variant = join(dirname(world.eds.kubeconfigPath), 'kubeconfig-elsewhere');
      writeFileSync(variant, stringify(config));
      const flags = ['--kubeconfig', variant, '--context', config.contexts[0]?.name ?? ''];
      const forms = (type: string, group: string) => [
        `${type}/settled`,
        `daemonset.${group}/settled`,
        `daemonsets.${group}/settled`,
      ];
      const [unsupported, unknown, named, [eds, apps]] = await Promise.all([
        // The reason for the plugin: kubectl's own rollout commands know the built-in kinds only.
        rollout(world.eds, ['status', 'eds/settled']),
        world.eds.kubectl(['everynode', 'frobnicate']),
        compared(['status', ...forms('eds', 'everynode.dev'), 'eds/missing'], (apps) =>
          rollout(apps, ['status', ...forms('ds', 'apps'), 'ds/missing']),
        ),
        Promise.all([
          world.eds.kubectl(['everynode', ...flags, 'rollout', 'status', 'eds', 'settled', '--watch=false'], {
            withoutKubeconfigEnv: true,
          }),
          rollout(world.apps, ['status', 'ds', 'settled', '--watch=false']),
        ]),
      ]);
      expect(unsupported.code).toBe(1);
      expect(unsupported.stderr).toContain(
        'no kind "DaemonSet" is registered for version "everynode.dev/v1"',
      );
      expect(unknown).toMatchObject({ code: 1, stdout: '' });
      expect(unknown.stderr).toBe('error: unknown command "frobnicate" for "kubectl everynode"\n');
      expect(named.eds).toEqual(named.apps);
      expect(named.apps).toEqual({
        code: 1,
        stdout: rolledOut('settled').repeat(3),
        stderr: 'Error from server (NotFound): daemonsets.apps "missing" not found\n',
      });
      expect(eds).toEqual(apps);
      expect(apps).toEqual({ code: 0, stdout: rolledOut('settled'), stderr: '' });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'holds a rollout by pause, times out on it as kubectl does, and follows it to the end once resumed',
    async () => {
      await onBoth('held');
      const paused = await compared(['pause', 'eds/held'], (apps) => plugin(apps, ['pause', 'ds/held']));
      expect(paused.eds).toEqual(paused.apps);
      expect(paused.apps).toEqual({ code: 0, stdout: 'daemonset.apps/held paused\n', stderr: '' });
      expect((await world.eds.daemonSet(NAMESPACE, 'held')).spec).toMatchObject({
        updateStrategy: { rollingUpdate: { paused: true } },
      });
      expect((await world.apps.daemonSet(NAMESPACE, 'held')).metadata.annotations).toMatchObject({
        'everynode.dev/paused': 'true',
      });
      // Pausing again changes nothing; meanwhile the image changes, and the rollout waits.
      const imageChanged = async () => {
        await Promise.all([world.eds, world.apps].map((c) => setImage(c, 'held', NEW_IMAGE)));
        await Promise.all(
          [world.eds, world.apps].map((c) =>
            until('the image change is observed', async () =>
              observed(await c.daemonSet(NAMESPACE, 'held')) ? true : undefined,
            ),
          ),
        );
        return compared(['status', 'eds/held', '--timeout=1s'], (apps) =>
          rollout(apps, ['status', 'ds/held', '--timeout=1s']),
        );
      };
      const [pausedAgain, timedOut] = await Promise.all([
        plugin(world.eds, ['pause', 'eds/held']),
        imageChanged(),
      ]);
      expect(pausedAgain).toEqual({
        code: 0,
        stdout: 'daemonset.everynode.dev/held already paused\n',
        stderr: '',
      });
      expect(timedOut.eds).toEqual(timedOut.apps);
      expect(timedOut.apps).toEqual({
        code: 1,
        stdout: updatedLine('held', 0),
        stderr: 'error: timed out waiting for the condition\n',
      });

      // Followers started while nothing moves, so the plugin and kubectl on the same apps/v1
      // DaemonSet see the same watch events from then on.
      await quiet(world.apps, 'held');
      const followers: RunningTool[] = [
        world.eds.start(['everynode', '-n', NAMESPACE, 'rollout', 'status', 'eds/held']),
        world.apps.start(['rollout', 'status', 'ds/held', '-n', NAMESPACE]),
        world.apps.start(['everynode', '-n', NAMESPACE, 'rollout', 'status', 'ds/held']),
      ];
      await until('every follower has printed its first line', async () =>
        followers.every((f) => f.output().includes(updatedLine('held', 0))) ? true : undefined,
      );
      const resumed = await compared(['resume', 'eds/held'], (apps) => plugin(apps, ['resume', 'ds/held']));
      expect(resumed.eds).toEqual(resumed.apps);
      expect(resumed.apps).toEqual({ code: 0, stdout: 'daemonset.apps/held resumed\n', stderr: '' });
      const [resumedAgain, edsFollower, kubectlFollower, appsFollower] = await Promise.all([
        plugin(world.eds, ['resume', 'eds/held']),
        ...followers.map((f) => f.done),
      ]);
      expect(resumedAgain).toEqual({
        code: 0,
        stdout: 'daemonset.everynode.dev/held already resumed\n',
        stderr: '',
      });
      expect(appsFollower).toEqual(kubectlFollower);
      for (const result of [edsFollower, kubectlFollower]) {
        expect(result?.code).toBe(0);
        expect(result?.stderr).toBe('');
        const lines = result?.stdout.split(/(?<=\n)/) ?? [];
        expect(lines[0]).toBe(updatedLine('held', 0));
        expect(lines.at(-1)).toBe(rolledOut('held'));
        expect(inKubectlOrder(lines.slice(0, -1), 'held'), result?.stdout).toBe(true);
      }
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'prints the history of two revisions and the pod template of each as kubectl does',
    async () => {
      await onBoth('history');
      await Promise.all(
        [world.eds, world.apps].map(async (c) => {
          await ok(c, [
            '-n',
            NAMESPACE,
            'annotate',
            c.type,
            'history',
            'kubernetes.io/change-cause=image 1.37',
          ]);
          await setImage(c, 'history', NEW_IMAGE);
          await settled(c, 'history');
        }),
      );
      const table = await compared(['history', 'eds/history'], (apps) =>
        rollout(apps, ['history', 'ds/history']),
      );
      expect(table.eds).toEqual(table.apps);
      expect(table.apps.stdout).toBe(
        'daemonset.apps/history \nREVISION  CHANGE-CAUSE\n1         <none>\n2         image 1.37\n\n',
      );
      for (const revision of [1, 2]) {
        const template = await compared(['history', 'eds/history', `--revision=${revision}`], (apps) =>
          rollout(apps, ['history', 'ds/history', `--revision=${revision}`]),
        );
        expect(template.eds).toEqual(template.apps);
        expect(template.apps.stdout).toContain(`    Image:\t${revision === 1 ? IMAGE : NEW_IMAGE}\n`);
      }
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'undoes a rollout to the previous revision and back, with the messages of kubectl',
    async () => {
      await onBoth('undo');
      await Promise.all(
        [world.eds, world.apps].map((c) => setImage(c, 'undo', NEW_IMAGE).then(() => settled(c, 'undo'))),
      );
      const image = async (c: PluginCluster) =>
        (await settled(c, 'undo')).spec.template.spec.containers[0]?.image;

      const back = await compared(['undo', 'eds/undo'], (apps) => rollout(apps, ['undo', 'ds/undo']));
      expect(back.eds).toEqual(back.apps);
      expect(back.apps).toEqual({ code: 0, stdout: 'daemonset.apps/undo rolled back\n', stderr: '' });
      expect(await image(world.eds)).toBe(IMAGE);
      expect(await image(world.apps)).toBe(IMAGE);
      const history = await compared(['history', 'eds/undo'], (apps) =>
        rollout(apps, ['history', 'ds/undo']),
      );
      expect(history.eds).toEqual(history.apps);
      expect(history.apps.stdout).toBe(
        'daemonset.apps/undo \nREVISION  CHANGE-CAUSE\n2         <none>\n3         <none>\n\n',
      );

      const forth = await compared(['undo', 'eds/undo'], (apps) => rollout(apps, ['undo', 'ds/undo']));
      expect(forth.eds).toEqual(forth.apps);
      expect(await image(world.eds)).toBe(NEW_IMAGE);

      // kubectl compares the revision's bytes with its own encoding of the template, which differs
      // from the API server's JSON in its `creationTimestamp: null`: the plugin compares the
      // templates, as kubectl does for revisions kube-controller-manager wrote.
      const [unknown, skipped] = await Promise.all([
        compared(['undo', 'eds/undo', '--to-revision=9'], (apps) =>
          rollout(apps, ['undo', 'ds/undo', '--to-revision=9']),
        ),
        plugin(world.eds, ['undo', 'eds/undo', '--to-revision=4']),
      ]);
      expect(unknown.eds).toEqual(unknown.apps);
      expect(unknown.apps).toEqual({
        code: 1,
        stdout: '',
        stderr: 'error: unable to find specified revision 9 in history\n',
      });
      expect(skipped).toEqual({
        code: 0,
        stdout:
          'daemonset.everynode.dev/undo skipped rollback (current template already matches revision 4)\n',
        stderr: '',
      });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'restarts every pod, never more unavailable at once than maxUnavailable allows',
    async () => {
      await onBoth('restart');
      const before = await world.eds.core.listNamespacedPod({
        namespace: NAMESPACE,
        labelSelector: 'app=restart',
      });
      const nodes = new Set(before.items.map((pod) => pod.spec?.nodeName ?? ''));
      expect(nodes.size).toBe(3);
      // Every pod as the watch saw it last, by uid: its node and whether it serves.
      const pods = new Map<string, { node: string; available: boolean }>();
      const isReady = (conditions: ReadonlyArray<{ type: string; status: string }> | undefined) =>
        conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
      for (const pod of before.items) {
        pods.set(pod.metadata?.uid ?? '', {
          node: pod.spec?.nodeName ?? '',
          available: isReady(pod.status?.conditions),
        });
      }
      let mostUnavailable = 0;
      const watch = await new Watch(world.eds.kubeConfig).watch(
        `/api/v1/namespaces/${NAMESPACE}/pods`,
        { labelSelector: 'app=restart', resourceVersion: before.metadata?.resourceVersion ?? '' },
        (type, pod) => {
          if (type === 'DELETED') pods.delete(pod.metadata.uid);
          else {
            const available = isReady(pod.status?.conditions) && !pod.metadata.deletionTimestamp;
            pods.set(pod.metadata.uid, { node: pod.spec?.nodeName ?? '', available });
          }
          const serving = new Set([...pods.values()].filter((p) => p.available).map((p) => p.node));
          mostUnavailable = Math.max(mostUnavailable, [...nodes].filter((node) => !serving.has(node)).length);
        },
        () => undefined,
      );
      try {
        const restarted = await compared(['restart', 'eds/restart'], (apps) =>
          rollout(apps, ['restart', 'ds/restart']),
        );
        expect(restarted.eds).toEqual(restarted.apps);
        expect(restarted.apps).toEqual({ code: 0, stdout: 'daemonset.apps/restart restarted\n', stderr: '' });
        const ds = await settled(world.eds, 'restart');
        const stamp = ds.spec.template.metadata?.annotations?.['kubectl.kubernetes.io/restartedAt'] ?? '';
        expect(stamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)$/);
        const after = await world.eds.core.listNamespacedPod({
          namespace: NAMESPACE,
          labelSelector: 'app=restart',
        });
        const live = after.items.filter((pod) => !pod.metadata?.deletionTimestamp);
        expect(live.map((pod) => pod.metadata?.annotations?.['kubectl.kubernetes.io/restartedAt'])).toEqual([
          stamp,
          stamp,
          stamp,
        ]);
        const oldUids = new Set(before.items.map((pod) => pod.metadata?.uid));
        expect(live.filter((pod) => oldUids.has(pod.metadata?.uid))).toEqual([]);
        expect(mostUnavailable).toBe(1);
      } finally {
        watch.abort();
      }
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "refuses an empty name, an unknown context, an unknown subcommand and a bad --request-timeout in kubectl's words",
    async () => {
      await onBoth('timeouts');
      const cases: Array<{ eds: string[]; ds: string[] }> = [
        { eds: ['status', 'eds/'], ds: ['status', 'ds/'] },
        { eds: ['status', '/timeouts'], ds: ['status', '/timeouts'] },
        { eds: ['status', 'eds/a/b'], ds: ['status', 'ds/a/b'] },
        {
          eds: ['status', 'eds/timeouts', '--context', 'nope'],
          ds: ['status', 'ds/timeouts', '--context', 'nope'],
        },
        { eds: ['frobnicate', 'timeouts'], ds: ['frobnicate', 'timeouts'] },
        {
          eds: ['status', 'eds/timeouts', '--request-timeout', 'abc'],
          ds: ['status', 'ds/timeouts', '--request-timeout', 'abc'],
        },
        {
          eds: ['status', 'eds/timeouts', '--request-timeout=-1'],
          ds: ['status', 'ds/timeouts', '--request-timeout=-1'],
        },
        {
          eds: ['status', 'eds/timeouts', '--request-timeout', '5s', '--watch=false'],
          ds: ['status', 'ds/timeouts', '--request-timeout', '5s', '--watch=false'],
        },
        {
          eds: ['status', 'eds/timeouts', '--request-timeout=10'],
          ds: ['status', 'ds/timeouts', '--request-timeout=10'],
        },
        {
          eds: ['status', 'eds/timeouts', '--request-timeout=0'],
          ds: ['status', 'ds/timeouts', '--request-timeout=0'],
        },
      ];
      for (const { eds, ds } of cases) {
        const both = await compared(eds, (apps) => rollout(apps, ds));
        const apps = {
          ...both.apps,
          stderr: both.apps.stderr.replaceAll("'kubectl rollout", "'kubectl everynode rollout"),
        };
        expect(both.eds, `kubectl everynode rollout ${eds.join(' ')}`).toEqual(apps);
      }
      const rolled = await compared(['status', 'eds/timeouts', '--request-timeout', '5s'], (apps) =>
        rollout(apps, ['status', 'ds/timeouts', '--request-timeout', '5s']),
      );
      expect(rolled.apps).toEqual({ code: 0, stdout: rolledOut('timeouts'), stderr: '' });
    },
    TEST_TIMEOUT_MS,
  );
});
