/**
 * `bin/everynode.js` commands as separate processes, each leading its own process group, so a test
 * can kill one whole (SIGKILL, as a crash) and stop every one it started when it ends.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { groupAlive } from '../conformance/everynode-run.ts';
import { runKubectl } from './pipeline-harness.ts';

const bin = fileURLToPath(new URL('../../bin/everynode.js', import.meta.url));

/** A process of `bin/everynode.js`, leading its own process group. */
export interface Child {
  readonly child: ChildProcess;
  readonly pid: number;
  output(): string;
  readonly exited: Promise<void>;
}

/** Every child started, for {@link killAllChildren}. */
const started: Child[] = [];

/** Starts `everynode ARGS` without the caller's KUBECONFIG, in a process group of its own. */
export function startChild(args: readonly string[]): Child {
  const env = { ...process.env };
  delete env.KUBECONFIG;
  const child = spawn(process.execPath, [bin, ...args], { detached: true, env, stdio: 'pipe' });
  if (child.pid === undefined) throw new Error(`starting everynode ${args.join(' ')} failed`);
  let output = '';
  child.stdout?.on('data', (chunk) => (output += String(chunk)));
  child.stderr?.on('data', (chunk) => (output += String(chunk)));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const one = { child, pid: child.pid, output: () => output, exited };
  started.push(one);
  return one;
}

/** SIGKILL to the whole process group `pid`, if anything of it is left. */
export function killGroup(pid: number): void {
  if (groupAlive(pid)) process.kill(-pid, 'SIGKILL');
}

/** Kills the whole process tree of every child started, whatever a test left running. */
export function killAllChildren(): void {
  for (const { pid } of started.splice(0)) killGroup(pid);
}

/** Kills `child`'s process group and resolves once nothing of it is left. */
export async function crash(child: Child): Promise<void> {
  killGroup(child.pid);
  await child.exited;
  await until('no process of the killed child is left', () => !groupAlive(child.pid), 10_000);
}

/** Polls `check` every 200 ms until it holds; rejects after `timeoutMs`, naming `what`. */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Starts `everynode sim ARGS` and resolves once it serves. */
export async function startSimChild(args: readonly string[]): Promise<Child> {
  const sim = startChild(['sim', ...args]);
  await until('the simulated cluster serves', () => sim.output().includes('Press Ctrl-C to stop.'), 30_000);
  return sim;
}

/** Starts `everynode run ARGS`; resolves once it says it runs, rejects with its output if it exits. */
export async function startRunChild(args: readonly string[]): Promise<Child> {
  const run = startChild(['run', ...args]);
  await until(
    `everynode run (pid ${run.pid}) is running`,
    () => run.output().includes('Press Ctrl-C to stop.') || run.child.exitCode !== null,
    30_000,
  );
  if (run.child.exitCode !== null) throw new Error(`everynode run exited:\n${run.output()}`);
  return run;
}

/** A test's own directory, its simulated cluster's kubeconfig, and `everynode run` on them. */
export interface RunWorkspace {
  readonly dir: string;
  readonly kubeconfig: string;
  kubectl(args: readonly string[], stdin?: string): Promise<string>;
  /** Starts `everynode run` managing apps/v1 on the cluster and the workspace's state directory. */
  startRun(): Promise<Child>;
  /** Kills every child started and removes the directory. */
  dispose(): void;
}

/** A fresh workspace in the system's temporary directory, named from `prefix`. */
export function runWorkspace(prefix: string): RunWorkspace {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const kubeconfig = join(dir, 'kubeconfig');
  const stateDir = join(dir, 'state');
  const args = [
    '--kubeconfig',
    kubeconfig,
    '--manage',
    'apps/v1',
    '--state-dir',
    stateDir,
    '--log-level',
    'WARN',
  ];
  return {
    dir,
    kubeconfig,
    kubectl: (args_, stdin) => runKubectl(kubeconfig, dir, args_, stdin),
    startRun: () => startRunChild(args),
    dispose() {
      killAllChildren();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
