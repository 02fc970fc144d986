/**
 * Builds what `npm pack` ships into `dist/` (`npm run build`; `prepack` runs it): the JavaScript and
 * declarations of lib/, functions/ and infra/ (tsc, tsconfig.build.json), the data files they read
 * beside them, the two commands, and the three function bundles prebuilt (`dist/bundles/<name>/
 * index.mjs`, with the settings the repository's synth bundles with), so a user's `cdk synth`
 * builds nothing.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { BUNDLE_SETTINGS, FUNCTION_NAMES } from './bundle-settings.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dist = `${root}dist/`;

/** Data files the code reads at run time from beside itself, copied to the same place in dist/. */
const DATA = ['infra/k8s', 'infra/bundling/whatwg-url.mjs', 'lib/sim/fixtures', 'lib/cli/demo'];

/** The commands: the compiled CLI, started in this very process as bin/ starts the TypeScript one. */
const COMMANDS: Readonly<Record<string, string>> = {
  'everynode.js': '../lib/cli/main.js',
  'kubectl-everynode.js': '../lib/kubectl-plugin/main.js',
};

rmSync(dist, { recursive: true, force: true });
execFileSync(
  process.execPath,
  [`${root}node_modules/typescript/bin/tsc`, '-p', `${root}tsconfig.build.json`],
  {
    stdio: 'inherit',
  },
);
for (const path of DATA) cpSync(`${root}${path}`, `${dist}${path}`, { recursive: true });
mkdirSync(`${dist}bin`, { recursive: true });
for (const [file, main] of Object.entries(COMMANDS)) {
  writeFileSync(`${dist}bin/${file}`, `#!/usr/bin/env node\nawait import('${main}');\n`);
  chmodSync(`${dist}bin/${file}`, 0o755);
}
await Promise.all(
  FUNCTION_NAMES.map((name) =>
    build({
      entryPoints: [`${root}functions/${name}/index.ts`],
      outfile: `${dist}bundles/${name}/index.mjs`,
      bundle: true,
      platform: 'node',
      format: 'esm',
      minify: true,
      sourcemap: false,
      target: BUNDLE_SETTINGS.target,
      mainFields: [...BUNDLE_SETTINGS.mainFields],
      banner: { js: BUNDLE_SETTINGS.banner },
      external: [...BUNDLE_SETTINGS.external],
      define: { ...BUNDLE_SETTINGS.define },
      alias: { ...BUNDLE_SETTINGS.alias },
      logLevel: 'warning',
    }),
  ),
);
process.stderr.write(`built ${dist}\n`);
