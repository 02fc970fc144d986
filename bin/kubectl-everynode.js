#!/usr/bin/env node
// The kubectl-everynode kubectl plugin: kubectl runs it for `kubectl everynode …` once it is on the
// PATH under this name (npm links it there from package.json's bin). Like the everynode command, it
// runs the TypeScript sources in this very process through tsx's in-process loader, so no build
// step is needed.
import { register as registerHooks } from 'node:module';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

const args = process.argv.slice(2);

// The plugin reads kubeconfigs with client-node's KubeConfig, whose module imports client-node's
// generated API clients and models (some 2,500 modules, a second of CPU at every start) for its
// makeApiClient alone, which the plugin never calls. This hook hands that one import a stand-in with
// the two names config.js takes from it, and leaves every other import alone: should client-node
// lay out its files differently, the hook matches nothing and the real modules load.
const configHooks = `export async function resolve(specifier, context, next) {
  if (specifier === './gen/index.js' && context.parentURL?.endsWith('/@kubernetes/client-node/dist/config.js')) {
    const source = 'export function createConfiguration() { throw new Error("kubectl-everynode makes no API client"); }'
      + ' export class ServerConfiguration {}';
    return { shortCircuit: true, url: 'data:text/javascript,' + encodeURIComponent(source) };
  }
  return next(specifier, context);
}`;

// Commands that talk to a cluster load the kubeconfig support first, before tsx's hooks exist, so
// its modules skip them (the sources importing it later get this same module); help needs none.
if (args.length > 0 && !args.includes('--help') && !args.includes('-h')) {
  registerHooks(`data:text/javascript,${encodeURIComponent(configHooks)}`);
  await import('@kubernetes/client-node/dist/config.js');
}
// The repository's tsconfig, wherever the command is started from.
register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
await import('../lib/kubectl-plugin/main.ts');
