/**
 * The bundles the cold-start benchmark (cold-start.ts) starts: the three pipeline functions as
 * `cdk synth` bundles them, a baseline handler that only builds an SQS client (from the runtime's
 * SDK), and the reconcile function with the other choice of AWS SDK than the deployed one (bundled
 * in, or left to the Lambda runtime). Each is laid out as the Lambda runtime loads it, with the
 * environment its function gets on AWS (tokens of the template replaced by plausible values).
 */
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { EnvironmentName } from '../../lib/config/environment-names.ts';
import { generateServingCertificates } from '../../lib/sim/auth/serving-certificates.ts';
import { type LambdaTaskRoot, layOutTaskRoot } from '../support/aws/lambda-task-root.ts';

const run = promisify(execFile);
const repoDir = fileURLToPath(new URL('../../', import.meta.url));

/** One handler module to start, laid out as a Lambda task root. */
export interface ColdStartBundle {
  /** What the table calls it. */
  readonly name: string;
  /** Bytes of the asset folder (the bundle Lambda downloads and loads). */
  readonly sizeBytes: number;
  /** The laid-out task root (module resolution as on Lambda). */
  readonly task: LambdaTaskRoot;
  /** The handler module's path inside the task root. */
  readonly modulePath: string;
  /** The function's own environment variables (its template's, tokens resolved). */
  readonly environment: Readonly<Record<string, string>>;
  /** Whether the 1.5 × baseline goal applies (the deployed functions) or the row is for comparison. */
  readonly hasGoal: boolean;
}

interface TemplateResource {
  readonly Type: string;
  readonly Metadata?: Record<string, unknown>;
  readonly Properties?: {
    readonly Handler?: string;
    readonly Environment?: { readonly Variables?: Record<string, unknown> };
  };
}

/** Runs the real `npx cdk synth` into `outDir` (offline, as test/infra/cdk-synth.test.ts does). */
export async function synthesize(outDir: string): Promise<void> {
  await run('npx', ['cdk', 'synth', '--quiet', '--output', outDir, '-c', 'clusterName=bench'], {
    cwd: repoDir,
    env: { ...process.env, CDK_DISABLE_VERSION_CHECK: '1', AWS_REGION: 'us-east-1' },
    timeout: 240_000,
    maxBuffer: 16 * 1024 * 1024,
  });
}

/**
 * Values for the variables the template sets from other resources (`Ref`, `Fn::GetAtt`): an https
 * endpoint nothing listens on, a real CA certificate, queue URLs, names. Resolved static values of
 * the template are used as they are.
 */
async function plausibleValues(): Promise<Record<string, string>> {
  const { caCertificate } = await generateServingCertificates();
  const queue = (name: string) => `https://sqs.us-east-1.amazonaws.com/123456789012/${name}`;
  return {
    [EnvironmentName.clusterEndpoint]: 'https://127.0.0.1:9',
    [EnvironmentName.clusterCa]: Buffer.from(caCertificate).toString('base64'),
    [EnvironmentName.workQueueUrl]: queue('everynode-work.fifo'),
    [EnvironmentName.workDlqUrl]: queue('everynode-work-dlq.fifo'),
    [EnvironmentName.ingressQueueUrl]: queue('everynode-ingress'),
    [EnvironmentName.relayCheckpointParameter]: '/everynode/relay-checkpoint',
    [EnvironmentName.eventBusName]: 'everynode',
  };
}

/** A function's environment: the template's values, each token replaced by its plausible value. */
function functionEnvironment(
  variables: Record<string, unknown>,
  plausible: Readonly<Record<string, string>>,
  functionName: string,
): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(variables)) {
    const resolved = typeof value === 'string' ? value : plausible[name];
    if (resolved === undefined) throw new Error(`no plausible value for ${name} of ${functionName}`);
    environment[name] = resolved;
  }
  return environment;
}

async function folderBytes(dir: string): Promise<number> {
  let bytes = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) bytes += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return bytes;
}

async function laidOut(
  name: string,
  assetDir: string,
  handler: string,
  environment: Record<string, string>,
  hasGoal: boolean,
  sandboxes: string,
): Promise<ColdStartBundle> {
  const task = await layOutTaskRoot(assetDir, handler, sandboxes);
  const moduleName = handler.slice(0, handler.lastIndexOf('.'));
  const candidates = [`${moduleName}.mjs`, `${moduleName}.js`].map((file) => join(task.taskDir, file));
  const found = await Promise.all(
    candidates.map((file) =>
      stat(file).then(
        () => file,
        () => undefined,
      ),
    ),
  );
  const modulePath = found.find((file) => file !== undefined);
  if (modulePath === undefined) throw new Error(`${name}: no module for handler ${handler} in ${assetDir}`);
  return { name, sizeBytes: await folderBytes(assetDir), task, modulePath, environment, hasGoal };
}

/** The three pipeline functions of the template synthesized into `outDir`, laid out under `sandboxes`. */
export async function pipelineBundles(outDir: string, sandboxes: string): Promise<ColdStartBundle[]> {
  const template = JSON.parse(await readFile(join(outDir, 'Everynode.template.json'), 'utf8')) as {
    Resources: Record<string, TemplateResource>;
  };
  const plausible = await plausibleValues();
  const bundles: ColdStartBundle[] = [];
  for (const [id, resource] of Object.entries(template.Resources)) {
    const asset = resource.Metadata?.['aws:asset:path'];
    const handler = resource.Properties?.Handler;
    if (resource.Type !== 'AWS::Lambda::Function' || !id.startsWith('Functions')) continue;
    if (typeof asset !== 'string' || handler === undefined) throw new Error(`${id} has no asset or handler`);
    const name = id
      .replace(/^Functions/, '')
      .replace(/[0-9A-F]{8}$/, '')
      .toLowerCase();
    const variables = resource.Properties?.Environment?.Variables ?? {};
    const environment = functionEnvironment(variables, plausible, name);
    bundles.push(await laidOut(name, join(outDir, asset), handler, environment, true, sandboxes));
  }
  if (bundles.length !== 3) throw new Error(`expected 3 pipeline functions, found ${bundles.length}`);
  return bundles.sort((a, b) => a.name.localeCompare(b.name));
}

/** The baseline: a handler module whose whole content is building an SQS client. */
export async function baselineBundle(workDir: string, sandboxes: string): Promise<ColdStartBundle> {
  const assetDir = join(workDir, 'baseline-asset');
  await mkdir(assetDir, { recursive: true });
  await writeFile(
    join(assetDir, 'index.mjs'),
    [
      "import { SQSClient } from '@aws-sdk/client-sqs';",
      'export const sqs = new SQSClient({});',
      'export const handler = async () => ({});',
      '',
    ].join('\n'),
  );
  return laidOut('baseline (SQS client only)', assetDir, 'index.handler', {}, false, sandboxes);
}

/** Which AWS SDK a directly built reconcile bundle uses. */
export type SdkChoice = 'runtime SDK' | 'SDK bundled';

/**
 * The reconcile function bundled by esbuild with the options of infra/constructs/pipeline-functions.ts
 * (as CDK's NodejsFunction passes them) but its own choice of SDK: `@aws-sdk/*` left to the Lambda
 * runtime, or nothing external. Returns the asset folder.
 */
export async function bundleReconcile(workDir: string, sdk: SdkChoice): Promise<string> {
  const assetDir = join(workDir, `reconcile-${sdk.replace(' ', '-')}`);
  await build({
    entryPoints: [join(repoDir, 'functions/reconcile/index.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    minify: true,
    sourcemap: false,
    mainFields: ['module', 'main'],
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
    external: sdk === 'runtime SDK' ? ['@aws-sdk/*'] : [],
    define: { 'process.env.EVERYNODE_EKS_ONLY': '"true"' },
    alias: { 'whatwg-url': join(repoDir, 'infra/bundling/whatwg-url.mjs') },
    outfile: join(assetDir, 'index.mjs'),
    logLevel: 'error',
  });
  return assetDir;
}

/**
 * The reconcile bundle with the other choice of SDK than the deployed one (`deployed`), built
 * directly, with the deployed bundle's environment: so the table shows what the choice costs.
 * Both choices are built; the one identical to the deployed bundle tells which the construct made.
 * Undefined `deployed` when neither is identical (the options here drifted from the construct).
 */
export async function otherSdkReconcile(
  workDir: string,
  sandboxes: string,
  reconcile: ColdStartBundle,
): Promise<{ bundle: ColdStartBundle; deployed: SdkChoice | undefined }> {
  const deployedBytes = await readFile(reconcile.modulePath);
  const choices: SdkChoice[] = ['runtime SDK', 'SDK bundled'];
  const built = await Promise.all(choices.map((sdk) => bundleReconcile(workDir, sdk)));
  const same = await Promise.all(
    built.map(async (dir) => (await readFile(join(dir, 'index.mjs'))).equals(deployedBytes)),
  );
  const deployedIndex = same.indexOf(true);
  const otherIndex = deployedIndex === 0 ? 1 : deployedIndex === 1 ? 0 : 1;
  const other = choices[otherIndex] as SdkChoice;
  const bundle = await laidOut(
    `reconcile, ${other}`,
    built[otherIndex] as string,
    'index.handler',
    { ...reconcile.environment },
    false,
    sandboxes,
  );
  return { bundle, deployed: deployedIndex >= 0 ? choices[deployedIndex] : undefined };
}
