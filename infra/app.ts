/**
 * The repository's own CDK app, a user of the `Everynode` construct like any other app: it reads
 * the settings from CDK context (`-c key=value`), the only place that does. Deploy with
 * `npx cdk deploy -c clusterName=<eks cluster>`; every other setting has a default
 * (docs/reference.md, Configuration). Nothing is looked up at synth time, so `npx cdk synth` works offline.
 */
import { App, Duration, Size, Stack, Validations } from 'aws-cdk-lib';
import { SecurityGroup, Subnet, Vpc } from 'aws-cdk-lib/aws-ec2';
import { AwsSolutionsChecks } from 'cdk-nag';
import { Everynode } from './everynode.ts';
import type { EverynodeProps } from './everynode-props.ts';

const app = new App();
const text = (key: string): string | undefined => {
  const value: unknown = app.node.tryGetContext(key);
  return value === undefined || value === null ? undefined : String(value);
};
const number = (key: string, fallback: number): number => {
  const value = Number(text(key) ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`context ${key} must be a positive number`);
  return value;
};
const list = (key: string): string[] => (text(key) ?? '').split(',').filter((s) => s.trim() !== '');

const managedKind = text('managedKind') ?? 'everynode.dev/v1';
if (managedKind !== 'everynode.dev/v1' && managedKind !== 'apps/v1') {
  throw new Error(`context managedKind must be everynode.dev/v1 or apps/v1, not ${managedKind}`);
}
const stack = new Stack(app, text('stackName') ?? 'Everynode', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  description: 'everynode: a Kubernetes DaemonSet controller on Lambda, SQS and EventBridge',
});
// `Default`: CDK leaves that id out of logical ids, so this app's resources keep the ids they had
// before the construct held them, and a stack deployed then updates in place (docs/design.md, 23).
new Everynode(stack, 'Default', {
  // Synth works without a cluster name so the template can be reviewed; deploying needs it.
  clusterName: text('clusterName') ?? 'set-clusterName-in-context',
  managedKind,
  relayPeriod: Duration.minutes(number('relayEveryMinutes', 5)),
  resyncPeriod: Duration.minutes(number('resyncEveryMinutes', 60)),
  archiveRetention: Duration.days(number('archiveRetentionDays', 14)),
  apiQps: number('apiQps', 50),
  reconcileMaxConcurrency: number('reconcileMaxConcurrency', 20),
  routerMaxConcurrency: number('routerMaxConcurrency', 5),
  maxReceiveCount: number('maxReceiveCount', 5),
  relayMemory: Size.mebibytes(number('relayMemoryMb', 1216)),
  ...vpcFromContext(stack),
});

/** The VPC placement the context names (`vpcId`, `subnetIds`, `securityGroupIds`), if any. */
function vpcFromContext(scope: Stack): Pick<EverynodeProps, 'vpc' | 'vpcSubnets' | 'securityGroups'> {
  const subnetIds = list('subnetIds');
  if (subnetIds.length === 0) return {};
  const vpc = Vpc.fromVpcAttributes(scope, 'Vpc', {
    vpcId: text('vpcId') ?? 'vpc-unknown',
    availabilityZones: subnetIds.map((_, i) => `zone-${i}`),
    privateSubnetIds: subnetIds,
  });
  const securityGroups = list('securityGroupIds').map((id, i) =>
    SecurityGroup.fromSecurityGroupId(scope, `Sg${i}`, id),
  );
  return {
    vpc,
    vpcSubnets: { subnets: subnetIds.map((id, i) => Subnet.fromSubnetId(scope, `Subnet${i}`, id)) },
    ...(securityGroups.length > 0 ? { securityGroups } : {}),
  };
}

Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
