/**
 * The secured simulator of the test worlds: startLeastPrivilegeSim (what `everynode run
 * --least-privilege` starts), with the RBAC manifest applied through `everynode install` when a
 * kubectl exists, so the rendered manifest and the install command are exercised too.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { delimiter, dirname } from 'node:path';
import { parse } from 'yaml';
import { runInstallCommand } from '../../lib/cli/install-command.ts';
import {
  createRbacObjects,
  type LeastPrivilegeSim,
  type LeastPrivilegeSimOptions,
  startLeastPrivilegeSim,
} from '../../lib/cli/least-privilege-sim.ts';
import type { ManagedKind } from '../../lib/kube/managed-kind.ts';
import type { SimCluster } from '../../lib/sim/start-sim-cluster.ts';
import { findKubectl } from './kubectl.ts';

/** A running secured simulator. */
export type SecuredSim = LeastPrivilegeSim;

/** Options of {@link startSecuredSim}: those of startLeastPrivilegeSim, RBAC applied here. */
export type SecuredSimOptions = Omit<LeastPrivilegeSimOptions, 'applyRbac'>;

/**
 * Applies the RBAC manifest of `kind` as the administrator: with `everynode install` (kubectl)
 * when a kubectl exists, else by creating the rendered objects in the store.
 */
async function applyRbac(sim: SimCluster, kind: ManagedKind): Promise<void> {
  const kubectl = findKubectl();
  if (!kubectl || !sim.kubeconfigPath) return createRbacObjects(sim, kind);
  let output = '';
  const code = await runInstallCommand(['--kubeconfig', sim.kubeconfigPath, '--manage', kind], {
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
export function startSecuredSim(options: Readonly<SecuredSimOptions>): Promise<SecuredSim> {
  return startLeastPrivilegeSim({ ...options, applyRbac });
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
