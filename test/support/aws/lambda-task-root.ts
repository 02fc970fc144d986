/**
 * A function's bundle laid out as the Lambda Node.js runtime loads it: the asset folder alone is the
 * task root (`var/task`), and `@aws-sdk/*` resolves only from the runtime's own modules folder
 * outside it (`var/runtime/node_modules`, on `NODE_PATH` as on Lambda), which here links to the
 * SDK versions the lockfile pins. ES module imports fall back to `NODE_PATH` for those packages only,
 * as the runtime's loader does since nodejs18.x; any other package the bundle left out fails to load,
 * as it would on AWS.
 */
import { cp, mkdir, mkdtemp, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A laid-out task root and how to start a Node.js process in it. */
export interface LambdaTaskRoot {
  /** The sandbox folder holding `var/task` and `var/runtime`. */
  readonly root: string;
  /** `LAMBDA_TASK_ROOT`: a copy of the asset folder. */
  readonly taskDir: string;
  /** The runtime's modules folder (the pinned `@aws-sdk/*`). */
  readonly runtimeModules: string;
  /** Node.js arguments that install the runtime's module resolution. */
  readonly nodeArgs: readonly string[];
  /** The environment variables the runtime sets for module loading and the handler. */
  readonly env: Readonly<Record<string, string>>;
}

const repoModules = fileURLToPath(new URL('../../../node_modules/', import.meta.url));
const registerHooks = fileURLToPath(new URL('./lambda-runtime-register.mjs', import.meta.url));

/**
 * Copies `assetDir` (a `cdk.out/asset.*` folder) into a fresh sandbox under `parent` (default the
 * system temp dir) and links the runtime's SDK beside it. `handler` is the template's `Handler`.
 */
export async function layOutTaskRoot(
  assetDir: string,
  handler: string,
  parent: string = tmpdir(),
): Promise<LambdaTaskRoot> {
  const root = await mkdtemp(join(parent, 'lambda-sandbox-'));
  const taskDir = join(root, 'var', 'task');
  const runtimeModules = join(root, 'var', 'runtime', 'node_modules');
  await cp(assetDir, taskDir, { recursive: true });
  await mkdir(runtimeModules, { recursive: true });
  await symlink(join(repoModules, '@aws-sdk'), join(runtimeModules, '@aws-sdk'), 'dir');
  return {
    root,
    taskDir,
    runtimeModules,
    nodeArgs: ['--import', registerHooks],
    env: {
      LAMBDA_TASK_ROOT: taskDir,
      LAMBDA_RUNTIME_DIR: join(root, 'var', 'runtime'),
      NODE_PATH: runtimeModules,
      _HANDLER: handler,
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
      TZ: ':UTC',
      LANG: 'en_US.UTF-8',
    },
  };
}
