/**
 * The router's fallback for EC2 events on clusters whose nodes lack `spec.providerID`: the private
 * DNS name of the instance (EC2 DescribeInstances), which is the node name EKS gives nodes by
 * default (`ip-10-0-1-23.eu-west-1.compute.internal`).
 *
 * The EC2 client is loaded on the first lookup, not at import: it is the largest package of the
 * SDK and only an EC2 event of a node without a provider id needs it, so the router's cold start
 * does not pay for it (the package stays a runtime import of the Lambda runtime's SDK).
 */
import type { EC2Client } from '@aws-sdk/client-ec2';

/** The error codes of an instance id EC2 does not know (terminated long ago, or malformed). */
const UNKNOWN_INSTANCE = new Set(['InvalidInstanceID.NotFound', 'InvalidInstanceID.Malformed']);

type Ec2Sdk = typeof import('@aws-sdk/client-ec2');

/** What a lookup needs of the SDK, once loaded. */
interface Ec2Lookup {
  readonly client: EC2Client;
  readonly DescribeInstancesCommand: Ec2Sdk['DescribeInstancesCommand'];
}

/**
 * A lookup of an instance's private DNS name through `ec2` (by default a client of the default
 * configuration, built on the first lookup): undefined when EC2 does not know the instance or it
 * has none. Other failures (throttling, no permission) reject, so the trigger is retried.
 */
export function ec2PrivateDnsNames(ec2?: EC2Client): (instanceId: string) => Promise<string | undefined> {
  let loading: Promise<Ec2Lookup> | undefined;
  const load = () => {
    loading ??= import('@aws-sdk/client-ec2').then(
      (sdk): Ec2Lookup => ({
        client: ec2 ?? new sdk.EC2Client({}),
        DescribeInstancesCommand: sdk.DescribeInstancesCommand,
      }),
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };
  return async (instanceId) => {
    const { client, DescribeInstancesCommand } = await load();
    try {
      const answer = await client.send(new DescribeInstancesCommand({ InstanceIds: [instanceId] }));
      const instance = answer.Reservations?.flatMap((r) => r.Instances ?? []).find(
        (i) => i.InstanceId === instanceId,
      );
      return instance?.PrivateDnsName || undefined;
    } catch (error) {
      if (error instanceof Error && UNKNOWN_INSTANCE.has(error.name)) return undefined;
      throw error;
    }
  };
}
