import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../lib/cli/cli-args.ts';
import { runInstallCommand } from '../../lib/cli/install-command.ts';
import { runRedriveCommand } from '../../lib/cli/redrive-command.ts';
import { runReplayCommand } from '../../lib/cli/replay-command.ts';
import { runResyncCommand } from '../../lib/cli/resync-command.ts';
import { parseRunArgs, runRunCommand } from '../../lib/cli/run-command.ts';

type Runner = (args: readonly string[], io: CliIo) => Promise<number>;

const commands: Array<{ name: string; run: Runner; usage: RegExp }> = [
  { name: 'run', run: runRunCommand, usage: /--exit-when-converged/ },
  { name: 'install', run: runInstallCommand, usage: /infra\/k8s/ },
  { name: 'replay', run: runReplayCommand, usage: /--journal FILE/ },
  { name: 'redrive', run: runRedriveCommand, usage: /--dlq-url/ },
  { name: 'resync', run: runResyncCommand, usage: /--daemonset/ },
];

async function invoke(run: Runner, args: readonly string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(args, { stdout: (t) => out.push(t), stderr: (t) => err.push(t), isTTY: false, env });
  return { code, stdout: out.join(''), stderr: err.join('') };
}

const oneLine = (text: string) => text.trimEnd().split('\n').length === 1;

describe('every command', () => {
  it.each(commands)('$name --help prints its usage and exits 0', async ({ run, usage }) => {
    const result = await invoke(run, ['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(usage);
  });

  it.each(commands)('$name rejects an unknown flag with one line and exit 2', async ({ name, run }) => {
    const result = await invoke(run, ['--no-such-flag']);
    expect(result.code).toBe(2);
    expect(oneLine(result.stderr)).toBe(true);
    expect(result.stderr).toMatch(
      new RegExp(`^everynode ${name}: .*no-such-flag.*\\(see everynode ${name} --help\\)`),
    );
  });
});

describe('bad values and unreachable things: one clear line, non-zero exit', () => {
  const unreachable = join(mkdtempSync(join(tmpdir(), 'everynode-cli-')), 'kubeconfig');
  writeFileSync(
    unreachable,
    'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:1"}}]\n' +
      'contexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\nusers: [{name: u, user: {token: t}}]\n',
  );
  const none = mkdtempSync(join(tmpdir(), 'everynode-none-'));
  it.each([
    {
      name: 'run --manage with an unknown kind',
      run: runRunCommand,
      args: ['--manage', 'apps/v2'],
      code: 2,
      line: /--manage must be everynode.dev\/v1 or apps\/v1/,
    },
    {
      name: 'run --sim-nodes not a number',
      run: runRunCommand,
      args: ['--sim-nodes', 'many'],
      code: 2,
      line: /--sim-nodes must be an integer/,
    },
    {
      name: 'run --kubeconfig with a simulated-cluster flag',
      run: runRunCommand,
      args: ['--kubeconfig', unreachable, '--sim-nodes', '3'],
      code: 2,
      line: /--sim-nodes is for the simulated one/,
    },
    {
      name: 'run --time-scale not above 0',
      run: runRunCommand,
      args: ['--time-scale', '0'],
      code: 2,
      line: /--time-scale must be a number > 0, got '0'/,
    },
    {
      name: 'run --kubeconfig with --time-scale',
      run: runRunCommand,
      args: ['--kubeconfig', unreachable, '--time-scale', '0.1'],
      code: 2,
      line: /--time-scale is for the simulated one/,
    },
    {
      name: 'run --kubeconfig with --least-privilege',
      run: runRunCommand,
      args: ['--kubeconfig', unreachable, '--least-privilege'],
      code: 2,
      line: /--least-privilege is for the simulated one/,
    },
    {
      name: 'run on an unreachable cluster',
      run: runRunCommand,
      args: ['--kubeconfig', unreachable, '--state-dir', none],
      code: 2,
      line: /no answer from the API server/,
    },
    {
      name: 'resync --daemonset without a namespace',
      run: runResyncCommand,
      args: ['--daemonset', 'demo'],
      code: 2,
      line: /NAMESPACE\/NAME/,
    },
    {
      name: 'resync with no running pipeline',
      run: runResyncCommand,
      args: ['--state-dir', none],
      code: 1,
      line: /no running everynode run found/,
    },
    {
      name: 'redrive with only --dlq-url',
      run: runRedriveCommand,
      args: ['--dlq-url', 'http://x'],
      code: 2,
      line: /go together/,
    },
    {
      name: 'replay with a bad time',
      run: runReplayCommand,
      args: ['--journal', 'j', '--since', 'yesterday'],
      code: 2,
      line: /--since must be a time/,
    },
    {
      name: 'replay without journal or archive',
      run: runReplayCommand,
      args: ['--since', '2026-01-01T00:00:00Z'],
      code: 2,
      line: /give --journal FILE/,
    },
  ])('$name', async ({ run, args, code, line }) => {
    const result = await invoke(run, args);
    expect(result.code).toBe(code);
    expect(oneLine(result.stderr)).toBe(true);
    expect(result.stderr).toMatch(line);
  });
});

describe('parseRunArgs', () => {
  it.each([
    {
      name: 'defaults: the simulated cluster with the seed nodes and the demo',
      args: [],
      env: {},
      cluster: { type: 'sim', nodes: 6, port: 0, demo: true },
    },
    {
      name: 'KUBECONFIG picks a real cluster',
      args: [],
      env: { KUBECONFIG: '/k' },
      cluster: { type: 'kubeconfig', path: '/k' },
    },
    {
      name: '--kubeconfig wins over KUBECONFIG',
      args: ['--kubeconfig', '/a'],
      env: { KUBECONFIG: '/k' },
      cluster: { type: 'kubeconfig', path: '/a' },
    },
    {
      name: '--sim-nodes asks for the simulated cluster even with KUBECONFIG',
      args: ['--sim-nodes', '50', '--no-demo'],
      env: { KUBECONFIG: '/k' },
      cluster: { type: 'sim', nodes: 50, port: 0, demo: false },
    },
    {
      name: '--time-scale speeds the simulated cluster up',
      args: ['--time-scale', '0.1'],
      env: {},
      cluster: { type: 'sim', nodes: 6, port: 0, demo: true, timeScale: 0.1 },
    },
    {
      name: '--least-privilege secures the simulated cluster with the RBAC of --manage, even with KUBECONFIG',
      args: ['--least-privilege', '--manage', 'apps/v1'],
      env: { KUBECONFIG: '/k' },
      cluster: { type: 'sim', nodes: 6, port: 0, demo: true, leastPrivilege: { managedKind: 'apps/v1' } },
    },
  ])('$name', ({ args, env, cluster }) => {
    expect(parseRunArgs(args, env).cluster).toEqual(cluster);
  });

  it('reads every option', () => {
    const options = parseRunArgs(
      [
        '--manage',
        'apps/v1',
        '--exit-when-converged',
        '--timeout',
        '20',
        '--api-qps',
        '7',
        '--max-receive-count',
        '3',
        '--log-level',
        'warn',
        '--state-dir',
        '/s',
      ],
      {},
    );
    expect(options).toMatchObject({
      managedKind: 'apps/v1',
      exitWhenConverged: true,
      timeoutSeconds: 20,
      apiQps: 7,
      maxReceiveCount: 3,
      logLevel: 'WARN',
      stateDir: '/s',
    });
  });
});
