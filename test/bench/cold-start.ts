/**
 * `npm run bench -- cold-start [--runs 9] [--cpu-prof DIR] [--keep]`: the init time of each Lambda
 * bundle as `cdk synth` builds it. Each run starts a fresh `node` in the bundle's task root, laid out
 * as the Lambda runtime loads it (test/support/aws/lambda-task-root.ts), and times the import of
 * the handler module until it resolves with `handler` (the function's init), plus the whole process
 * from spawn to then. Goal: every pipeline function's median init ≤ 1.5 × the baseline's, a
 * handler that only builds an SQS client, measured in the same run the same way. Runs of different
 * bundles are interleaved (the order rotating each round) after one unmeasured warm-up round, so
 * machine noise and file caches fall on all alike. An extra row starts the reconcile bundle with
 * the other choice of AWS SDK (bundled in, or the runtime's), so the choice's cost shows.
 * `--cpu-prof DIR` writes one V8 CPU profile per bundle (an extra, unmeasured start) to DIR;
 * `--keep` keeps the temp dir.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  baselineBundle,
  type ColdStartBundle,
  otherSdkReconcile,
  pipelineBundles,
  synthesize,
} from './cold-start-bundles.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '9' },
    'cpu-prof': { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const RUNS = Number(values.runs);
if (!Number.isInteger(RUNS) || RUNS < 1)
  throw new Error(`--runs must be a whole number of at least 1, not ${values.runs}`);
const GOAL = 1.5;
const probe = fileURLToPath(new URL('./cold-start-probe.mjs', import.meta.url));

/** One start of a bundle: the handler import, and spawn to handler ready. */
interface Start {
  readonly initMs: number;
  readonly processMs: number;
}

/** Fake credentials and the variables the Lambda runtime sets for every function. */
function lambdaEnvironment(bundle: ColdStartBundle): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'AKIAIOSFODNN7EXAMPLE',
    AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    AWS_SESSION_TOKEN: 'bench-session-token',
    AWS_LAMBDA_FUNCTION_NAME: `everynode-${bundle.name.split(',')[0]}`,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512',
    AWS_LAMBDA_LOG_FORMAT: 'JSON',
    // The runtime is Node.js 22, where the SDK has nothing to warn about; the benchmark may run on 20.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    ...bundle.task.env,
    ...bundle.environment,
  };
}

/** Starts `bundle` once in a fresh process; `extraArgs` go to node (a CPU profile). */
function start(bundle: ColdStartBundle, extraArgs: readonly string[] = []): Promise<Start> {
  return new Promise((resolvePromise, reject) => {
    const spawnedAt = performance.timeOrigin + performance.now();
    const child = spawn(process.execPath, [...bundle.task.nodeArgs, ...extraArgs, probe, bundle.modulePath], {
      cwd: bundle.task.taskDir,
      env: lambdaEnvironment(bundle),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.pid !== undefined && process.kill(-child.pid, 'SIGKILL'), 30_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      const line = stdout.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !line.startsWith('{')) {
        reject(new Error(`${bundle.name} did not start (exit ${code}): ${stderr.trim() || stdout.trim()}`));
        return;
      }
      const measured = JSON.parse(line) as { initMs: number; readyAt: number };
      resolvePromise({ initMs: measured.initMs, processMs: measured.readyAt - spawnedAt });
    });
  });
}

/** The value at rank ⌈q·n⌉ of the sorted values (nearest rank). */
function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}

const pad = (text: string, width: number) => (width < 0 ? text.padEnd(-width) : text.padStart(width));

const started = Date.now();
const workDir = await mkdtemp(join(tmpdir(), 'everynode-cold-start-'));
try {
  const outDir = join(workDir, 'cdk.out');
  const sandboxes = join(workDir, 'sandboxes');
  await mkdir(sandboxes);
  await synthesize(outDir);
  const functions = await pipelineBundles(outDir, sandboxes);
  const reconcile = functions.find((f) => f.name === 'reconcile');
  if (reconcile === undefined) throw new Error('no reconcile function in the template');
  const other = await otherSdkReconcile(workDir, sandboxes, reconcile);
  const baseline = await baselineBundle(workDir, sandboxes);
  const bundles = [baseline, ...functions, other.bundle];
  console.log(`synthesized and laid out in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (other.deployed === undefined) {
    console.log('  warning: the esbuild options here differ from the construct (no rebuild is identical)');
  }

  const starts = new Map<ColdStartBundle, Start[]>(bundles.map((b) => [b, []]));
  for (let round = 0; round <= RUNS; round += 1) {
    const order = bundles.map((_, i) => bundles[(i + round) % bundles.length] as ColdStartBundle);
    for (const bundle of order) {
      const measured = await start(bundle);
      if (round > 0) starts.get(bundle)?.push(measured);
    }
  }
  const profileDir = values['cpu-prof'];
  if (profileDir !== undefined) {
    for (const bundle of bundles) {
      const dir = join(resolve(profileDir), bundle.name.replace(/[^a-z0-9]+/gi, '-'));
      await start(bundle, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
    }
    console.log(`CPU profiles in ${resolve(profileDir)}`);
  }

  const stats = (bundle: ColdStartBundle) => {
    const init = (starts.get(bundle) ?? []).map((s) => s.initMs).sort((a, b) => a - b);
    const whole = (starts.get(bundle) ?? []).map((s) => s.processMs).sort((a, b) => a - b);
    return { median: quantile(init, 0.5), p90: quantile(init, 0.9), process: quantile(whole, 0.5) };
  };
  const base = stats(baseline).median;
  const header = ['bundle', 'size KiB', 'init median ms', 'init p90 ms', 'process ms', 'ratio', 'goal', ''];
  const widths = [-26, 9, 15, 12, 11, 7, 7, -8];
  console.log(`\ncold start, median of ${RUNS} runs (process ms: spawn to handler ready, median)`);
  console.log(header.map((h, i) => pad(h, widths[i] ?? 0)).join(' '));
  let met = 0;
  for (const bundle of bundles) {
    const s = stats(bundle);
    const ratio = s.median / base;
    if (bundle.hasGoal && ratio <= GOAL) met += 1;
    const verdict = bundle === baseline ? '' : !bundle.hasGoal ? '—' : ratio <= GOAL ? 'met' : 'NOT met';
    const cells = [
      bundle.name,
      (bundle.sizeBytes / 1024).toFixed(0),
      s.median.toFixed(1),
      s.p90.toFixed(1),
      s.process.toFixed(0),
      `${ratio.toFixed(2)} ×`,
      bundle.hasGoal ? `≤ ${GOAL} ×` : '',
      verdict,
    ];
    console.log(cells.map((c, i) => pad(c, widths[i] ?? 0)).join(' '));
  }
  const deployedAs = other.deployed ?? 'as deployed';
  const otherAs = other.bundle.name.replace('reconcile, ', '');
  console.log(
    `\n${met} of ${functions.length} functions within ${GOAL} × the baseline's ${base.toFixed(1)} ms init; ` +
      `reconcile init ${stats(reconcile).median.toFixed(1)} ms (${deployedAs}), ` +
      `${stats(other.bundle).median.toFixed(1)} ms (${otherAs}) ` +
      `(${((Date.now() - started) / 1000).toFixed(0)} s in all)`,
  );
  if (values.keep) console.log(`kept ${workDir}`);
} finally {
  if (!values.keep) await rm(workDir, { recursive: true, force: true });
}
