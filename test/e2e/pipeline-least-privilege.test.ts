import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type EverynodeFunction,
  everynodeFunctions,
  rbacObjectName,
} from '../../lib/kube/rbac/function-groups.ts';
import { rbacObjects } from '../../lib/kube/rbac/rbac-manifest.ts';
import { kubectlBinary, type PipelineWorld, startPipelineWorld } from '../support/pipeline-harness.ts';

/** The demo DaemonSet of test/fixtures/demo.yaml, named `name`: it runs on three of the seed nodes. */
function aDemo(name: string) {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace: 'kiada' },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'demo', image: 'busybox', command: ['sleep', 'infinity'] }] },
      },
    },
  };
}

/** `kubectl auth can-i <verb> <resource>` as `fn`'s own user: `yes` or `no`. */
function canI(world: PipelineWorld, fn: EverynodeFunction, verb: string, resource: string): Promise<string> {
  const kubeconfig = world.identities?.[fn];
  if (!kubectlBinary || !kubeconfig) return Promise.reject(new Error(`no kubectl or no identity for ${fn}`));
  const args = ['auth', 'can-i', verb, resource, '--all-namespaces'];
  return new Promise((resolve) => {
    execFile(
      kubectlBinary as string,
      args,
      { env: { ...process.env, HOME: world.stateDir, KUBECONFIG: kubeconfig }, timeout: 60_000 },
      // can-i exits 1 when the answer is no; its answer is on stdout either way.
      (error, stdout, stderr) => resolve(stdout.trim() || `${stderr} ${String(error)}`),
    );
  });
}

/** `kiada/<ds>@<node>` of the live pods of DaemonSet `name`, sorted. */
const podsOf = (world: PipelineWorld, name: string) =>
  world.placement().filter((p) => p.startsWith(`kiada/${name}@`));

describe.runIf(kubectlBinary)('the local pipeline under least privilege (apps/v1)', () => {
  let world: PipelineWorld;

  beforeAll(async () => {
    world = await startPipelineWorld({ managedKind: 'apps/v1', secured: true });
    await world.kubectl(['create', 'namespace', 'kiada']);
  });
  afterAll(async () => world?.stop());

  const cases: ReadonlyArray<{ fn: EverynodeFunction; verb: string; resource: string; answer: string }> = [
    { fn: 'relay', verb: 'watch', resource: 'pods', answer: 'yes' },
    { fn: 'relay', verb: 'create', resource: 'pods', answer: 'no' },
    { fn: 'router', verb: 'create', resource: 'pods', answer: 'no' },
    { fn: 'reconcile', verb: 'create', resource: 'pods', answer: 'yes' },
    ...everynodeFunctions.flatMap((fn) => [
      { fn, verb: 'get', resource: 'secrets', answer: 'no' },
      { fn, verb: 'create', resource: 'clusterrolebindings', answer: 'no' },
    ]),
  ];
  it.each(cases)('$fn may $verb $resource: $answer', async ({ fn, verb, resource, answer }) => {
    expect(await canI(world, fn, verb, resource)).toBe(answer);
  });

  /** Deletes `fn`'s ClusterRoleBinding: its user then has no rights beyond those of any user. */
  const revoke = (fn: EverynodeFunction) =>
    world.kubectl(['delete', 'clusterrolebinding', rbacObjectName(fn)]);
  /** Creates `fn`'s ClusterRoleBinding again, as the manifest renders it. */
  const restore = (fn: EverynodeFunction) => {
    const rbac = rbacObjects('apps/v1').find((o) => o.binding.metadata?.name === rbacObjectName(fn));
    return world.kubectl(['create', '-f', '-'], JSON.stringify(rbac?.binding));
  };
  // Unrevoked, pods are there within a second (pod start is 0.1 s at this time scale).
  const aWhile = () => new Promise((resolve) => setTimeout(resolve, 4_000));
  const onThreeNodes = (name: string) => [
    `kiada/${name}@cordoned-1`,
    `kiada/${name}@worker-1`,
    `kiada/${name}@worker-ssd`,
  ];

  it('reconcile creates pods as its own user: none while it is revoked, all once it is restored', async () => {
    await revoke('reconcile');
    await world.kubectl(['apply', '-f', '-'], JSON.stringify(aDemo('demo-a')));
    await aWhile();
    expect(podsOf(world, 'demo-a')).toEqual([]);
    await restore('reconcile');
    // A change of the DaemonSet triggers it again, whatever became of the refused work.
    await world.kubectl(['annotate', '-n', 'kiada', 'daemonset', 'demo-a', 'everynode.dev/test=restored']);
    await world.until('demo-a runs on its three nodes', () => podsOf(world, 'demo-a').length === 3, 30_000);
    expect(podsOf(world, 'demo-a')).toEqual(onThreeNodes('demo-a'));
  });

  it('the relay lists as its own user: it cannot start while revoked, and catches up once restored', async () => {
    await revoke('relay');
    // A watch already open outlives the revocation, as on a real API server: restart the relay.
    await world.pipeline.stopRelay();
    await expect(world.pipeline.startRelay()).rejects.toThrow();
    await world.kubectl(['apply', '-f', '-'], JSON.stringify(aDemo('demo-b')));
    await aWhile();
    expect(podsOf(world, 'demo-b')).toEqual([]);
    await restore('relay');
    await world.pipeline.startRelay();
    await world.until('demo-b runs on its three nodes', () => podsOf(world, 'demo-b').length === 3, 30_000);
    expect(podsOf(world, 'demo-b')).toEqual(onThreeNodes('demo-b'));
  });

  it('the router lists DaemonSets as its own user: a released pod is not adopted while it is revoked', async () => {
    const pod = world.pods('kiada').find((p) => p.owner === 'demo-a');
    if (!pod) throw new Error('demo-a has no pod');
    // No DaemonSet step still due (a status window, a node recount) may adopt it meanwhile.
    await world.quiet(30_000, { delayed: true });
    await revoke('router');
    // Released, the pod is an orphan: the router finds the DaemonSets of its namespace to adopt it.
    const release = [{ op: 'remove', path: '/metadata/ownerReferences' }];
    await world.kubectl([
      'patch',
      'pod',
      '-n',
      'kiada',
      pod.name,
      '--type=json',
      '-p',
      JSON.stringify(release),
    ]);
    await aWhile();
    const ownerOf = () => world.sim.store.get('pods', 'kiada', pod.name)?.metadata.ownerReferences?.[0]?.name;
    expect(ownerOf()).toBeUndefined();
    await restore('router');
    await world.kubectl(['label', 'pod', '-n', 'kiada', pod.name, 'everynode.dev/test=restored']);
    await world.until('demo-a adopted its pod again', () => ownerOf() === 'demo-a', 30_000);
    expect(ownerOf()).toBe('demo-a');
  });
});
