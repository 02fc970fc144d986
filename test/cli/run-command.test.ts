import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../lib/cli/cli-args.ts';
import { runReplayCommand } from '../../lib/cli/replay-command.ts';
import { runResyncCommand } from '../../lib/cli/resync-command.ts';
import { runRunCommand } from '../../lib/cli/run-command.ts';

function capture(isTTY: boolean, stopSignal?: AbortSignal) {
  const out: string[] = [];
  const io: CliIo = {
    stdout: (t) => out.push(t),
    stderr: (t) => out.push(t),
    isTTY,
    env: {},
    ...(stopSignal ? { stopSignal } : {}),
  };
  return { io, text: () => out.join('') };
}

async function until(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const convergedRow = (ds: string, n: number) =>
  `daemonset ${ds} desired=${n} current=${n} ready=${n} up-to-date=${n} available=${n}`;

describe('everynode run', () => {
  it('converges the seed DaemonSets, takes resync and replay from the other commands, and stops on its signal', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'everynode-run-'));
    const stop = new AbortController();
    const run = capture(false, stop.signal);
    const exit = runRunCommand(['--state-dir', stateDir], run.io);
    await until(
      'both seed DaemonSets are converged',
      () =>
        run.text().includes(convergedRow('kiada/demo', 3)) &&
        run.text().includes(convergedRow('kube-system/fluentd-elasticsearch', 4)),
    );
    expect(run.text()).toMatch(/export KUBECONFIG=.*kubeconfig/);
    expect(run.text()).toMatch(/kubectl get eds -A/);
    // The kubectl plugin, linked into the state dir as npm links it, and how to use it for eds.
    const pluginDir = join(stateDir, 'bin');
    expect(realpathSync(join(pluginDir, 'kubectl-everynode'))).toBe(
      realpathSync(fileURLToPath(new URL('../../bin/kubectl-everynode.js', import.meta.url))),
    );
    expect(run.text()).toContain(`export PATH="${pluginDir}:$PATH"`);
    expect(run.text()).toContain('kubectl everynode -n kiada rollout status eds/demo');

    const resync = capture(false);
    expect(await runResyncCommand(['--state-dir', stateDir, '--daemonset', 'kiada/demo'], resync.io)).toBe(0);
    const journal = join(stateDir, 'journal.jsonl');
    await until('the resync is journalled', () =>
      readFileSync(journal, 'utf8').includes('"scope":{"namespace":"kiada","name":"demo"}'),
    );

    const replay = capture(false);
    expect(await runReplayCommand(['--journal', journal, '--state-dir', stateDir], replay.io)).toBe(0);
    expect(replay.text()).toMatch(/re-injected \d+ trigger\(s\)/);

    stop.abort();
    expect(await exit).toBe(0);
    expect(existsSync(join(stateDir, 'pipeline.json'))).toBe(false);
  }, 60_000);

  it('draws the live view on a terminal and exits 0 once converged', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'everynode-run-'));
    const run = capture(true);
    const code = await runRunCommand(
      ['--state-dir', stateDir, '--manage', 'apps/v1', '--exit-when-converged', '--timeout', '60'],
      run.io,
    );
    expect(code).toBe(0);
    const text = run.text();
    expect(text).toContain('\x1b[J');
    expect(text).toMatch(/NAMESPACE\s+NAME\s+DESIRED\s+CURRENT\s+READY\s+UP-TO-DATE\s+AVAILABLE/);
    expect(text).toMatch(/kiada\s+demo\s+3\s+3\s+3\s+3\s+3/);
    expect(text).toMatch(/queues: ingress \d+ \(\+\d+ delayed\) {2}work \d+ {2}DLQ 0/);
    expect(text).toMatch(/everynode run: converged/);
  }, 60_000);

  it('is what npm start runs: the bin script converges the seed DaemonSets on the simulated cluster', () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'everynode-start-'));
    const bin = fileURLToPath(new URL('../../bin/everynode.js', import.meta.url));
    const env = { ...process.env };
    delete env.KUBECONFIG;
    const result = spawnSync(
      process.execPath,
      [bin, 'run', '--exit-when-converged', '--state-dir', stateDir, '--timeout', '60'],
      {
        encoding: 'utf8',
        env,
        timeout: 90_000,
      },
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(convergedRow('kiada/demo', 3));
    expect(result.stdout).toContain(convergedRow('kube-system/fluentd-elasticsearch', 4));
    expect(result.stdout).toMatch(/everynode run: converged/);
  }, 90_000);
});
