/**
 * Router rule for EC2 `Instance State-change Notification`s: a `node` message for the node backed by
 * the instance, so a starting or stopping instance is looked at before its kubelet or the node
 * lifecycle controller says anything.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { MessageCause } from '../messages/message-cause.ts';
import type { RouterDeps } from './router-deps.ts';
import type { RoutedWork } from './router-work.ts';

/** The instance id in an AWS providerID `aws:///<az>/<instance-id>` (or `aws://<az>/<id>`), if any. */
export function instanceIdOfProviderId(providerId: string | undefined): string | undefined {
  const match = /^aws:\/\/\/?[^/]*\/(i-[0-9a-f]+)$/.exec(providerId ?? '');
  return match?.[1];
}

/**
 * The node backed by instance `instanceId` among `nodes`: by `spec.providerID` (what the AWS cloud
 * provider sets), else by name — nodes named after the instance (EKS resource-name hostnames,
 * `i-0123….<region>.compute.internal`) or after its private DNS name, when `privateDnsName` is known.
 */
export function nodeOfInstance(
  nodes: readonly V1Node[],
  instanceId: string,
  privateDnsName?: string,
): V1Node | undefined {
  const byProvider = nodes.find((n) => instanceIdOfProviderId(n.spec?.providerID) === instanceId);
  if (byProvider) return byProvider;
  return nodes.find((n) => {
    const name = n.metadata?.name ?? '';
    return (
      name === instanceId ||
      name.startsWith(`${instanceId}.`) ||
      (privateDnsName !== undefined && name === privateDnsName)
    );
  });
}

/** The `node` message for the node of `instanceId`, or the reason there is none. */
export async function routeEc2(
  deps: Pick<RouterDeps, 'kube' | 'managedKind' | 'privateDnsNameOf'>,
  instanceId: string,
  cause: MessageCause,
): Promise<{ work: RoutedWork[] } | { ignored: string }> {
  // From the watch cache: a node registered a moment ago may be missing, but its own ADDED event
  // produces the same node work.
  const nodes = (await deps.kube.listNodes({ allowStale: true })).items;
  let node = nodeOfInstance(nodes, instanceId);
  if (!node && deps.privateDnsNameOf)
    node = nodeOfInstance(nodes, instanceId, await deps.privateDnsNameOf(instanceId));
  const name = node?.metadata?.name;
  if (!name) return { ignored: `no node for EC2 instance ${instanceId}` };
  return {
    work: [
      { to: 'work', message: { v: 1, cause, managedKind: deps.managedKind, kind: 'node', node: { name } } },
    ],
  };
}
