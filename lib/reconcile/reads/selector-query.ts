/**
 * Label selectors as the `labelSelector` query parameter of a LIST (upstream apimachinery
 * metav1.LabelSelectorAsSelector, then labels.Selector.String()).
 */
import type { V1LabelSelector } from '@kubernetes/client-node';
import { NODE_LABEL, nodeLabelValue } from '../../core/daemon-pod.ts';

/**
 * The selector of the pods everynode created for one node, bound or not (`everynode.dev/node`), of
 * every DaemonSet of the namespace: the pair plan acts only on those the DaemonSet controls, but
 * every name listed is one a new pod must not take — including the pod the DaemonSet released when
 * its labels stopped matching the selector, which a selector-based LIST would miss.
 */
export function pairPodsQuery(nodeName: string): string {
  return `${NODE_LABEL}=${nodeLabelValue(nodeName)}`;
}

/** The negation of one requirement, in the text form. */
function negated(key: string, operator: string, values: readonly string[]): string {
  const list = [...values].sort().join(',');
  switch (operator) {
    case 'In':
      return `${key} notin (${list})`;
    case 'NotIn':
      return `${key} in (${list})`;
    case 'Exists':
      return `!${key}`;
    default:
      return key;
  }
}

/**
 * Queries whose union is exactly the pods labelled `ownLabel` that `selector` does not match: one
 * per requirement, each the requirement negated (`k!=v` also matches pods without `k`). Used to find
 * the pods a DaemonSet must release without listing all of its pods a second time: each answer is
 * normally empty. An empty selector has no requirement to violate.
 */
export function violationQueries(
  selector: Readonly<V1LabelSelector> | undefined,
  ownLabel: string,
): string[] {
  const requirements = [
    ...Object.entries(selector?.matchLabels ?? {}).map(([key, value]) => negated(key, 'In', [value])),
    ...(selector?.matchExpressions ?? []).map(({ key, operator, values = [] }) =>
      negated(key, operator, values),
    ),
  ];
  return requirements.map((requirement) => `${ownLabel},${requirement}`);
}
