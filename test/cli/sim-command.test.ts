import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parseSimArgs, runSimCommand } from '../../lib/cli/sim-command.ts';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'everynode-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('parseSimArgs', () => {
  it.each([
    { name: 'defaults', args: [], expected: { port: 0, nodes: 6, seed: 1, timeScale: 1, help: false } },
    {
      name: 'every flag',
      args: [
        '--port',
        '8001',
        '--nodes',
        '10000',
        '--kubeconfig',
        '/tmp/k',
        '--seed',
        '7',
        '--time-scale',
        '0.5',
      ],
      expected: { port: 8001, nodes: 10000, kubeconfigPath: '/tmp/k', seed: 7, timeScale: 0.5 },
    },
    { name: '--nodes 0 is an empty cluster', args: ['--nodes', '0'], expected: { nodes: 0 } },
    {
      name: 'no TLS and no token file by default',
      args: [],
      expected: { tls: false, tokenAuthFile: undefined },
    },
    {
      name: 'TLS and a token file',
      args: ['--tls', '--token-auth-file', '/etc/tokens.csv'],
      expected: { tls: true, tokenAuthFile: '/etc/tokens.csv' },
    },
    { name: 'no authorization mode by default', args: [], expected: { authorizationMode: undefined } },
    {
      name: 'RBAC authorization',
      args: ['--authorization-mode', 'RBAC'],
      expected: { authorizationMode: 'RBAC' },
    },
  ])('$name', ({ args, expected }) => {
    expect(parseSimArgs(args)).toMatchObject(expected);
  });

  it.each([
    { name: 'negative nodes', args: ['--nodes=-1'], message: '--nodes must be an integer from 0' },
    {
      name: 'port out of range',
      args: ['--port', '70000'],
      message: '--port must be an integer from 0 to 65535',
    },
    { name: 'a zero time scale', args: ['--time-scale', '0'], message: '--time-scale must be a number > 0' },
    { name: 'an unknown flag', args: ['--bogus'], message: "Unknown option '--bogus'" },
    {
      name: 'an unknown authorization mode',
      args: ['--authorization-mode', 'Webhook'],
      message: "--authorization-mode must be one of AlwaysAllow, RBAC, got 'Webhook'",
    },
  ])('rejects $name', ({ args, message }) => {
    expect(() => parseSimArgs(args)).toThrow(message);
  });
});

describe('runSimCommand', () => {
  it('serves the cluster until stopped, with the kubeconfig at the given path', async () => {
    const kubeconfig = join(dir, 'kubeconfig');
    const out: string[] = [];
    const stop = new AbortController();
    const done = runSimCommand(['--nodes', '3', '--kubeconfig', kubeconfig], {
      stdout: (t) => out.push(t),
      stderr: (t) => out.push(t),
      stopSignal: stop.signal,
    });
    await eventuallyTrue(() => out.join('').includes('Press Ctrl-C'));
    const url = /API server at (\S+) with 3 nodes/.exec(out.join(''))?.[1] ?? '';
    expect(readFileSync(kubeconfig, 'utf8')).toContain(`server: ${url}`);
    const version = (await (await fetch(`${url}/version`)).json()) as { minor: string };
    expect(version.minor).toBe('33');
    stop.abort();
    expect(await done).toBe(0);
    await expect(fetch(`${url}/version`)).rejects.toThrow();
  });

  it('serves https with --tls and authenticates with --token-auth-file, the kubeconfig an admin’s', async () => {
    const kubeconfig = join(dir, 'tls-kubeconfig');
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, 'alice-token,alice,1001\n');
    const out: string[] = [];
    const stop = new AbortController();
    const done = runSimCommand(
      ['--nodes', '1', '--kubeconfig', kubeconfig, '--tls', '--token-auth-file', tokens],
      { stdout: (t) => out.push(t), stderr: (t) => out.push(t), stopSignal: stop.signal },
    );
    await eventuallyTrue(() => out.join('').includes('Press Ctrl-C'));
    const url = /API server at (\S+) with 1 nodes/.exec(out.join(''))?.[1] ?? '';
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:/);
    const written = readFileSync(kubeconfig, 'utf8');
    expect(written).toContain('certificate-authority-data: ');
    expect(written).not.toContain('insecure-skip-tls-verify');
    expect(written).not.toContain('sim-token');
    expect(out.join('')).not.toContain('kubectl sends no token');
    stop.abort();
    expect(await done).toBe(0);
  });

  it('warns that kubectl is anonymous with --token-auth-file over plain HTTP', async () => {
    const tokens = join(dir, 'tokens-http.csv');
    writeFileSync(tokens, 'alice-token,alice,1001\n');
    const err: string[] = [];
    const stop = new AbortController();
    const done = runSimCommand(
      ['--nodes', '0', '--kubeconfig', join(dir, 'http-kubeconfig'), '--token-auth-file', tokens],
      { stdout: () => undefined, stderr: (t) => err.push(t), stopSignal: stop.signal },
    );
    await eventuallyTrue(() => err.length > 0);
    expect(err).toEqual([
      'everynode sim: kubectl sends no token over plain HTTP, so it is anonymous: add --tls\n',
    ]);
    stop.abort();
    expect(await done).toBe(0);
  });

  it('answers a bad flag with one line and exit code 2', async () => {
    const err: string[] = [];
    const code = await runSimCommand(['--nodes', 'many'], {
      stdout: () => undefined,
      stderr: (t) => err.push(t),
    });
    expect(code).toBe(2);
    expect(err).toEqual([
      "everynode sim: --nodes must be an integer from 0 to 100000, got 'many' (see everynode sim --help)\n",
    ]);
  });
});

describe('everynode main', () => {
  const everynode = (...args: string[]) =>
    run(process.execPath, ['bin/everynode.js', ...args], { cwd: root });

  it('lists its commands with --help', async () => {
    const { stdout } = await everynode('--help');
    expect(stdout).toContain('sim ');
  });

  it('answers an unknown command with one line on stderr and exit code 2', async () => {
    const failure = await everynode('frobnicate').catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr.trim().split('\n')).toHaveLength(1);
    expect((failure as { stderr: string }).stderr).toContain('unknown command "frobnicate"');
  });

  it('runs `everynode sim --help`', async () => {
    const { stdout } = await everynode('sim', '--help');
    expect(stdout).toContain('Usage: everynode sim');
  });
});

async function eventuallyTrue(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
