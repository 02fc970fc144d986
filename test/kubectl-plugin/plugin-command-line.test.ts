/**
 * How `kubectl everynode` reads its command line and words its answers, where kubectl's own
 * behaviour is the reference (its messages recorded from kubectl 1.33 against the simulated
 * cluster): pflag's flag syntax and errors, Go durations, resource arguments, the DaemonSet status
 * viewer, error printing, and the help and unknown-command answers of the plugin itself.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { daemonSetStatusMessage } from '../../lib/kubectl-plugin/daemon-set-status-message.ts';
import { daemonSetTarget } from '../../lib/kubectl-plugin/daemon-set-target.ts';
import { parseGoDuration } from '../../lib/kubectl-plugin/go-duration.ts';
import { KubectlError, kubectlErrorText } from '../../lib/kubectl-plugin/kubectl-error.ts';
import { kubectlEverynode } from '../../lib/kubectl-plugin/kubectl-everynode.ts';
import { type FlagSpec, leadingWords, parseFlags } from '../../lib/kubectl-plugin/plugin-flags.ts';

const specs: FlagSpec[] = [
  { name: 'namespace', short: 'n', type: 'string' },
  { name: 'watch', short: 'w', type: 'bool' },
  { name: 'revision', type: 'int' },
  { name: 'timeout', type: 'duration' },
];
const hint = "See 'kubectl everynode rollout status --help' for usage.";

/** The message of what `run` throws. */
function thrown(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return kubectlErrorText([error]);
  }
  throw new Error('nothing was thrown');
}

describe('parseFlags', () => {
  it('reads every syntax pflag reads, flags anywhere among the arguments', () => {
    const { values, positionals } = parseFlags(
      ['-n', 'kiada', 'rollout', '--watch=false', 'status', '--timeout', '1m30s', 'eds/demo', '--revision=2'],
      specs,
      hint,
    );
    expect(Object.fromEntries(values)).toEqual({
      namespace: 'kiada',
      watch: false,
      timeout: 90_000,
      revision: 2,
    });
    expect(positionals).toEqual(['rollout', 'status', 'eds/demo']);
    expect(Object.fromEntries(parseFlags(['-nkiada', '-w', '--', '-x'], specs, hint).values)).toEqual({
      namespace: 'kiada',
      watch: true,
    });
    expect(parseFlags(['-n=kiada', '--', '-x'], specs, hint).positionals).toEqual(['-x']);
  });

  it("fails in pflag's words, with the usage hint", () => {
    expect(thrown(() => parseFlags(['--bogus'], specs, hint))).toBe(
      `error: unknown flag: --bogus\n${hint}\n`,
    );
    expect(thrown(() => parseFlags(['--timeout'], specs, hint))).toBe(
      `error: flag needs an argument: --timeout\n${hint}\n`,
    );
    expect(thrown(() => parseFlags(['--timeout=abc'], specs, hint))).toBe(
      `error: invalid argument "abc" for "--timeout" flag: time: invalid duration "abc"\n${hint}\n`,
    );
    expect(thrown(() => parseFlags(['--revision=x'], specs, hint))).toBe(
      `error: invalid argument "x" for "--revision" flag: strconv.ParseInt: parsing "x": invalid syntax\n${hint}\n`,
    );
    expect(thrown(() => parseFlags(['--watch=maybe'], specs, hint))).toBe(
      `error: invalid argument "maybe" for "-w, --watch" flag: strconv.ParseBool: parsing "maybe": invalid syntax\n${hint}\n`,
    );
  });

  it('finds the subcommand words past global flags and their values', () => {
    expect(leadingWords(['-n', 'kiada', '--watch', 'rollout', 'status', 'eds/demo'], specs, 2)).toEqual([
      'rollout',
      'status',
    ]);
  });
});

describe('parseGoDuration', () => {
  it("reads Go's durations and rejects what Go rejects", () => {
    expect(parseGoDuration('0')).toEqual({ ms: 0 });
    expect(parseGoDuration('30s')).toEqual({ ms: 30_000 });
    expect(parseGoDuration('1h2m3.5s')).toEqual({ ms: 3_723_500 });
    expect(parseGoDuration('250ms')).toEqual({ ms: 250 });
    expect(parseGoDuration('30')).toEqual({ error: 'time: missing unit in duration "30"' });
    expect(parseGoDuration('5x')).toEqual({ error: 'time: unknown unit "x" in duration "5x"' });
    expect(parseGoDuration('')).toEqual({ error: 'time: invalid duration ""' });
  });
});

describe('daemonSetTarget', () => {
  it('reads TYPE/NAME, TYPE NAME and TYPE for both kinds', () => {
    expect(daemonSetTarget(['eds/a', 'daemonset.everynode.dev/b', 'daemonsets.everynode.dev/c'])).toEqual({
      kind: 'everynode.dev/v1',
      names: ['a', 'b', 'c'],
    });
    expect(daemonSetTarget(['ds', 'a', 'b'])).toEqual({ kind: 'apps/v1', names: ['a', 'b'] });
    expect(daemonSetTarget(['DaemonSet.apps/a'])).toEqual({ kind: 'apps/v1', names: ['a'] });
    expect(daemonSetTarget(['eds'])).toEqual({ kind: 'everynode.dev/v1', names: undefined });
  });

  it("refuses what kubectl's resource builder refuses, in its words", () => {
    expect(thrown(() => daemonSetTarget([]))).toBe('error: required resource not specified\n');
    expect(thrown(() => daemonSetTarget(['deployment/web']))).toBe(
      'error: the server doesn\'t have a resource type "deployment"\n',
    );
    expect(thrown(() => daemonSetTarget(['eds', 'eds/a']))).toMatch(
      /^error: there is no need to specify a resource type as a separate argument/,
    );
  });
});

describe('daemonSetStatusMessage', () => {
  const ds = (generation: number, status: Record<string, number>, type = 'RollingUpdate') => ({
    metadata: { name: 'demo', generation },
    spec: { updateStrategy: { type } },
    status,
  });

  it("words each state as kubectl's DaemonSetStatusViewer does", () => {
    expect(daemonSetStatusMessage(ds(2, { observedGeneration: 1 }))).toEqual({
      message: 'Waiting for daemon set spec update to be observed...\n',
      done: false,
    });
    const counts = { observedGeneration: 2, desiredNumberScheduled: 3 };
    expect(daemonSetStatusMessage(ds(2, { ...counts, updatedNumberScheduled: 1 }))).toEqual({
      message: 'Waiting for daemon set "demo" rollout to finish: 1 out of 3 new pods have been updated...\n',
      done: false,
    });
    expect(
      daemonSetStatusMessage(ds(2, { ...counts, updatedNumberScheduled: 3, numberAvailable: 2 })),
    ).toEqual({
      message: 'Waiting for daemon set "demo" rollout to finish: 2 of 3 updated pods are available...\n',
      done: false,
    });
    expect(
      daemonSetStatusMessage(ds(2, { ...counts, updatedNumberScheduled: 3, numberAvailable: 3 })),
    ).toEqual({
      message: 'daemon set "demo" successfully rolled out\n',
      done: true,
    });
    expect(thrown(() => daemonSetStatusMessage(ds(1, {}, 'OnDelete')))).toBe(
      'error: rollout status is only available for RollingUpdate strategy type\n',
    );
  });
});

describe('kubectlErrorText', () => {
  it("prints one error as kubectl's CheckErr does and several one per line", () => {
    const notFound = new KubectlError('daemonsets.everynode.dev "x" not found', { serverReason: 'NotFound' });
    expect(kubectlErrorText([notFound])).toBe(
      'Error from server (NotFound): daemonsets.everynode.dev "x" not found\n',
    );
    expect(kubectlErrorText([new KubectlError('timed out waiting for the condition'), notFound])).toBe(
      'timed out waiting for the condition\nError from server (NotFound): daemonsets.everynode.dev "x" not found\n',
    );
  });
});

describe('kubectlEverynode', () => {
  const run = async (args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await kubectlEverynode(args, { stdout: (t) => out.push(t), stderr: (t) => err.push(t) });
    return { code, stdout: out.join(''), stderr: err.join('') };
  };

  it('prints help on stdout with exit code 0', async () => {
    const help = await run(['--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toContain('kubectl everynode -n kiada rollout status eds/demo');
    expect((await run(['rollout', '--help'])).stdout).toContain('Manage the rollout of everynode');
    expect((await run(['-n', 'x', 'rollout', 'status', '-h'])).stdout).toContain('--timeout=0s');
    expect((await run(['rollout', 'plan', '-h'])).stdout).toContain('--pod-ready-seconds=30');
    expect((await run(['rollout', '--help'])).stdout).toContain('retry      Retry a halted rollout');
  });

  it('answers an unknown command as kubectl does, and prints usage on stderr for a missing one, exit code 1', async () => {
    expect(await run(['frobnicate'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: unknown command "frobnicate" for "kubectl everynode"\n',
    });
    expect(await run(['-n', 'x', 'rollout', 'frobnicate', 'eds/demo'])).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'error: unknown command "frobnicate eds/demo"\nSee \'kubectl everynode rollout -h\' for help and examples\n',
    });
    expect(await run([])).toMatchObject({ code: 1, stdout: '' });
  });

  it('reads the kubeconfig before it checks the arguments, as kubectl does', async () => {
    expect(
      await run(['rollout', 'status', 'eds/demo', '--revision=-1', '--kubeconfig=/nonexistent']),
    ).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: stat /nonexistent: no such file or directory\n',
    });
    const dir = mkdtempSync(join(tmpdir(), 'kubectl-everynode-'));
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\n' +
        'users: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n',
    );
    const undo = await run(['rollout', 'undo', '--kubeconfig', kubeconfig]);
    rmSync(dir, { recursive: true, force: true });
    expect(undo).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: required resource not specified\n',
    });
  });
});
