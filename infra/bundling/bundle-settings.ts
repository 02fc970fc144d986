/**
 * How each function's code is bundled, shared by the CDK app's synth-time bundling (NodejsFunction,
 * in the repository) and the prebuilt bundles of the npm package (`build-package.ts`), so both ship
 * the same code: one ESM file per function, minified, for Node.js 22, with a `createRequire` banner
 * (client-node requires Node built-ins at run time).
 */
import { fileURLToPath } from 'node:url';

/** The functions, each `functions/<name>/index.ts` exporting `handler`. */
export const FUNCTION_NAMES = ['relay', 'router', 'reconcile'] as const;

/** The esbuild settings of every function bundle. */
export const BUNDLE_SETTINGS = {
  target: 'node22',
  mainFields: ['module', 'main'],
  // Spelled in two parts, so the package build's rewrite of each file's `import.meta.url` leaves it.
  banner: `import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta${'.url'});`,
  // The SDK clients used at init are bundled (tree-shaken ESM loads faster than the runtime's
  // CommonJS SDK); the EC2 and Lambda clients, loaded on demand, come from the runtime
  // (test/bench/cold-start.ts).
  external: ['@aws-sdk/client-ec2', '@aws-sdk/client-lambda'],
  // On AWS the cluster is reached through EKS only: the kubeconfig support is left out.
  define: { 'process.env.EVERYNODE_EKS_ONLY': '"true"' },
  alias: { 'whatwg-url': fileURLToPath(new URL('./whatwg-url.mjs', import.meta.url)) },
} as const;
