/**
 * A daemon pod create sized for its node: the planners (the pair plan, the surge step) build the
 * pod from the template and then give each container the resources the DaemonSet's node-sizing
 * rules call for on that node, from the node object they already hold, so sizing costs no request.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { CreateAction } from '../action.ts';
import type { DaemonSet } from '../daemon-set.ts';
import { nodeSizingOf } from './node-sizing.ts';
import { sizedPodSpec } from './sized-resources.ts';

/** `create` with its pod's containers sized for `node` by `ds`'s rules; as it is without rules or node. */
export function sizedCreate(
  create: CreateAction,
  ds: Readonly<DaemonSet>,
  node: Readonly<V1Node> | undefined,
): CreateAction {
  const rules = nodeSizingOf(ds);
  const spec = create.pod.spec;
  if (rules.length === 0 || node === undefined || spec === undefined) return create;
  return { ...create, pod: { ...create.pod, spec: sizedPodSpec(spec, rules, node) } };
}
