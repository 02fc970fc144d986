/**
 * `kubectl everynode rollout plan`: reads the DaemonSet, the cluster's nodes, its pods and its
 * ControllerRevisions, and prints the order in which the rest of its rollout would move the nodes
 * and how long that would take (`rollout-plan-model.ts`, `rollout-plan-text.ts`), changing
 * nothing; with node-sizing rules, a last line with the range of sizes they give the nodes that
 * run it (`node sizing: agent cpu 50m-639m memory 186Mi-6Gi`). `--pod-ready-seconds` (default 30) is the time a new pod takes to become available.
 *
 * Placement tolerates the DaemonSet's own node readiness gate (docs/design.md, 26. Node readiness
 * gates); a node held by another DaemonSet's gate taint counts as one that does not run it.
 */
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import type { DaemonSet } from '../core/daemon-set.ts';
import { labelSelectorQuery } from '../core/label-selector.ts';
import { gateKeysFor } from '../core/node-gates/gate-declaration.ts';
import { nodeSizingText } from '../core/node-sizing/sizing-status.ts';
import { nodeViewsFor } from '../core/node-view.ts';
import { isRollingUpdate } from '../core/rolling-update/budget.ts';
import { printedName } from './daemon-set-target.ts';
import { KubectlError } from './kubectl-error.ts';
import type { KubeObject } from './plugin-api.ts';
import { fetchDaemonSets, type RolloutCommandContext } from './rollout-command-context.ts';
import { rolloutPlanOf } from './rollout-plan-model.ts';
import { planText } from './rollout-plan-text.ts';
import { currentRevisionOf } from './rollout-revision.ts';

/** `--pod-ready-seconds` when not given. */
export const DEFAULT_POD_READY_SECONDS = 30;

/** The plan of one DaemonSet as text. */
async function planOf(
  context: Readonly<RolloutCommandContext>,
  object: Readonly<KubeObject>,
  nodes: readonly V1Node[],
  options: Readonly<{ podReadySeconds: number; now: Date }>,
): Promise<string> {
  const ds = object as unknown as DaemonSet;
  if (!isRollingUpdate(ds)) {
    throw new KubectlError('rollout plan is only available for RollingUpdate strategy type');
  }
  const selector = labelSelectorQuery(ds.spec?.selector);
  const [{ items: pods }, currentHash] = await Promise.all([
    context.api.listPods(context.namespace, selector),
    currentRevisionOf(context.api, object),
  ]);
  const views = nodeViewsFor(ds, nodes, pods as unknown as V1Pod[], gateKeysFor(ds));
  const plan = rolloutPlanOf({ ds, views, currentHash, ...options });
  const sizing = nodeSizingText(ds, views);
  const text = planText(plan, printedName(context.target.kind, object.metadata?.name ?? ''));
  return sizing === undefined ? text : `${text}node sizing: ${sizing}\n`;
}

/** Runs `rollout plan`; resolves with the errors to report. */
export async function rolloutPlan(
  context: Readonly<RolloutCommandContext>,
  now = new Date(),
): Promise<unknown[]> {
  const flag = context.flags.get('pod-ready-seconds');
  const podReadySeconds = typeof flag === 'number' ? flag : DEFAULT_POD_READY_SECONDS;
  if (podReadySeconds < 0) {
    throw new KubectlError(`pod-ready-seconds must be a non-negative integer: ${podReadySeconds}`);
  }
  const { objects, errors } = await fetchDaemonSets(context);
  if (objects.length === 0) return errors;
  const { items } = await context.api.listNodes();
  const nodes = items as unknown as V1Node[];
  const failed: unknown[] = [];
  let first = true;
  for (const object of objects) {
    try {
      const text = await planOf(context, object, nodes, { podReadySeconds, now });
      context.stdout(first ? text : `\n${text}`);
      first = false;
    } catch (error) {
      failed.push(error);
    }
  }
  return [...errors, ...failed];
}
