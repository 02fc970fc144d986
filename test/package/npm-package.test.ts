/**
 * The package as a user installs it: `npm pack` (which builds dist/), `npm install <tarball>` into
 * an empty project with aws-cdk-lib and constructs from the registry (the local cache first), a
 * user's stack with `new Everynode(...)` synthesized by the real `cdk synth` out of the prebuilt
 * bundles, that template deployed offline (test/support/aws) and driven as in the deployment tests,
 * and the installed commands run. What the install costs a user, against aws-cdk-lib and constructs
 * alone, is the `package-install` benchmark's figure.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { placesTheSeedDaemonSets, rollsOutAnImageChange } from '../deployment/deployment-scenario.ts';
import type { CfnTemplate } from '../support/aws/deployed-stack.ts';
import { type OfflineDeployment, startOfflineDeployment } from '../support/aws/offline-deployment.ts';
import { kubectlBinary } from '../support/pipeline-harness.ts';
import {
  CDK_CLI,
  CDK_LIBRARIES,
  installAndSynth,
  packedSize,
  packRepository,
  REPO,
  sh,
  USER_APP,
} from '../support/user-project.ts';

describe.runIf(kubectlBinary)('the npm package, installed into an empty project', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'everynode-package-'));
  const [packDir, userDir] = ['pack', 'user'].map((name) => join(scratch, name)) as [string, string];
  let tarball = '';
  let template: CfnTemplate;
  let world: OfflineDeployment | undefined;

  beforeAll(async () => {
    for (const dir of [packDir, userDir]) mkdirSync(dir);
    const packed = await packRepository(packDir);
    tarball = packed.tarball;
    const { info } = packed;
    const seconds = await installAndSynth(userDir, USER_APP, [tarball, ...CDK_LIBRARIES]);
    console.log(
      `npm package: ${packedSize(info)}; install + synth ${seconds.toFixed(1)} s (npm run bench -- package-install compares it)`,
    );
    template = JSON.parse(readFileSync(join(userDir, 'cdk.out', 'Platform.template.json'), 'utf8'));
  }, 600_000);
  afterAll(async () => {
    await world?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('is publishable: npm publish --dry-run passes', async () => {
    const out = await sh(REPO, 'npm', ['publish', '--dry-run', '--ignore-scripts', '--json']);
    expect(JSON.parse(out)).toMatchObject({ everynode: { name: 'everynode', files: expect.any(Array) } });
  }, 120_000);

  it("type-checks a user's TypeScript stack against the package's declarations (strict, no skipLibCheck)", async () => {
    const dir = userDir;
    writeFileSync(
      join(dir, 'stack.ts'),
      `import { App, Duration, Size, Stack } from 'aws-cdk-lib';
import { Everynode, type EverynodeProps, EverynodePropsError } from 'everynode/cdk';
const props: EverynodeProps = { clusterName: 'prod-eks', relayPeriod: Duration.minutes(5), relayMemory: Size.mebibytes(448) };
const everynode = new Everynode(new Stack(new App(), 'Platform'), 'Everynode', props);
const queueName: string = everynode.workQueue.queueName;
const errors: number = everynode.alarms.length;
export { EverynodePropsError, queueName, errors };
`,
    );
    // aws-cdk-lib's own declarations need the disposable lib (as in cdk init's projects).
    const compilerOptions = {
      strict: true,
      noEmit: true,
      module: 'nodenext',
      target: 'es2022',
      lib: ['es2022', 'esnext.disposable'],
      skipLibCheck: false,
      types: [],
    };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['stack.ts'] }));
    await sh(dir, process.execPath, [join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir]);
  }, 120_000);

  it("synthesizes the user's stack from the prebuilt bundles: the user's synth bundles nothing", () => {
    const functions = Object.entries(template.Resources).filter(
      ([, r]) => r.Type === 'AWS::Lambda::Function',
    );
    const ours = functions.filter(([id]) =>
      /^EverynodeFunctions(Relay|Router|Reconcile)[0-9A-F]{8}$/.test(id),
    );
    expect(ours).toHaveLength(3);
    const installed = join(userDir, 'node_modules', 'everynode', 'dist', 'bundles');
    for (const [id, resource] of ours) {
      const asset = String(resource.Metadata?.['aws:asset:path']);
      const name = id
        .replace(/^EverynodeFunctions/, '')
        .replace(/[0-9A-F]{8}$/, '')
        .toLowerCase();
      const shipped = readFileSync(join(installed, name, 'index.mjs'));
      expect(readFileSync(join(userDir, 'cdk.out', asset, 'index.mjs')).equals(shipped)).toBe(true);
      expect(resource.Properties?.Handler).toBe('index.handler');
    }
  });

  it('installs nothing but itself beside aws-cdk-lib and constructs: it bundles what it runs', () => {
    const installed = join(userDir, 'node_modules', 'everynode');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Record<
      string,
      Record<string, unknown> | undefined
    >;
    // No dependency of its own for npm to fetch: only peers, which the user's project already has.
    for (const field of ['dependencies', 'optionalDependencies', 'bundleDependencies', 'bundledDependencies'])
      expect(manifest[field] ?? {}, field).toEqual({});
    expect(Object.keys(manifest.peerDependencies ?? {}).sort()).toEqual([
      '@aws-quickstart/eks-blueprints',
      'aws-cdk-lib',
      'constructs',
    ]);
    expect(manifest.peerDependenciesMeta).toEqual({ '@aws-quickstart/eks-blueprints': { optional: true } });
    expect(existsSync(join(installed, 'node_modules'))).toBe(false);
    // The project's lock records nothing installed for everynode.
    const lock = JSON.parse(readFileSync(join(userDir, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, unknown>;
    };
    expect(Object.keys(lock.packages).filter((path) => path.includes('node_modules/everynode/'))).toEqual([]);
  });

  it('deploys offline and runs the DaemonSets as the repository app does (kubectl rollout status)', async () => {
    const outDir = join(userDir, 'cdk.out');
    world = await startOfflineDeployment({
      app: { outDir, stackName: 'Platform', constructId: 'Everynode', template },
    });
    await placesTheSeedDaemonSets(world);
    expect(await rollsOutAnImageChange(world)).toMatch(/successfully rolled out/);
    expect(world.gateway.calls.filter((c) => !c.allowed)).toEqual([]);
  }, 300_000);

  it('runs the installed commands: everynode run, kubectl everynode rollout status, everynode migrate', async () => {
    const bin = join(userDir, 'node_modules', '.bin');
    const converged = await sh(userDir, join(bin, 'everynode'), [
      'run',
      '--sim-nodes',
      '3',
      '--exit-when-converged',
      '--state-dir',
      join(scratch, 'state-once'),
    ]);
    expect(converged).toMatch(/converged/);
    // A run that stays, in a process group of its own (stopped whole below), and kubectl finding
    // the installed plugin on PATH, as a user's shell does after npm install.
    const state = join(scratch, 'state');
    const running = spawn(join(bin, 'everynode'), ['run', '--sim-nodes', '3', '--state-dir', state], {
      cwd: userDir,
      detached: true,
      stdio: 'ignore',
    });
    try {
      const kubeconfig = join(state, 'kubeconfig');
      const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, KUBECONFIG: kubeconfig };
      const deadline = Date.now() + 60_000;
      let status = '';
      while (Date.now() < deadline) {
        const attempt = await promisify(execFile)(
          String(kubectlBinary),
          ['everynode', '-n', 'kiada', 'rollout', 'status', 'eds/demo', '--timeout=30s'],
          { env, timeout: 40_000 },
        ).catch((error: { stdout?: string; stderr?: string }) => ({
          stdout: '',
          stderr: String(error.stderr),
        }));
        status = attempt.stdout;
        if (/successfully rolled out/.test(status)) break;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      expect(status).toMatch(/daemon set "demo" successfully rolled out/);
      // The way back to apps/v1, planned by the installed command: its checks and the server's dry run.
      const plan = await promisify(execFile)(
        join(bin, 'everynode'),
        ['migrate', 'eds/demo', '--to', 'apps/v1', '-n', 'kiada', '--dry-run'],
        { env, timeout: 40_000 },
      );
      expect(plan.stdout).toMatch(/record the migration .*delete daemonsets\.everynode\.dev "demo"/s);
      expect(plan.stdout).toMatch(/accepts daemonsets\.apps "demo" .*: yes/);
    } finally {
      if (running.pid !== undefined) process.kill(-running.pid, 'SIGTERM');
      await new Promise((resolve) => running.once('exit', resolve));
    }
  }, 180_000);

  it('adds everynode to an EKS Blueprints blueprint as an add-on, synthesized offline', async () => {
    const dir = userDir;
    // The availability zones a blueprint's VPC would look up, given: the synth makes no AWS call.
    const zones =
      "{ 'availability-zones:account=111122223333:region=eu-west-1': ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'] }";
    const app = `import { App } from 'aws-cdk-lib';
import { KubernetesVersion } from 'aws-cdk-lib/aws-eks';
import * as blueprints from '@aws-quickstart/eks-blueprints';
import { EverynodeAddOn } from 'everynode/blueprints';
const app = new App({ context: ${zones} });
blueprints.EksBlueprint.builder()
  .account('111122223333').region('eu-west-1').version(KubernetesVersion.V1_33)
  .addOns(new EverynodeAddOn({ maxReceiveCount: 5 }))
  .build(app, 'platform');
`;
    // Added to the same project, as a user adds Blueprints to the app they have: Blueprints pins
    // its own aws-cdk-lib as a peer, so it goes in beside the newer one, as its users install it.
    // Last in this file, since it changes the project the tests above looked at.
    writeFileSync(join(dir, 'blueprint.mjs'), app);
    await sh(dir, 'npm', [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--legacy-peer-deps',
      '@aws-quickstart/eks-blueprints@1.19.0',
    ]);
    const out = 'cdk.out.blueprint';
    await sh(dir, process.execPath, [
      CDK_CLI,
      'synth',
      '--quiet',
      '--app',
      'node blueprint.mjs',
      '--output',
      out,
    ]);
    const blueprint = JSON.parse(
      readFileSync(join(dir, out, 'platform.template.json'), 'utf8'),
    ) as CfnTemplate;
    const ids = (type: string) =>
      Object.entries(blueprint.Resources)
        .filter(([, resource]) => resource.Type === type)
        .map(([id]) => id.replace(/[0-9A-F]{8}$/, ''));
    expect(ids('AWS::Lambda::Function')).toEqual(
      expect.arrayContaining([
        'EverynodeFunctionsRelay',
        'EverynodeFunctionsRouter',
        'EverynodeFunctionsReconcile',
      ]),
    );
    expect(ids('Custom::AWSCDK-EKS-KubernetesResource')).toEqual(
      expect.arrayContaining(['EverynodeManifestsCrd', 'EverynodeManifestsRbac']),
    );
  }, 300_000);
});
