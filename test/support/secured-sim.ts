/**
 * A simulated cluster secured as a real one is: HTTPS with a CA of its own, static bearer tokens
 * (kube-apiserver's `--token-auth-file`) and `--authorization-mode RBAC`, with the everynode RBAC
 * manifest applied by the administrator as `everynode install` applies it, and one kubeconfig per
 * function whose user belongs to that function's group only (lib/kube/function-groups.ts), as the
 * EKS access entries map each function's IAM role. The administrator's kubeconfig is the one
 * startSimCluster writes.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { delimiter, dirname, join } from 'node:path';
import { parse } from 'yaml';
import { runInstallCommand } from '../../lib/cli/install-command.ts';
import {
  type EverynodeFunction,
  everynodeFunctions,
  FUNCTION_GROUPS,
  rbacObjectName,
} from '../../lib/kube/function-groups.ts';
import type { ManagedKind } from '../../lib/kube/managed-kind.ts';
import { rbacObjects } from '../../lib/kube/rbac-manifest.ts';
import { writeKubeconfig } from '../../lib/sim/kubeconfig.ts';
import { type SimCluster, type SimClusterOptions, startSimCluster } from '../../lib/sim/start-sim-cluster.ts';
import type { KubeObject } from '../../lib/sim/storage/store.ts';
import { findKubectl } from './kubectl.ts';

/** A running secured simulator. */
export interface SecuredSim {
  readonly sim: SimCluster;
  /** The kubeconfig path of each function's own user. */
  readonly identities: Readonly<Record<EverynodeFunction, string>>;
}

/** Options of {@link startSecuredSim}: the simulator's, with the admin kubeconfig path required. */
export interface SecuredSimOptions
  extends Omit<SimClusterOptions, 'tls' | 'tokenAuthFile' | 'authorizationMode'> {
  readonly kubeconfigPath: string;
  /** Where the token file and the functions' kubeconfigs are written. */
  readonly dir: string;
  readonly managedKind: ManagedKind;
}

/** Writes the token file of the functions' users (`everynode-<fn>` in its group); their tokens by function. */
function writeTokenFile(path: string): Record<EverynodeFunction, string> {
  const tokens = Object.fromEntries(
    everynodeFunctions.map((fn) => [fn, randomBytes(24).toString('base64url')]),
  ) as Record<EverynodeFunction, string>;
  const lines = everynodeFunctions.map(
    (fn) => `${tokens[fn]},${rbacObjectName(fn)},${rbacObjectName(fn)},"${FUNCTION_GROUPS[fn]}"`,
  );
  writeFileSync(path, `${lines.join('\n')}\n`, { mode: 0o600 });
  return tokens;
}

/**
 * Applies the RBAC manifest of `kind` as the administrator: with `everynode install` (kubectl)
 * when a kubectl exists, else by creating the rendered objects in the store.
 */
async function applyRbac(sim: SimCluster, kubeconfigPath: string, kind: ManagedKind): Promise<void> {
  const kubectl = findKubectl();
  if (!kubectl) {
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
    return;
  }
  let output = '';
  const code = await runInstallCommand(['--kubeconfig', kubeconfigPath, '--manage', kind], {
    stdout: (text) => {
      output += text;
    },
    stderr: (text) => {
      output += text;
    },
    isTTY: false,
    env: { ...process.env, PATH: `${dirname(kubectl)}${delimiter}${process.env.PATH ?? ''}` },
  });
  if (code !== 0) throw new Error(`applying the everynode RBAC for ${kind} failed: ${output}`);
}

/** Starts the secured simulator, applies the RBAC manifest and writes each function's kubeconfig. */
export async function startSecuredSim(options: Readonly<SecuredSimOptions>): Promise<SecuredSim> {
  const { dir, managedKind, ...simOptions } = options;
  const tokenAuthFile = join(dir, 'tokens.csv');
  const tokens = writeTokenFile(tokenAuthFile);
  const sim = await startSimCluster({ ...simOptions, tls: true, tokenAuthFile, authorizationMode: 'RBAC' });
  try {
    await applyRbac(sim, options.kubeconfigPath, managedKind);
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

/**
 * GETs `path` (e.g. a watch) from `sim` as its kubeconfig's administrator: with its bearer token,
 * trusting its CA when it serves HTTPS. Resolves to the response, a stream of the body, once its
 * headers arrive; rejects when the status is not 200.
 */
export function getAsAdmin(sim: SimCluster, path: string, signal: AbortSignal): Promise<IncomingMessage> {
  const config = parse(sim.kubeconfig) as { users: Array<{ user: { token: string } }> };
  const url = new URL(path, sim.url);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        headers: { authorization: `Bearer ${config.users[0]?.user.token ?? ''}` },
        signal,
        ...(sim.caCertificate ? { ca: sim.caCertificate } : {}),
      },
      (response) => {
        if (response.statusCode === 200) return resolve(response);
        response.resume();
        reject(new Error(`GET ${path} as the administrator: HTTP ${response.statusCode}`));
      },
    );
    req.on('error', reject);
    req.end();
  });
}
