/**
 * A simulated API server in `--authorization-mode RBAC` whose users the test chooses, before the
 * simulator has authentication of its own: requests name their user in the `x-sim-user` header
 * (none: the administrator, in system:masters), and for kubectl, which sends no credentials over
 * plain HTTP, each user gets a server of its own on the same store. The store has the bootstrap
 * roles of a real cluster.
 */
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { type ApiServer, createApiServer } from '../../lib/sim/apiserver/api-server.ts';
import type { AccessControl } from '../../lib/sim/auth/access-control.ts';
import { unauthorized } from '../../lib/sim/auth/access-denied.ts';
import { type AuthorizationMode, withAuthorizationMode } from '../../lib/sim/auth/authorization-mode.ts';
import { seedBootstrapPolicy } from '../../lib/sim/auth/rbac-bootstrap-policy.ts';
import { SIM_ADMIN, type UserInfo } from '../../lib/sim/auth/user-info.ts';
import { kubeconfigFor } from '../../lib/sim/kubeconfig.ts';
import type { ResourceKey } from '../../lib/sim/schema/resources.ts';
import { ClusterStore, type KubeObject } from '../../lib/sim/storage/store.ts';

/** A running RBAC simulator. */
export interface RbacSim {
  readonly store: ClusterStore;
  /** Base URL of the server that reads the user from `x-sim-user`. */
  readonly url: string;
  /** A kubeconfig whose every request is `user`'s (one of those given, or `admin`). */
  kubeconfigOf(user: string): string;
  close(): Promise<void>;
}

/**
 * Starts a simulator for `users` by name, in `authorizationMode` (RBAC unless options are given;
 * `{}` is the simulator's default, no mode).
 */
export async function startRbacSim(
  users: Readonly<Record<string, UserInfo>>,
  options: { readonly authorizationMode?: AuthorizationMode } = { authorizationMode: 'RBAC' },
): Promise<RbacSim> {
  const mode = options.authorizationMode;
  const store = new ClusterStore();
  seedBootstrapPolicy(store);
  const everyone: Record<string, UserInfo> = { admin: SIM_ADMIN, ...users };
  const servers: ApiServer[] = [];
  const serve = async (authenticate: AccessControl['authenticate']) => {
    const base: AccessControl = { authenticate, authorize: () => ({ allowed: true }) };
    const server = createApiServer(store, { access: withAuthorizationMode(base, mode, store) ?? base });
    servers.push(server);
    return server.listen();
  };
  const url = await serve((req) => {
    const name = req.headers['x-sim-user'];
    const user = typeof name === 'string' ? everyone[name] : SIM_ADMIN;
    if (!user) throw unauthorized();
    return user;
  });
  const kubeconfigs = new Map<string, string>();
  for (const [name, user] of Object.entries(everyone))
    kubeconfigs.set(name, kubeconfigFor(await serve(() => user), { user: name }));
  return {
    store,
    url,
    kubeconfigOf: (user) => kubeconfigs.get(user) ?? '',
    close: async () => {
      await Promise.all(servers.map((s) => s.close()));
    },
  };
}

const keysByKind: Readonly<Record<string, ResourceKey>> = {
  ClusterRole: 'rbac.authorization.k8s.io/clusterroles',
  ClusterRoleBinding: 'rbac.authorization.k8s.io/clusterrolebindings',
  Role: 'rbac.authorization.k8s.io/roles',
  RoleBinding: 'rbac.authorization.k8s.io/rolebindings',
  CustomResourceDefinition: 'apiextensions.k8s.io/customresourcedefinitions',
};

/** Creates every object of the YAML manifest at `path` (relative to the repository) in `store`. */
export function applyManifest(store: ClusterStore, path: string): void {
  const text = readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
  for (const document of parseAllDocuments(text)) {
    const obj = document.toJS() as KubeObject;
    const key = keysByKind[obj.kind];
    if (!key) throw new Error(`applyManifest: no resource for kind ${obj.kind}`);
    store.create(key, obj);
  }
}
