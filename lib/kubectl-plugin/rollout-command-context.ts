/**
 * What every `kubectl everynode rollout` subcommand works with, and the first step they share:
 * fetching the DaemonSets the command line names, as kubectl's resource builder does with
 * ContinueOnError — each name looked up, a missing one an error kept for the end while the others
 * are still acted on.
 */
import type { DaemonSetTarget } from './daemon-set-target.ts';
import { KubectlError } from './kubectl-error.ts';
import type { KubeObject, PluginApi } from './plugin-api.ts';
import type { FlagValue } from './plugin-flags.ts';

/**
 * What one `kubectl everynode rollout …` command runs with: the cluster's API, the parsed command
 * line (namespace, target, flags) and where it writes its output. The rolling-update planner's
 * context is a different thing (`core/rolling-update/step-context.ts`).
 */
export interface RolloutCommandContext {
  readonly api: PluginApi;
  readonly namespace: string;
  readonly target: DaemonSetTarget;
  /** The subcommand's own flags by long name (global ones excluded). */
  readonly flags: ReadonlyMap<string, FlagValue>;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/** The DaemonSets found, in command-line order, and the errors of those that were not. */
export interface FetchedDaemonSets {
  readonly objects: KubeObject[];
  readonly errors: unknown[];
}

/**
 * The DaemonSets `context.target` names: each name fetched (its error kept), or every DaemonSet of
 * the kind in the namespace — none found printing kubectl's `No resources found in NS namespace.`
 * on stderr, which is no error.
 */
export async function fetchDaemonSets(context: Readonly<RolloutCommandContext>): Promise<FetchedDaemonSets> {
  const { api, namespace, target } = context;
  if (target.names === undefined) {
    const { items } = await api.listDaemonSets(target.kind, namespace);
    if (items.length === 0) context.stderr(`No resources found in ${namespace} namespace.\n`);
    return { objects: items, errors: [] };
  }
  const objects: KubeObject[] = [];
  const errors: unknown[] = [];
  for (const name of target.names) {
    try {
      objects.push(await api.getDaemonSet(target.kind, namespace, name));
    } catch (error) {
      errors.push(error);
    }
  }
  return { objects, errors };
}

/** Merge-patches the DaemonSet `name` as kubectl's rollout commands do; a refusal is kubectl's `failed to patch`. */
export async function patchOrFail(
  context: Readonly<RolloutCommandContext>,
  name: string,
  patch: unknown,
): Promise<void> {
  const { kind } = context.target;
  try {
    await context.api.patchDaemonSet(kind, context.namespace, name, 'application/merge-patch+json', patch);
  } catch (error) {
    throw new KubectlError(`failed to patch: ${(error as Error).message}`, { cause: error });
  }
}
