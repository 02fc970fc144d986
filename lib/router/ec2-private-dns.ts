/**
 * The router's fallback for EC2 events on clusters whose nodes lack `spec.providerID`: the private
 * DNS name of the instance (EC2 DescribeInstances), which is the node name EKS gives nodes by
 * default (`ip-10-0-1-23.eu-west-1.compute.internal`).
 */
import { DescribeInstancesCommand, type EC2Client } from '@aws-sdk/client-ec2';

/** The error codes of an instance id EC2 does not know (terminated long ago, or malformed). */
const UNKNOWN_INSTANCE = new Set(['InvalidInstanceID.NotFound', 'InvalidInstanceID.Malformed']);

/**
 * A lookup of an instance's private DNS name through `ec2`: undefined when EC2 does not know the
 * instance or it has none. Other failures (throttling, no permission) reject, so the trigger is
 * retried.
 */
export function ec2PrivateDnsNames(ec2: EC2Client): (instanceId: string) => Promise<string | undefined> {
  return async (instanceId) => {
    try {
      const answer = await ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceId] }));
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
