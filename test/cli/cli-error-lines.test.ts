/**
 * The real `bin/everynode.js`, each command in its own process and state directory: a bad command
 * line, an unreachable cluster or a corrupt file is one line on stderr, starting with the command's
 * name, and the documented exit code — never a stack trace.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../bin/everynode.js', import.meta.url));

interface Outcome {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `everynode ...args` in `cwd` without KUBECONFIG; killed after 25 s (a command that started serving). */
function everynode(args: readonly string[], cwd: string): Promise<Outcome> {
  const env = { ...process.env };
  delete env.KUBECONFIG;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd, env, timeout: 25_000, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const dir = mkdtempSync(join(tmpdir(), 'everynode-errors-'));
/** A fresh state directory of its own for one command. */
const stateDir = (name: string) => {
  const path = join(dir, name);
  mkdirSync(path, { recursive: true });
  return path;
};

const unreachable = join(dir, 'unreachable.kubeconfig');
writeFileSync(
  unreachable,
  'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:1"}}]\n' +
    'contexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\nusers: [{name: u, user: {token: t}}]\n',
);
const corruptKubeconfig = join(dir, 'corrupt.kubeconfig');
writeFileSync(corruptKubeconfig, 'apiVersion: v1\nclusters: [\n  - {name: c\n');

/** A state directory whose pipeline.json is not JSON. */
const corruptState = stateDir('corrupt-state');
const corruptStateFile = join(corruptState, 'pipeline.json');
writeFileSync(corruptStateFile, '{"pid": 1, "sqsEndpoint":');

let busyPort = 0;
let busy: Server;
beforeAll(async () => {
  busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  busyPort = (busy.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

/** Escapes `text` for a RegExp. */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('bin/everynode.js: one line naming the command, and the exit code', () => {
  it.each([
    {
      name: 'run on an unreachable cluster exits 2',
      args: () => ['run', '--kubeconfig', unreachable, '--state-dir', stateDir('run-unreachable')],
      code: 2,
      line: /^everynode run: .*127\.0\.0\.1:1/,
    },
    {
      name: 'install on an unreachable cluster exits 2',
      args: () => ['install', '--kubeconfig', unreachable],
      code: 2,
      line: /^everynode install: .*127\.0\.0\.1:1/,
    },
    {
      name: 'sim --nodes above its bound is refused with the flag named',
      args: () => ['sim', '--nodes', '100000000'],
      code: 2,
      line: /^everynode sim: --nodes must be an integer from 0 to 100000, got '100000000'/,
    },
    {
      name: 'run --sim-nodes above its bound is refused with the flag named',
      args: () => ['run', '--sim-nodes', '100001', '--state-dir', stateDir('run-nodes')],
      code: 2,
      line: /^everynode run: --sim-nodes must be an integer from 0 to 100000, got '100001'/,
    },
    {
      name: 'redrive --limit not a number is refused before looking for the pipeline',
      args: () => ['redrive', '--limit', 'abc', '--state-dir', stateDir('redrive-limit')],
      code: 2,
      line: /^everynode redrive: --limit must be an integer from 1 to \d+, got 'abc'/,
    },
    {
      name: 'run --timeout negative is refused with the flag named',
      args: () => ['run', '--timeout', '-5', '--state-dir', stateDir('run-timeout')],
      code: 2,
      line: /^everynode run: --timeout must be an integer from 1 to \d+, got '-5'/,
    },
    {
      name: 'run --time-scale in hexadecimal is refused',
      args: () => ['run', '--time-scale', '0x10', '--state-dir', stateDir('run-time-scale')],
      code: 2,
      line: /^everynode run: --time-scale must be a number > 0, got '0x10'/,
    },
    {
      name: 'sim --time-scale in hexadecimal is refused',
      args: () => ['sim', '--time-scale', '0x10'],
      code: 2,
      line: /^everynode sim: --time-scale must be a number > 0, got '0x10'/,
    },
    {
      name: 'resync with a corrupt pipeline.json names the file',
      args: () => ['resync', '--state-dir', corruptState],
      code: 1,
      line: new RegExp(`^everynode resync: reading ${literal(corruptStateFile)}: `),
    },
    {
      name: 'redrive with a corrupt pipeline.json names the file',
      args: () => ['redrive', '--state-dir', corruptState],
      code: 1,
      line: new RegExp(`^everynode redrive: reading ${literal(corruptStateFile)}: `),
    },
    {
      name: 'replay with a corrupt pipeline.json names the file',
      args: () => ['replay', '--journal', join(dir, 'journal.jsonl'), '--state-dir', corruptState],
      code: 1,
      line: new RegExp(`^everynode replay: reading ${literal(corruptStateFile)}: `),
    },
    {
      name: 'run with a corrupt kubeconfig names the file',
      args: () => ['run', '--kubeconfig', corruptKubeconfig, '--state-dir', stateDir('run-corrupt')],
      code: 1,
      line: new RegExp(`^everynode run: .*${literal(corruptKubeconfig)}`),
    },
    {
      name: 'install with a corrupt kubeconfig names the file',
      args: () => ['install', '--kubeconfig', corruptKubeconfig],
      code: 1,
      line: new RegExp(`^everynode install: .*${literal(corruptKubeconfig)}`),
    },
    {
      name: 'replay --since after --until (local journal)',
      args: () => [
        'replay',
        '--journal',
        join(dir, 'journal.jsonl'),
        '--since',
        '2026-01-02T00:00:00Z',
        '--until',
        '2026-01-01T00:00:00Z',
        '--state-dir',
        stateDir('replay-window'),
      ],
      code: 2,
      line: /^everynode replay: --since \(2026-01-02T00:00:00.000Z\) must be before --until \(2026-01-01T00:00:00.000Z\)/,
    },
    {
      name: 'replay --since after --until (EventBridge archive)',
      args: () => [
        'replay',
        '--since',
        '2026-01-02T00:00:00Z',
        '--until',
        '2026-01-01T00:00:00Z',
        '--archive-arn',
        'arn:aws:events:eu-west-1:111122223333:archive/a',
        '--event-bus-arn',
        'arn:aws:events:eu-west-1:111122223333:event-bus/b',
      ],
      code: 2,
      line: /^everynode replay: --since \(2026-01-02T00:00:00.000Z\) must be before --until/,
    },
    {
      name: 'sim with a missing token file',
      args: () => ['sim', '--token-auth-file', join(dir, 'no-such-tokens.csv')],
      code: 1,
      line: /^everynode sim: reading the token file .*no-such-tokens\.csv/,
    },
    {
      name: 'sim on a port in use',
      args: () => ['sim', '--port', String(busyPort)],
      code: 1,
      line: /^everynode sim: .*EADDRINUSE/,
    },
  ])('$name', async ({ args, code, line }) => {
    const result = await everynode(args(), dir);
    expect(result.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(line)]);
    expect(result.code).toBe(code);
  });

  it('states the bound of sim --nodes and run --sim-nodes in --help', async () => {
    expect((await everynode(['sim', '--help'], dir)).stdout).toMatch(/--nodes N[\s\S]*at most\s+100000/);
    expect((await everynode(['run', '--help'], dir)).stdout).toMatch(/--sim-nodes N[\s\S]*at most 100000/);
  });
});
