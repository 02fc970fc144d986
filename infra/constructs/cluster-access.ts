import { Arn, Stack, Validations } from 'aws-cdk-lib';
import { CfnAccessEntry } from 'aws-cdk-lib/aws-eks';
import { type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { AwsCustomResource, AwsCustomResourcePolicy, PhysicalResourceId } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { type EverynodeFunction, FUNCTION_GROUPS } from '../../lib/kube/rbac/function-groups.ts';

export interface ClusterAccessProps {
  readonly clusterName: string;
}

/**
 * How the functions reach the EKS cluster without synth-time lookups: the endpoint and CA are read
 * at deploy time by a custom resource calling `eks:DescribeCluster`, and each function role gets an
 * EKS access entry mapping it to its own Kubernetes group (`everynode:relay`, `everynode:router`,
 * `everynode:reconcile`), whose rights come only from the RBAC manifest (no EKS access policy, so
 * nothing beyond what that function's ClusterRole grants).
 */
export class ClusterAccess extends Construct {
  public readonly endpoint: string;
  public readonly certificateAuthority: string;
  public readonly accessEntries: CfnAccessEntry[] = [];
  private readonly clusterName: string;

  constructor(scope: Construct, id: string, props: ClusterAccessProps) {
    super(scope, id);
    this.clusterName = props.clusterName;
    const clusterArn = Arn.format(
      { service: 'eks', resource: 'cluster', resourceName: props.clusterName },
      Stack.of(this),
    );
    const describe = new AwsCustomResource(this, 'DescribeCluster', {
      onUpdate: {
        service: 'EKS',
        action: 'describeCluster',
        parameters: { name: props.clusterName },
        physicalResourceId: PhysicalResourceId.of(`${props.clusterName}-endpoint`),
        outputPaths: ['cluster.endpoint', 'cluster.certificateAuthority.data'],
      },
      policy: AwsCustomResourcePolicy.fromStatements([
        new PolicyStatement({ actions: ['eks:DescribeCluster'], resources: [clusterArn] }),
      ]),
      installLatestAwsSdk: false,
    });
    // The provider function is CDK's own singleton; its role and runtime are CDK's to set.
    const provider = Stack.of(this).node.tryFindChild('AWS679f53fac002430cb0da5b7982bd2287');
    if (provider) {
      Validations.of(provider).acknowledge(
        {
          id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
          reason: 'The CDK-provided AwsCustomResource provider uses it only to write its own logs.',
        },
        {
          id: 'AwsSolutions-L1',
          reason: 'The CDK-provided AwsCustomResource provider picks its own runtime.',
        },
      );
    }
    this.endpoint = describe.getResponseField('cluster.endpoint');
    this.certificateAuthority = describe.getResponseField('cluster.certificateAuthority.data');
  }

  /**
   * Lets `role` call the Kubernetes API as a member of `fn`'s group (FUNCTION_GROUPS), and of no
   * other function's; returns the access entry.
   */
  grantKubernetesAccess(id: string, role: IRole, fn: EverynodeFunction): CfnAccessEntry {
    const entry = new CfnAccessEntry(this, id, {
      clusterName: this.clusterName,
      principalArn: role.roleArn,
      kubernetesGroups: [FUNCTION_GROUPS[fn]],
      type: 'STANDARD',
    });
    this.accessEntries.push(entry);
    return entry;
  }
}
