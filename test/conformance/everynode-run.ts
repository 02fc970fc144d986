/**
 * `bin/everynode.js run` as a user starts it, for the conformance suite: a process of its own that
 * leads its own process group (so stopping it ends everything it started), on a simulated cluster,
 * managing apps/v1 DaemonSets, each function as its own user under RBAC (`--least-privilege`).
 * Ready once it prints its hints (`export KUBECONFIG=…`): they come after the relay, the router
 * and reconcile have started.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../../bin/everynode.js', import.meta.url));

/** A running `everynode run`. */
export interface EverynodeRun {
  /** Its pid, which is also its process group id. */
  readonly pid: number;
  /** The kubeconfig it wrote for the simulated cluster (its contents). */
  readonly kubeconfig: string;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Stops the whole process group: SIGTERM, then SIGKILL if anything is left after 10 s. */
  stop(): Promise<void>;
}

/** Options of startEverynodeRun. */
export interface EverynodeRunOptions {
  /** `--sim-nodes`: the seed nodes of lib/sim/fixtures/nodes.yaml up to 6. */
  readonly simNodes: number;
  /** `--time-scale` of the simulated cluster. */
  readonly timeScale: number;
  /** How long it may take to be ready. */
  readonly readyTimeoutMs: number;
  /** `--manage`: the DaemonSet kind it manages; apps/v1 (the conformance suite's) when omitted. */
  readonly manage?: 'apps/v1' | 'everynode.dev/v1';
  /** `--least-privilege` (each function as its own user); true when omitted. */
  readonly leastPrivilege?: boolean;
}

/** Whether any process is left in the process group `pgid`. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function stopGroup(child: ChildProcess, pgid: number): Promise<void> {
  if (groupAlive(pgid)) process.kill(-pgid, 'SIGTERM');
  const deadline = Date.now() + 10_000;
  while (groupAlive(pgid) && Date.now() < deadline) await pause(100);
  if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
  child.stdout?.destroy();
  child.stderr?.destroy();
}

/**
 * Starts `everynode run --sim-nodes N --manage apps/v1 --no-demo --least-privilege --time-scale X`
 * (or the kind and access the options name) with a fresh state directory and resolves once it is
 * ready; rejects (after stopping it) when it exits or is not ready in time, with what it printed.
 */
export async function startEverynodeRun(options: Readonly<EverynodeRunOptions>): Promise<EverynodeRun> {
  const stateDir = mkdtempSync(join(tmpdir(), 'everynode-conformance-'));
  const manage = options.manage ?? 'apps/v1';
  const args = ['run', '--sim-nodes', String(options.simNodes), '--manage', manage, '--no-demo'];
  // Each function as its own user, as on AWS: the suite then also proves the RBAC manifest suffices.
  if (options.leastPrivilege !== false) args.push('--least-privilege');
  args.push('--time-scale', String(options.timeScale), '--state-dir', stateDir, '--log-level', 'WARN');
  const env = { ...process.env };
  delete env.KUBECONFIG;
  const child = spawn(process.execPath, [bin, ...args], { detached: true, env, stdio: 'pipe' });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`starting ${bin} ${args.join(' ')} failed`);
  let output = '';
  let exited = false;
  child.stdout.on('data', (chunk) => (output += String(chunk)));
  child.stderr.on('data', (chunk) => (output += String(chunk)));
  child.on('exit', () => (exited = true));
  const deadline = Date.now() + options.readyTimeoutMs;
  while (!output.includes('export KUBECONFIG=')) {
    if (exited || Date.now() > deadline) {
      await stopGroup(child, pid);
      throw new Error(`everynode ${args.join(' ')} ${exited ? 'exited' : 'was not ready'}:\n${output}`);
    }
    await pause(100);
  }
  const path = /^ {2}kubeconfig: (.+)$/m.exec(output)?.[1]?.trim();
  if (!path) {
    await stopGroup(child, pid);
    throw new Error(`everynode run printed no kubeconfig path:\n${output}`);
  }
  return {
    pid,
    kubeconfig: readFileSync(path, 'utf8'),
    output: () => output,
    stop: () => stopGroup(child, pid),
  };
}
