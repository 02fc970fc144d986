/**
 * The range of sizes a DaemonSet's node-sizing rules give on the nodes that should run it, as the
 * one line `status.nodeSizing` holds on everynode.dev/v1 (`agent cpu 50m-639m memory 186Mi-6Gi`),
 * which `kubectl get eds -o wide` shows and `kubectl everynode rollout plan` prints.
 */
import type { DaemonSet } from '../daemon-set.ts';
import type { NodeView } from '../node-view.ts';
import { nodeSizingOf } from './node-sizing.ts';
import { sizingRange, sizingRangeText } from './sizing-range.ts';

/**
 * The range over the nodes of `views` that should run the daemon; undefined when the DaemonSet has
 * no rules in effect (none, or invalid) or no node to size.
 */
export function nodeSizingText(ds: Readonly<DaemonSet>, views: readonly NodeView[]): string | undefined {
  const rules = nodeSizingOf(ds);
  if (rules.length === 0) return undefined;
  const nodes = views.flatMap((view) => (view.shouldRun && view.node !== undefined ? [view.node] : []));
  const spec = ds.spec?.template?.spec ?? { containers: [] };
  const text = sizingRangeText(sizingRange(spec, rules, nodes));
  return text === '' ? undefined : text;
}
