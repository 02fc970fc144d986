/**
 * Builds what `npm pack` ships into `dist/` (`npm run build`; `prepack` runs it): the declarations
 * of lib/, functions/ and infra/ (tsc, tsconfig.build.json), the data files the code reads beside
 * itself, the two commands and `everynode/cdk` as bundles with their packages inside (so the
 * package has no dependencies to install but its peers), and the three function bundles prebuilt
 * (`dist/bundles/<name>/index.mjs`, with the settings the repository's synth bundles with), so a
 * user's `cdk synth` builds nothing.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, build, type Plugin } from 'esbuild';
import { BUNDLE_SETTINGS, FUNCTION_NAMES } from './bundle-settings.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dist = `${root}dist/`;

/** What every bundle shares: one ESM file for Node.js 22 with its packages inside. */
const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  sourcemap: false,
  target: BUNDLE_SETTINGS.target,
  mainFields: [...BUNDLE_SETTINGS.mainFields],
  banner: { js: BUNDLE_SETTINGS.banner },
  alias: { ...BUNDLE_SETTINGS.alias },
  logLevel: 'warning',
} satisfies BuildOptions;

/** Data files the code reads at run time from beside itself, copied to the same place in dist/. */
const DATA = ['infra/k8s', 'infra/bundling/whatwg-url.mjs', 'lib/sim/fixtures', 'lib/cli/demo'];

/** The commands: the compiled CLI, started in this very process as bin/ starts the TypeScript one. */
const COMMANDS: Readonly<Record<string, string>> = {
  'everynode.js': '../lib/cli/main.js',
  'kubectl-everynode.js': '../lib/kubectl-plugin/main.js',
};

/**
 * The entry points bundled whole, each at the place tsc put it (dist/<path>.js), so that the paths
 * the code finds its data files by (relative to each source file: see `keepFileUrls`) still hold:
 * the two commands, `everynode/cdk` and `everynode/blueprints` (aws-cdk-lib and constructs left to
 * the user's install).
 */
const ENTRIES: readonly { readonly source: string; readonly external: readonly string[] }[] = [
  { source: 'lib/cli/main.ts', external: [] },
  { source: 'lib/kubectl-plugin/main.ts', external: [] },
  { source: 'infra/index.ts', external: ['aws-cdk-lib', 'aws-cdk-lib/*', 'constructs'] },
  { source: 'infra/blueprints.ts', external: ['aws-cdk-lib', 'aws-cdk-lib/*', 'constructs'] },
];

/**
 * An esbuild plugin that keeps each source file's `import.meta.url` its own: in a bundle every
 * module shares the bundle's URL, so `new URL('./fixtures/nodes.yaml', import.meta.url)` would look
 * beside the bundle. Each module's is replaced by its file's URL in dist/, computed from the
 * bundle's at run time, so the package can be installed anywhere.
 */
function keepFileUrls(bundle: string): Plugin {
  return {
    name: 'keep-file-urls',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes('import.meta.url')) return undefined;
        const inDist = `${dist}${relative(root, args.path).replace(/\.ts$/, '.js')}`;
        const fromBundle = relative(dirname(bundle), inDist);
        const url = `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`;
        return { contents: source.replaceAll('import.meta.url', url), loader: 'ts' };
      });
    },
  };
}

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
await Promise.all([
  ...FUNCTION_NAMES.map((name) =>
    build({
      ...common,
      entryPoints: [`${root}functions/${name}/index.ts`],
      outfile: `${dist}bundles/${name}/index.mjs`,
      minify: true,
      external: [...BUNDLE_SETTINGS.external],
      define: { ...BUNDLE_SETTINGS.define },
    }),
  ),
  ...ENTRIES.map(({ source, external }) => {
    const outfile = `${dist}${source.replace(/\.ts$/, '.js')}`;
    return build({
      ...common,
      entryPoints: [`${root}${source}`],
      outfile,
      external: [...external],
      plugins: [keepFileUrls(outfile)],
    });
  }),
]);
// What the bundles hold needs no file of its own; the declarations stay for `everynode/cdk`'s types,
// their relative imports pointing at the declarations' .js names (tsc keeps the sources' .ts there).
const kept = new Set(ENTRIES.map(({ source }) => `${dist}${source.replace(/\.ts$/, '.js')}`));
for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
  const path = join(entry.parentPath, entry.name);
  if (!entry.isFile()) continue;
  if (path.endsWith('.d.ts')) {
    const text = readFileSync(path, 'utf8');
    writeFileSync(path, text.replace(/((?:from|import\()\s*'\.{1,2}\/[^']*)\.ts'/g, "$1.js'"));
  } else if (path.endsWith('.js') && !path.startsWith(`${dist}bin/`) && !kept.has(path)) rmSync(path);
}
process.stderr.write(`built ${dist}\n`);
