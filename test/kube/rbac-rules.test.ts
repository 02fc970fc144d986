/**
 * Each verb of each function's rules is needed: against the RBAC-enforcing simulator, with that
 * verb removed from the rendered manifest, a named capability of the function fails with 403, and
 * with the full manifest it works. The table is rule → capability → the KubePort call (the one the
 * named runtime code makes) that proves it, and covers every verb the manifest renders.
 */
import type { V1ClusterRole } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_MANAGED_KIND } from '../../lib/kube/managed-kind.ts';
import { eventFor } from '../../lib/kube/operations/event-for.ts';
import type { EverynodeFunction } from '../../lib/kube/rbac/function-groups.ts';
import { rbacObjects } from '../../lib/kube/rbac/rbac-manifest.ts';
import { WATCHED_POD_SELECTOR } from '../../lib/relay/watches/resource-watch.ts';
import {
  aNewPod,
  type FunctionRbacSim,
  mayBlockOwnerDeletion,
  meta,
  outcome,
  startFunctionRbacSim,
  watchOnce,
} from '../support/function-rbac-sim.ts';

const kind = DEFAULT_MANAGED_KIND;
const managed = 'everynode.dev';

interface Case {
  readonly fn: EverynodeFunction;
  /** The rule's API group and resource, and the verb removed. */
  readonly group: string;
  readonly resource: string;
  readonly verb: string;
  /** What the function cannot do without it, and where its code does it. */
  readonly capability: string;
  readonly call: (s: FunctionRbacSim) => Promise<unknown>;
}

const relay = (
  capability: string,
  group: string,
  resource: string,
  verb: string,
  call: Case['call'],
): Case => ({
  fn: 'relay',
  group,
  resource,
  verb,
  capability,
  call,
});

const cases: Case[] = [
  relay('reads the cluster identity at start (relay.ts)', '', 'namespaces', 'get', (s) =>
    s.kube.relay.getClusterIdentity(),
  ),
  relay('lists nodes to start their watch (watches/resource-watch.ts)', '', 'nodes', 'list', (s) =>
    s.kube.relay.listNodes(),
  ),
  relay('watches nodes (watches/resource-watch.ts)', '', 'nodes', 'watch', (s) =>
    watchOnce(s.kube.relay, 'nodes'),
  ),
  relay('lists the daemon pods (watches/resource-watch.ts)', '', 'pods', 'list', (s) =>
    s.kube.relay.listPods({ labelSelector: WATCHED_POD_SELECTOR }),
  ),
  relay('watches pods (watches/resource-watch.ts)', '', 'pods', 'watch', (s) =>
    watchOnce(s.kube.relay, 'pods'),
  ),
  relay('lists the managed DaemonSets (watches/resource-watch.ts)', managed, 'daemonsets', 'list', (s) =>
    s.kube.relay.listDaemonSets(),
  ),
  relay('watches the managed DaemonSets (watches/resource-watch.ts)', managed, 'daemonsets', 'watch', (s) =>
    watchOnce(s.kube.relay, 'daemonsets'),
  ),
  relay(
    'lists ControllerRevisions for hints (watches/resource-watch.ts)',
    'apps',
    'controllerrevisions',
    'list',
    (s) => s.kube.relay.listControllerRevisions(undefined),
  ),
  relay(
    'watches ControllerRevisions (watches/resource-watch.ts)',
    'apps',
    'controllerrevisions',
    'watch',
    (s) => watchOnce(s.kube.relay, 'controllerrevisions'),
  ),
  ...routerAndReconcileCases(),
];

function routerAndReconcileCases(): Case[] {
  const rec = (
    capability: string,
    group: string,
    resource: string,
    verb: string,
    call: Case['call'],
  ): Case => ({
    fn: 'reconcile',
    group,
    resource,
    verb,
    capability,
    call,
  });
  return [
    {
      fn: 'router',
      group: '',
      resource: 'nodes',
      verb: 'list',
      capability: 'finds a node by providerID (router-ec2.ts)',
      call: (s) => s.kube.router.listNodes({ allowStale: true }),
    },
    {
      fn: 'router',
      group: managed,
      resource: 'daemonsets',
      verb: 'list',
      capability: 'fans a resync out to the DaemonSets (router-resync.ts)',
      call: (s) => s.kube.router.listDaemonSets({ allowStale: true }),
    },
    rec('reads the node of a pair (pair-reader.ts)', '', 'nodes', 'get', (s) =>
      s.kube.reconcile.getNode('n1'),
    ),
    rec('lists nodes for placement (daemon-set-step/daemon-set-step.ts)', '', 'nodes', 'list', (s) =>
      s.kube.reconcile.listNodes({ allowStale: true }),
    ),
    rec('lifts a node readiness gate (node-gates/gate-step.ts)', '', 'nodes', 'patch', (s) => {
      const node = s.sim.store.get('nodes', undefined, 'n1');
      return s.kube.reconcile.patchNodeGate('n1', node?.metadata?.resourceVersion ?? '', []);
    }),
    rec(
      'sets the DaemonSetsReady node condition (node-gates/gate-step.ts)',
      '',
      'nodes/status',
      'patch',
      (s) =>
        s.kube.reconcile.patchNodeCondition('n1', {
          type: 'everynode.dev/DaemonSetsReady',
          status: 'True',
          reason: 'DaemonSetsReady',
          message: 'every gating DaemonSet that should run here has an available pod',
          lastHeartbeatTime: new Date(),
          lastTransitionTime: new Date(),
        }),
    ),
    rec('lists the pods of a node (node-step/node-step.ts)', '', 'pods', 'list', (s) =>
      s.kube.reconcile.listPods({ fieldSelector: 'spec.nodeName=n1' }),
    ),
    rec('catches the kept node table up (read-nodes.ts)', '', 'nodes', 'watch', (s) =>
      watchOnce(s.kube.reconcile, 'nodes'),
    ),
    rec('catches a kept pod LIST up (catch-up-pods.ts)', '', 'pods', 'watch', (s) =>
      watchOnce(s.kube.reconcile, 'pods'),
    ),
    rec('creates a daemon pod (action-executor.ts)', '', 'pods', 'create', (s) =>
      s.kube.reconcile.createPod(aNewPod('p-new')),
    ),
    rec('deletes a daemon pod with preconditions (action-executor.ts)', '', 'pods', 'delete', (s) =>
      s.kube.reconcile.deletePod(meta(s, 'pDelete')),
    ),
    rec('adopts an orphan pod (claim-pods.ts)', '', 'pods', 'patch', (s) => {
      const owner = meta(s, 'ds');
      const ref = {
        apiVersion: kind,
        kind: 'DaemonSet',
        name: owner.name,
        uid: owner.uid,
        controller: true,
        blockOwnerDeletion: true,
      };
      return s.kube.reconcile.patchPodOwnerReferences({ ...meta(s, 'pAdopt'), ownerReferences: [ref] });
    }),
    rec('resizes a daemon pod in place (in-place-update.ts)', '', 'pods/resize', 'patch', (s) => {
      const pod = meta(s, 'pAdopt');
      return s.kube.reconcile.jsonPatchPodResize(pod.namespace, pod.name, [
        { op: 'test', path: '/metadata/uid', value: pod.uid },
      ]);
    }),
    rec(
      'sets the in-place readiness gate of a pod (in-place-gate-writes.ts)',
      '',
      'pods/status',
      'patch',
      (s) =>
        s.kube.reconcile.patchPodConditions(meta(s, 'pAdopt'), [
          { type: 'everynode.dev/InPlaceUpdateReady', status: 'True' },
        ]),
    ),
    rec('records an Event (event-recorder.ts)', '', 'events', 'create', (s) => {
      const { namespace, name, uid } = meta(s, 'ds');
      const involvedObject = { apiVersion: kind, kind: 'DaemonSet', namespace, name, uid };
      return s.kube.reconcile.createEvent(
        eventFor({
          involvedObject,
          type: 'Normal',
          reason: 'SuccessfulCreate',
          message: 'Created pod: p',
          now: new Date(),
        }),
      );
    }),
    rec('reads its DaemonSet (daemon-set-step/daemon-set-step.ts)', managed, 'daemonsets', 'get', (s) =>
      s.kube.reconcile.getDaemonSet('default', 'ds'),
    ),
    rec('lists the DaemonSets of a node (node-step/node-step.ts)', managed, 'daemonsets', 'list', (s) =>
      s.kube.reconcile.listDaemonSets({ allowStale: true }),
    ),
    rec(
      'writes the status (daemon-set-step/write-status.ts)',
      managed,
      'daemonsets/status',
      'update',
      async (s) => {
        const ds = await s.kube.reconcile.getDaemonSet('default', 'ds');
        return s.kube.reconcile.updateDaemonSetStatus({
          ...ds,
          status: { ...ds?.status, observedGeneration: 1 },
        } as NonNullable<typeof ds>);
      },
    ),
    rec(
      'sets blockOwnerDeletion on its pods and revisions (OwnerReferencesPermissionEnforcement)',
      managed,
      'daemonsets/finalizers',
      'update',
      mayBlockOwnerDeletion,
    ),
    rec(
      'lists revision history (daemon-set-step/sync-revision-history.ts)',
      'apps',
      'controllerrevisions',
      'list',
      (s) => s.kube.reconcile.listControllerRevisions('default'),
    ),
    rec(
      'creates a revision (daemon-set-step/sync-revision-history.ts)',
      'apps',
      'controllerrevisions',
      'create',
      (s) =>
        s.kube.reconcile.createControllerRevision({
          apiVersion: 'apps/v1',
          kind: 'ControllerRevision',
          metadata: { name: 'r-new', namespace: 'default' },
          revision: 1,
        }),
    ),
    rec(
      'bumps a revision (daemon-set-step/sync-revision-history.ts)',
      'apps',
      'controllerrevisions',
      'update',
      (s) => {
        const stored = s.seeded.rUpdate;
        return s.kube.reconcile.updateControllerRevision({ ...stored, revision: 2 } as never);
      },
    ),
    rec(
      'cleans up history (daemon-set-step/sync-revision-history.ts)',
      'apps',
      'controllerrevisions',
      'delete',
      (s) => s.kube.reconcile.deleteControllerRevision(meta(s, 'rDelete')),
    ),
  ];
}

/** The rendered manifest with `verb` taken out of `fn`'s rule on `group`/`resource` (the rule goes when empty). */
function manifestWithout({ fn, group, resource, verb }: Case) {
  return rbacObjects(kind).flatMap(({ role, binding }) => {
    if (role.metadata?.name !== `everynode-${fn}`) return [role, binding];
    const rules = (role.rules ?? []).flatMap((rule) => {
      if (!rule.apiGroups?.includes(group) || !rule.resources?.includes(resource)) return [rule];
      const verbs = rule.verbs.filter((v) => v !== verb);
      return verbs.length > 0 ? [{ ...rule, verbs }] : [];
    });
    const trimmed: V1ClusterRole = { ...role, rules };
    return [trimmed, binding];
  });
}

const fullManifest = () => rbacObjects(kind).flatMap(({ role, binding }) => [role, binding]);

let running: FunctionRbacSim | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe('each rule of the rendered RBAC is what a function needs', () => {
  it('covers every verb the manifest grants', () => {
    const granted = rbacObjects(kind).flatMap(({ role }) =>
      (role.rules ?? []).flatMap((rule) =>
        rule.verbs.map(
          (verb) => `${role.metadata?.name} ${rule.apiGroups?.[0]}/${rule.resources?.[0]} ${verb}`,
        ),
      ),
    );
    const proven = cases.map((c) => `everynode-${c.fn} ${c.group}/${c.resource} ${c.verb}`);
    expect(proven.sort()).toEqual(granted.sort());
  });

  it.each(cases)('without $verb $resource, the $fn $capability: 403', async (c) => {
    running = await startFunctionRbacSim(kind, manifestWithout(c));
    expect(await outcome(() => c.call(running as FunctionRbacSim))).toBe('forbidden');
  });

  it.each(cases)('with the full manifest, the $fn $capability', async (c) => {
    running = await startFunctionRbacSim(kind, fullManifest());
    expect(await outcome(() => c.call(running as FunctionRbacSim))).toBe('works');
  });
});

describe('what a function may not do', () => {
  it.each([
    {
      name: 'the relay cannot create pods',
      call: (s: FunctionRbacSim) => s.kube.relay.createPod(aNewPod('x')),
    },
    {
      name: 'the router cannot delete pods',
      call: (s: FunctionRbacSim) => s.kube.router.deletePod(meta(s, 'pDelete')),
    },
    { name: 'the router cannot read pods', call: (s: FunctionRbacSim) => s.kube.router.listPods() },
    {
      name: 'the relay cannot write DaemonSet status',
      call: (s: FunctionRbacSim) => s.kube.relay.updateDaemonSetStatus(s.seeded.ds as never),
    },
    {
      name: 'the reconciler cannot watch the managed DaemonSets',
      call: (s: FunctionRbacSim) => watchOnce(s.kube.reconcile, 'daemonsets'),
    },
    {
      name: 'the reconciler cannot read the cluster identity',
      call: (s: FunctionRbacSim) => s.kube.reconcile.getClusterIdentity(),
    },
  ])('$name (403)', async ({ call }) => {
    running = await startFunctionRbacSim(kind, fullManifest());
    expect(await outcome(() => call(running as FunctionRbacSim))).toBe('forbidden');
  });
});
