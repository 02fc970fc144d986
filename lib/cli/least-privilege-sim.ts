/**
 * A simulated cluster secured as a real one is: HTTPS with a CA of its own, static bearer tokens
 * (kube-apiserver's `--token-auth-file`) and `--authorization-mode RBAC`, with the everynode RBAC
 * manifest applied by the administrator as `everynode install` applies it, and one kubeconfig per
 * function whose user belongs to that function's group only (lib/kube/rbac/function-groups.ts), as the
 * EKS access entries map each function's IAM role. The administrator's kubeconfig is the one
 * startSimCluster writes; its token is the simulator's own, never written to the token file.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ManagedKind } from '../kube/managed-kind.ts';
import {
  type EverynodeFunction,
  everynodeFunctions,
  FUNCTION_GROUPS,
  rbacObjectName,
} from '../kube/rbac/function-groups.ts';
import { rbacObjects } from '../kube/rbac/rbac-manifest.ts';
import { writeKubeconfig } from '../sim/kubeconfig.ts';
import { type SimCluster, type SimClusterOptions, startSimCluster } from '../sim/start-sim-cluster.ts';
import type { KubeObject } from '../sim/storage/store.ts';

/** A running least-privilege simulator. */
export interface LeastPrivilegeSim {
  readonly sim: SimCluster;
  /** The kubeconfig path of each function's own user. */
  readonly identities: Readonly<Record<EverynodeFunction, string>>;
}

/** Options of {@link startLeastPrivilegeSim}: the simulator's, with the admin kubeconfig path required. */
export interface LeastPrivilegeSimOptions
  extends Omit<SimClusterOptions, 'tls' | 'tokenAuthFile' | 'authorizationMode'> {
  readonly kubeconfigPath: string;
  /** Where the token file (`tokens.csv`) and the functions' kubeconfigs (`kubeconfig-<fn>`) go. */
  readonly dir: string;
  readonly managedKind: ManagedKind;
  /**
   * Applies the RBAC manifest of `managedKind` as the administrator (default: creates the rendered
   * objects of rbac-manifest.ts in the simulator's store, as `kubectl apply` would).
   */
  readonly applyRbac?: (sim: SimCluster, kind: ManagedKind) => Promise<void>;
}

/**
 * Writes kube-apiserver's `--token-auth-file` CSV (`token,user,uid,"group"`) for the functions'
 * users (`everynode-<fn>` in its group); resolves to their tokens by function.
 */
async function writeTokenFile(path: string): Promise<Record<EverynodeFunction, string>> {
  const tokens = Object.fromEntries(
    everynodeFunctions.map((fn) => [fn, randomBytes(24).toString('base64url')]),
  ) as Record<EverynodeFunction, string>;
  const lines = everynodeFunctions.map(
    (fn) => `${tokens[fn]},${rbacObjectName(fn)},${rbacObjectName(fn)},"${FUNCTION_GROUPS[fn]}"`,
  );
  await writeFile(path, `${lines.join('\n')}\n`, { mode: 0o600 });
  return tokens;
}

/** Creates the ClusterRoles and ClusterRoleBindings of `kind` in the simulator's store. */
export async function createRbacObjects(sim: SimCluster, kind: ManagedKind): Promise<void> {
  for (const { role, binding } of rbacObjects(kind)) {
    sim.store.create(
      'rbac.authorization.k8s.io/clusterroles',
      JSON.parse(JSON.stringify(role)) as KubeObject,
    );
    sim.store.create(
      'rbac.authorization.k8s.io/clusterrolebindings',
      JSON.parse(JSON.stringify(binding)) as KubeObject,
    );
  }
}

/**
 * Starts the secured simulator, applies the RBAC manifest and writes each function's kubeconfig;
 * resolves to the running simulator and the kubeconfig path of each function. Stops the simulator
 * again when anything after its start fails.
 */
export async function startLeastPrivilegeSim(
  options: Readonly<LeastPrivilegeSimOptions>,
): Promise<LeastPrivilegeSim> {
  const { dir, managedKind, applyRbac = createRbacObjects, ...simOptions } = options;
  const tokenAuthFile = join(dir, 'tokens.csv');
  const tokens = await writeTokenFile(tokenAuthFile);
  const sim = await startSimCluster({ ...simOptions, tls: true, tokenAuthFile, authorizationMode: 'RBAC' });
  try {
    await applyRbac(sim, managedKind);
    const identities = {} as Record<EverynodeFunction, string>;
    for (const fn of everynodeFunctions) {
      identities[fn] = join(dir, `kubeconfig-${fn}`);
      await writeKubeconfig(identities[fn], sim.url, {
        user: rbacObjectName(fn),
        token: tokens[fn],
        ...(sim.caCertificate ? { caCertificate: sim.caCertificate } : {}),
      });
    }
    return { sim, identities };
  } catch (error) {
    await sim.stop();
    throw error;
  }
}
