import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { STATE_DIR_LOCK_FILE } from '../../lib/cli/state-dir-lock.ts';
import { groupAlive } from '../conformance/everynode-run.ts';

const bin = fileURLToPath(new URL('../../bin/everynode.js', import.meta.url));

/** `bin/everynode.js` as an operator starts it: its own process, leading its own process group. */
interface Everynode {
  readonly child: ChildProcess;
  readonly pid: number;
  output(): string;
  /** Resolves with the exit code (null when a signal ended it) and the signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const started: Everynode[] = [];

function startEverynode(args: readonly string[]): Everynode {
  const env = { ...process.env };
  delete env.KUBECONFIG;
  const child = spawn(process.execPath, [bin, ...args], { detached: true, env, stdio: 'pipe' });
  if (child.pid === undefined) throw new Error('starting bin/everynode.js failed');
  let output = '';
  child.stdout.on('data', (chunk) => (output += String(chunk)));
  child.stderr.on('data', (chunk) => (output += String(chunk)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const everynode = { child, pid: child.pid, output: () => output, exited };
  started.push(everynode);
  return everynode;
}

async function until(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Waits until `run` has started its pipeline: the hints are printed once the stop signals are heard. */
async function untilRunning(run: Everynode): Promise<void> {
  await until(`everynode run (pid ${run.pid}) is running`, () => run.output().includes('export KUBECONFIG='));
}

const lockHolder = (stateDir: string) => readFileSync(join(stateDir, STATE_DIR_LOCK_FILE), 'utf8').trim();

afterEach(() => {
  // Stop the whole process tree of every command started, whatever the test left running.
  for (const { pid } of started.splice(0)) {
    if (groupAlive(pid)) process.kill(-pid, 'SIGKILL');
  }
});

describe('bin/everynode.js run', () => {
  it('refuses a state directory a live run holds, and takes it over once that run was killed with SIGKILL', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'everynode-lock-'));
    const runArgs = ['run', '--sim-nodes', '2', '--state-dir', stateDir];
    const first = startEverynode(runArgs);
    await untilRunning(first);
    expect(lockHolder(stateDir)).toBe(String(first.pid));

    const second = startEverynode(runArgs);
    expect((await second.exited).code).toBe(2);
    const refusal = second.output().trim();
    expect(refusal.split('\n')).toHaveLength(1);
    expect(refusal).toContain(`pid ${first.pid}`);
    expect(refusal).toContain(stateDir);
    expect(lockHolder(stateDir)).toBe(String(first.pid));
    expect(JSON.parse(readFileSync(join(stateDir, 'pipeline.json'), 'utf8')).pid).toBe(first.pid);

    process.kill(first.pid, 'SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    await until('no process of the killed run is left', () => !groupAlive(first.pid), 10_000);

    const third = startEverynode(runArgs);
    await untilRunning(third);
    expect(lockHolder(stateDir)).toBe(String(third.pid));
  }, 180_000);

  it('stops cleanly on SIGTERM, exits 143 as a shell reports it, and gives up its lock', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'everynode-term-'));
    const run = startEverynode(['run', '--sim-nodes', '2', '--state-dir', stateDir]);
    await untilRunning(run);
    process.kill(run.pid, 'SIGTERM');
    expect(await run.exited).toEqual({ code: 143, signal: null });
    expect(run.output()).toContain('everynode run: stopping');
    expect(groupAlive(run.pid)).toBe(false);
    expect(existsSync(join(stateDir, STATE_DIR_LOCK_FILE))).toBe(false);
    expect(existsSync(join(stateDir, 'pipeline.json'))).toBe(false);
  }, 120_000);
});
