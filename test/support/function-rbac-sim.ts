/**
 * An RBAC-enforcing simulated cluster in which each everynode function calls the API through its
 * own KubePort, as a member of its own group only (lib/kube/rbac/function-groups.ts), with the RBAC
 * objects the test gives applied, and a few objects to read and write: node n1, the DaemonSet ds
 * (of the managed kind), pods p-delete and p-adopt, revisions r-update and r-delete.
 */
import type { V1ClusterRole, V1ClusterRoleBinding, V1Pod } from '@kubernetes/client-node';
import { connectionFromKubeConfig, loadKubeConfig } from '../../lib/kube/connection/kubeconfig-connection.ts';
import { ForbiddenError } from '../../lib/kube/errors/kube-api-errors.ts';
import type { KubePort, WatchedResource } from '../../lib/kube/kube-port.ts';
import type { ManagedKind } from '../../lib/kube/managed-kind.ts';
import { createKubePort } from '../../lib/kube/operations/create-kube-port.ts';
import {
  type EverynodeFunction,
  everynodeFunctions,
  FUNCTION_GROUPS,
} from '../../lib/kube/rbac/function-groups.ts';
import type { KubeObject } from '../../lib/sim/storage/store.ts';
import { aDaemonSet, aNode, aPod } from './builders.ts';
import { aUser } from './rbac-builders.ts';
import { type RbacSim, startRbacSim } from './rbac-sim.ts';

/** A running simulator with one KubePort per function. */
export interface FunctionRbacSim {
  readonly sim: RbacSim;
  readonly kube: Readonly<Record<EverynodeFunction, KubePort>>;
  /** The seeded objects as stored (uids and resourceVersions the server gave them). */
  readonly seeded: Readonly<Record<'ds' | 'pDelete' | 'pAdopt' | 'rUpdate' | 'rDelete', KubeObject>>;
  close(): Promise<void>;
}

const json = (value: unknown) => JSON.parse(JSON.stringify(value)) as KubeObject;

/** `obj` as a create request: without the uid, resourceVersion and timestamps the server sets. */
function toCreate<T extends { metadata?: object }>(obj: T): T {
  const {
    uid: _u,
    resourceVersion: _r,
    creationTimestamp: _c,
    ...metadata
  } = (obj.metadata ?? {}) as Record<string, unknown>;
  return { ...obj, metadata };
}

/** A pod on n1 to create (aPod without what the server sets). */
export function aNewPod(name: string): V1Pod {
  return toCreate(aPod(name, { nodeName: 'n1' }));
}

function aRevision(name: string): KubeObject {
  return json({
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: { name, namespace: 'default' },
    data: {},
    revision: 1,
  });
}

function seed(sim: RbacSim, kind: ManagedKind): FunctionRbacSim['seeded'] {
  const { store } = sim;
  store.create('nodes', json(toCreate(aNode('n1'))));
  const dsKey = kind === 'apps/v1' ? 'apps/daemonsets' : 'everynode.dev/daemonsets';
  const ds = store.create(dsKey, json(toCreate({ ...aDaemonSet('ds'), apiVersion: kind })));
  const pod = (name: string) => store.create('pods', json(aNewPod(name)));
  return {
    ds,
    pDelete: pod('p-delete'),
    pAdopt: pod('p-adopt'),
    rUpdate: store.create('apps/controllerrevisions', aRevision('r-update')),
    rDelete: store.create('apps/controllerrevisions', aRevision('r-delete')),
  };
}

/** Starts the simulator with `rbac` applied (ClusterRoles and bindings) and the objects seeded. */
export async function startFunctionRbacSim(
  kind: ManagedKind,
  rbac: readonly (V1ClusterRole | V1ClusterRoleBinding)[],
): Promise<FunctionRbacSim> {
  const users = Object.fromEntries(
    everynodeFunctions.map((fn) => [fn, aUser(`${fn}-fn`, FUNCTION_GROUPS[fn])]),
  );
  const sim = await startRbacSim(users);
  for (const obj of rbac) {
    const key =
      obj.kind === 'ClusterRole'
        ? 'rbac.authorization.k8s.io/clusterroles'
        : 'rbac.authorization.k8s.io/clusterrolebindings';
    sim.store.create(key, json(obj));
  }
  const seeded = seed(sim, kind);
  const portOf = (fn: EverynodeFunction) =>
    createKubePort({
      connection: connectionFromKubeConfig(loadKubeConfig({ yaml: sim.kubeconfigOf(fn) })),
      managedKind: kind,
      userAgent: `everynode/${fn}`,
    });
  const kube = { relay: portOf('relay'), router: portOf('router'), reconcile: portOf('reconcile') };
  return { sim, kube, seeded, close: () => sim.close() };
}

/** Starts a watch and reads until its first event or its end (1 s). */
export async function watchOnce(kube: KubePort, resource: WatchedResource): Promise<void> {
  for await (const _event of kube.watch(resource, { resourceVersion: '0', timeoutSeconds: 1 })) return;
}

/** The preconditions (namespace, name, uid, resourceVersion) of the seeded `key`. */
export const meta = (s: FunctionRbacSim, key: keyof FunctionRbacSim['seeded']) => {
  const { namespace = 'default', name = '', uid = '', resourceVersion } = s.seeded[key].metadata ?? {};
  return { namespace, name, uid, ...(resourceVersion ? { resourceVersion } : {}) };
};

/** The access review OwnerReferencesPermissionEnforcement makes (the simulator has no such plugin). */
export async function mayBlockOwnerDeletion(s: FunctionRbacSim): Promise<void> {
  const response = await fetch(`${s.sim.url}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`, {
    method: 'POST',
    headers: { 'x-sim-user': 'reconcile', 'content-type': 'application/json' },
    body: JSON.stringify({
      spec: {
        resourceAttributes: {
          verb: 'update',
          group: 'everynode.dev',
          resource: 'daemonsets',
          subresource: 'finalizers',
        },
      },
    }),
  });
  const review = (await response.json()) as { status?: { allowed?: boolean } };
  if (review.status?.allowed !== true)
    throw new ForbiddenError('blockOwnerDeletion on a DaemonSet', { status: 403, reason: 'Forbidden' });
}

/** Whether `call` works or is refused with 403 (any other failure is thrown). */
export async function outcome(call: () => Promise<unknown>): Promise<'works' | 'forbidden'> {
  try {
    await call();
    return 'works';
  } catch (error) {
    if (error instanceof ForbiddenError && error.status === 403) return 'forbidden';
    throw error;
  }
}
