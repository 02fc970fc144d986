/**
 * The cloud assembly `npx cdk synth` makes, exactly as an operator runs it (esbuild bundling
 * included), made once per set of inputs: the result is kept under `node_modules/.cache` keyed by a
 * hash of everything that goes into it (infra/, functions/, lib/, the lockfile, cdk.json and the
 * context), so the test files that need it share one synth and a source change makes a new one.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { CfnTemplate } from './deployed-stack.ts';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const cacheRoot = join(repo, 'node_modules', '.cache', 'everynode-synth');

/** A synthesized app: its output folder and the stack's template. */
export interface SynthesizedApp {
  /** The `cdk.out` folder (assets under `asset.<hash>`). */
  readonly outDir: string;
  readonly stackName: string;
  /** The id of the Everynode construct in the stack (default `Default`, as infra/app.ts adds it). */
  readonly constructId?: string;
  readonly template: CfnTemplate;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

async function inputsHash(context: Readonly<Record<string, string>>): Promise<string> {
  const hash = createHash('sha256').update(JSON.stringify(Object.entries(context).sort()));
  const files = [
    ...(await filesUnder(join(repo, 'infra'))),
    ...(await filesUnder(join(repo, 'functions'))),
    ...(await filesUnder(join(repo, 'lib'))),
    join(repo, 'package-lock.json'),
    join(repo, 'cdk.json'),
  ];
  for (const file of files)
    hash
      .update(relative(repo, file))
      .update('\0')
      .update(await readFile(file));
  return hash.digest('hex').slice(0, 24);
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * Runs `npx cdk synth` with `-c key=value` for each entry of `context` (unless the same inputs were
 * synthesized before) and reads the stack's template.
 */
export async function synthesizeApp(
  context: Readonly<Record<string, string>>,
  stackName = 'Everynode',
): Promise<SynthesizedApp> {
  const outDir = join(cacheRoot, await inputsHash(context));
  // Concurrent tests of one file share one synth: four at once on two cores outlast their timeout.
  const key = `${outDir}#${stackName}`;
  let pending = inFlight.get(key);
  if (pending === undefined) {
    pending = synthesizeInto(outDir, context, stackName);
    inFlight.set(key, pending);
    pending.catch(() => inFlight.delete(key));
  }
  const app = await pending;
  return { ...app, template: structuredClone(app.template) };
}

/** The synths of this process, by output folder and stack. */
const inFlight = new Map<string, Promise<SynthesizedApp>>();

async function synthesizeInto(
  outDir: string,
  context: Readonly<Record<string, string>>,
  stackName: string,
): Promise<SynthesizedApp> {
  if (!(await exists(join(outDir, `${stackName}.template.json`)))) {
    await mkdir(cacheRoot, { recursive: true });
    const scratch = await mkdtemp(join(cacheRoot, 'synth-'));
    const contextArgs = Object.entries(context).flatMap(([key, value]) => ['-c', `${key}=${value}`]);
    await run('npx', ['cdk', 'synth', '--quiet', '--output', scratch, ...contextArgs], {
      cwd: repo,
      env: { ...process.env, CDK_DISABLE_VERSION_CHECK: '1', AWS_REGION: 'us-east-1' },
      timeout: 240_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    // Another test file may have finished the same synth meanwhile: keep the first.
    await rename(scratch, outDir).catch(() => rm(scratch, { recursive: true, force: true }));
  }
  const template = JSON.parse(await readFile(join(outDir, `${stackName}.template.json`), 'utf8'));
  return { outDir, stackName, template: template as CfnTemplate };
}

/**
 * The context the tests synthesize with: a cluster name, and `apps/v1` as the managed kind so
 * `kubectl rollout status` works on the scenario's DaemonSets.
 */
export const TEST_APP_CONTEXT: Readonly<Record<string, string>> = {
  clusterName: 'offline-cluster',
  managedKind: 'apps/v1',
};

/** One of the pipeline's functions in an assembly: its short name and its asset folder. */
export interface FunctionBundle {
  /** `Relay`, `Router` or `Reconcile`. */
  readonly name: string;
  readonly logicalId: string;
  /** The asset folder (holding `index.mjs`). */
  readonly dir: string;
}

/** The bundles of the pipeline's functions (`Functions/*`) in `app`, in template order. */
export function functionBundles(app: SynthesizedApp): FunctionBundle[] {
  return Object.entries(app.template.Resources).flatMap(([logicalId, resource]) => {
    const asset = resource.Metadata?.['aws:asset:path'];
    if (
      resource.Type !== 'AWS::Lambda::Function' ||
      typeof asset !== 'string' ||
      !logicalId.startsWith('Functions')
    )
      return [];
    const name = logicalId.replace(/^Functions/, '').replace(/[0-9A-F]{8}$/, '');
    return [{ name, logicalId, dir: join(app.outDir, asset) }];
  });
}
