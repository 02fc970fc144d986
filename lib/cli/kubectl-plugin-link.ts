/**
 * The `kubectl-everynode` kubectl plugin on a PATH `everynode run` can name: a link to
 * bin/kubectl-everynode.js in the `bin` folder of the state directory, as `npm i -g` links it into
 * npm's bin folder. kubectl runs any executable named `kubectl-<name>` on the PATH for
 * `kubectl <name> …`, so after `export PATH="<that folder>:$PATH"` the rollout commands that
 * kubectl has only for built-in kinds work for `eds/NAME` too.
 */
import { mkdir, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The plugin's executable in this repository. */
const PLUGIN = fileURLToPath(new URL('../../bin/kubectl-everynode.js', import.meta.url));

/**
 * Links the plugin as `<stateDir>/bin/kubectl-everynode` (replacing an older link) and resolves
 * with that folder; undefined where links cannot be made, when the hint is left out.
 */
export async function linkKubectlPlugin(stateDir: string): Promise<string | undefined> {
  const dir = join(stateDir, 'bin');
  const link = join(dir, 'kubectl-everynode');
  try {
    await mkdir(dir, { recursive: true });
    await rm(link, { force: true });
    await symlink(PLUGIN, link);
    return dir;
  } catch {
    return undefined;
  }
}
