/**
 * A user's project, as the package tests and the `package-install` benchmark make one: an empty
 * directory with a package.json and a CDK app, the packages installed by `npm install` (the local
 * cache first) and the app synthesized by the real `cdk synth`.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The repository's root. */
export const REPO = fileURLToPath(new URL('../../', import.meta.url));

const devDependencies = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'))
  .devDependencies as Record<string, string>;

/** aws-cdk-lib and constructs at the versions the repository builds against. */
export const CDK_LIBRARIES = [
  `aws-cdk-lib@${devDependencies['aws-cdk-lib']}`,
  `constructs@${devDependencies.constructs}`,
];

/** The CDK CLI the repository pins. */
export const CDK_CLI = join(REPO, 'node_modules', 'aws-cdk', 'bin', 'cdk');

/** A user's CDK app: everynode for cluster `prod-eks`, managing apps/v1 so kubectl rollout works. */
export const USER_APP = `import { App, Stack } from 'aws-cdk-lib';
import { Everynode } from 'everynode/cdk';
const app = new App();
const stack = new Stack(app, 'Platform');
new Everynode(stack, 'Everynode', { clusterName: 'prod-eks', managedKind: 'apps/v1' });
`;

/** The same app without everynode: what the package's cost is measured against. */
export const EMPTY_APP = `import { App, Stack } from 'aws-cdk-lib';
const app = new App();
new Stack(app, 'Platform');
`;

/** Runs `command` in `cwd`, with the npm and CDK settings of an offline user; resolves to stdout. */
export async function sh(cwd: string, command: string, args: readonly string[]): Promise<string> {
  const env = {
    ...process.env,
    CDK_DISABLE_VERSION_CHECK: '1',
    AWS_REGION: 'us-east-1',
    npm_config_fund: 'false',
  };
  const { stdout } = await run(command, [...args], {
    cwd,
    env,
    timeout: 300_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/** What `npm pack --json` says of the tarball it wrote. */
export interface PackedPackage {
  readonly filename: string;
  readonly size: number;
  readonly unpackedSize: number;
  readonly entryCount: number;
}

/** What the tarball weighs, as the package test and the benchmark print it: `2.38 MB packed, …`. */
export function packedSize(info: Readonly<PackedPackage>): string {
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(2);
  return `${mb(info.size)} MB packed, ${mb(info.unpackedSize)} MB unpacked, ${info.entryCount} files`;
}

/** `npm pack` of the repository (which builds dist/) into `dir`: the tarball's path and what npm says of it. */
export async function packRepository(dir: string): Promise<{ tarball: string; info: PackedPackage }> {
  const [info] = JSON.parse(await sh(REPO, 'npm', ['pack', '--json', '--pack-destination', dir])) as [
    PackedPackage,
  ];
  return { tarball: join(dir, info.filename), info };
}

/**
 * A new project in `dir` (which must exist): package.json and `app`, then `packages` installed (with
 * `npmFlags` besides the usual) and the app synthesized into `dir/cdk.out`; resolves to the seconds
 * the install and the synth took.
 */
export async function installAndSynth(
  dir: string,
  app: string,
  packages: readonly string[],
  npmFlags: readonly string[] = [],
): Promise<number> {
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'user-app', version: '1.0.0', type: 'module', private: true }),
  );
  writeFileSync(join(dir, 'app.mjs'), app);
  const started = performance.now();
  await sh(dir, 'npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...npmFlags, ...packages]);
  await sh(dir, process.execPath, [
    CDK_CLI,
    'synth',
    '--quiet',
    '--app',
    'node app.mjs',
    '--output',
    'cdk.out',
  ]);
  return (performance.now() - started) / 1000;
}
