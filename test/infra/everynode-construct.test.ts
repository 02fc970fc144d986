/**
 * The Everynode construct as a user's stack meets it: its props checked at synth with the prop
 * named, the alarms notifying a topic, and, for a cluster with a kubectl provider, the CRD and
 * RBAC applied by CloudFormation (the same objects `everynode install` applies).
 */
import { readFileSync } from 'node:fs';
import { App, Duration, Size, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Vpc } from 'aws-cdk-lib/aws-ec2';
import { Cluster, KubectlProvider } from 'aws-cdk-lib/aws-eks-v2';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { Everynode } from '../../infra/everynode.ts';
import { type EverynodeProps, EverynodePropsError, everynodeSettings } from '../../infra/everynode-props.ts';
import { rbacObjects } from '../../lib/kube/rbac/rbac-manifest.ts';

/** A user's stack, bundling skipped (the assertions are on the template). */
function aStack(): Stack {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  return new Stack(app, 'Platform', { env: { account: '111122223333', region: 'eu-west-1' } });
}

/** A cluster defined elsewhere, imported with the kubectl provider its stack exports. */
function importedCluster(stack: Stack, withKubectl: boolean) {
  const kubectlProvider = withKubectl
    ? KubectlProvider.fromKubectlProviderAttributes(stack, 'Kubectl', {
        serviceToken: 'arn:aws:lambda:eu-west-1:111122223333:function:kubectl-provider',
      })
    : undefined;
  return Cluster.fromClusterAttributes(stack, 'Cluster', {
    clusterName: 'prod-eks',
    ...(kubectlProvider ? { kubectlProvider } : {}),
  });
}

type Manifest = { metadata?: { labels?: Record<string, string> } } & Record<string, unknown>;

/**
 * The manifests the template applies through the kubectl provider, parsed, each checked to carry
 * the label by which the provider prunes what a later version leaves out, and shown without it.
 */
function appliedManifests(template: Template): Manifest[][] {
  return Object.values(template.findResources('Custom::AWSCDK-EKS-KubernetesResource')).map((resource) =>
    (JSON.parse(String(resource.Properties.Manifest)) as Manifest[]).map((object) => {
      const labels = { ...object.metadata?.labels };
      const prune = Object.keys(labels).filter((key) => key.startsWith('aws.cdk.eks/prune-'));
      expect(prune).toHaveLength(1);
      for (const key of prune) delete labels[key];
      const metadata = { ...object.metadata, ...(Object.keys(labels).length > 0 ? { labels } : {}) };
      if (Object.keys(labels).length === 0) delete metadata.labels;
      return { ...object, metadata };
    }),
  );
}

describe('Everynode props', () => {
  it('apply their defaults', () => {
    const s = everynodeSettings({ clusterName: 'prod-eks' });
    expect({ ...s, cluster: undefined, relayPeriod: s.relayPeriod.toSeconds() }).toMatchObject({
      clusterName: 'prod-eks',
      managedKind: 'everynode.dev/v1',
      relayPeriod: 300,
      relayMemoryMb: 1216,
      apiQps: 50,
      reconcileMaxConcurrency: 20,
      routerMaxConcurrency: 5,
      maxReceiveCount: 5,
    });
    expect(s.resyncPeriod.toSeconds()).toBe(3600);
    expect(s.archiveRetention.toDays()).toBe(14);
  });

  it.each<{ props: EverynodeProps; message: RegExp }>([
    { props: {}, message: /cluster or clusterName must be given, one of them and not both/ },
    {
      props: { clusterName: 'bad name!' },
      message: /clusterName must be an EKS cluster name, not 'bad name!'/,
    },
    {
      props: { clusterName: 'c', relayPeriod: Duration.seconds(30) },
      message: /relayPeriod must be from 1 to 14 minutes, not 30 seconds/,
    },
    {
      props: { clusterName: 'c', relayPeriod: Duration.minutes(15) },
      message: /relayPeriod must be from 1 to 14 minutes/,
    },
    {
      props: { clusterName: 'c', resyncPeriod: Duration.seconds(10) },
      message: /resyncPeriod must be at least a minute/,
    },
    {
      props: { clusterName: 'c', archiveRetention: Duration.hours(1) },
      message: /archiveRetention must be at least a day/,
    },
    {
      props: { clusterName: 'c', relayMemory: Size.mebibytes(64) },
      message: /relayMemory \(MiB\) must be an integer from 128 to 10240, not 64/,
    },
    { props: { clusterName: 'c', apiQps: 0 }, message: /apiQps must be a number from 1 to 10000, not 0/ },
    {
      props: { clusterName: 'c', reconcileMaxConcurrency: 1 },
      message: /reconcileMaxConcurrency must be an integer from 2 to 1000, not 1/,
    },
    {
      props: { clusterName: 'c', routerMaxConcurrency: 2.5 },
      message: /routerMaxConcurrency must be an integer/,
    },
    {
      props: { clusterName: 'c', maxReceiveCount: 0 },
      message: /maxReceiveCount must be an integer from 1 to 1000, not 0/,
    },
    {
      props: { clusterName: 'c', managedKind: 'extensions/v1beta1' as never },
      message: /managedKind must be one of everynode.dev\/v1, apps\/v1, not extensions\/v1beta1/,
    },
    {
      props: { clusterName: 'c', vpcSubnets: { subnets: [] } },
      message: /vpcSubnets and securityGroups must be given with a vpc/,
    },
  ])('refuse $message at synth, naming the prop', ({ props, message }) => {
    expect(() => new Everynode(aStack(), 'Everynode', props)).toThrow(EverynodePropsError);
    expect(() => everynodeSettings(props)).toThrow(message);
  });

  it('take the cluster name of a cluster given', () => {
    const stack = aStack();
    const everynode = new Everynode(stack, 'Everynode', { cluster: importedCluster(stack, false) });
    expect(everynode.settings.clusterName).toBe('prod-eks');
    Template.fromStack(stack).hasResourceProperties('AWS::EKS::AccessEntry', { ClusterName: 'prod-eks' });
  });

  it('place the functions in the VPC and subnets given', () => {
    const stack = aStack();
    const vpc = Vpc.fromVpcAttributes(stack, 'Vpc', {
      vpcId: 'vpc-1',
      availabilityZones: ['eu-west-1a'],
      privateSubnetIds: ['subnet-1'],
    });
    new Everynode(stack, 'Everynode', { clusterName: 'prod-eks', vpc });
    const functions = Template.fromStack(stack).findResources('AWS::Lambda::Function', {
      Properties: { VpcConfig: { SubnetIds: ['subnet-1'] } },
    });
    expect(Object.keys(functions)).toHaveLength(3);
  });
});

describe('Everynode alarms', () => {
  it('notify the alarm topic on alarm and back to OK, every one of them', () => {
    const stack = aStack();
    const topic = new Topic(stack, 'Pager');
    const everynode = new Everynode(stack, 'Everynode', { clusterName: 'prod-eks', alarmTopic: topic });
    const template = Template.fromStack(stack);
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms).toHaveLength(everynode.alarms.length);
    const topicRef = { Ref: stack.getLogicalId(topic.node.defaultChild as never) };
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([topicRef]);
      expect(alarm.Properties.OKActions).toEqual([topicRef]);
    }
  });

  it('notify nobody without one', () => {
    const stack = aStack();
    new Everynode(stack, 'Everynode', { clusterName: 'prod-eks' });
    Template.fromStack(stack).allResourcesProperties('AWS::CloudWatch::Alarm', {
      AlarmActions: Match.absent(),
      OKActions: Match.absent(),
    });
  });
});

describe('Everynode and the Kubernetes manifests', () => {
  const crd = parse(
    readFileSync(new URL('../../infra/k8s/crd-daemonsets.everynode.dev.yaml', import.meta.url), 'utf8'),
  );
  const rbac = (kind: 'everynode.dev/v1' | 'apps/v1') =>
    JSON.parse(JSON.stringify(rbacObjects(kind).flatMap(({ role, binding }) => [role, binding])));

  it.each(['everynode.dev/v1', 'apps/v1'] as const)(
    'applies the CRD and the RBAC of %s through the kubectl provider of the cluster, the RBAC after the CRD',
    (managedKind) => {
      const stack = aStack();
      const everynode = new Everynode(stack, 'Everynode', {
        cluster: importedCluster(stack, true),
        managedKind,
      });
      const template = Template.fromStack(stack);
      const manifests = appliedManifests(template);
      const expected = managedKind === 'everynode.dev/v1' ? [[crd], rbac(managedKind)] : [rbac(managedKind)];
      expect(manifests).toEqual(expected);
      template.allResourcesProperties('Custom::AWSCDK-EKS-KubernetesResource', {
        ServiceToken: 'arn:aws:lambda:eu-west-1:111122223333:function:kubectl-provider',
        ClusterName: 'prod-eks',
        // kubectl apply: objects an earlier `everynode install` made are taken over.
        Overwrite: true,
      });
      // A cdk destroy keeps the CRD, and so the DaemonSets and their pods.
      const retained = template.findResources('Custom::AWSCDK-EKS-KubernetesResource', {
        DeletionPolicy: 'Retain',
      });
      expect(Object.keys(retained)).toHaveLength(managedKind === 'everynode.dev/v1' ? 1 : 0);
      if (everynode.manifests?.crd) {
        const rbacId = stack.getLogicalId(everynode.manifests.rbac.node.defaultChild as never);
        const crdId = stack.getLogicalId(everynode.manifests.crd.node.defaultChild as never);
        expect(template.toJSON().Resources[rbacId].DependsOn).toContain(crdId);
      }
    },
  );

  it('applies nothing to a cluster without a kubectl provider (everynode install does it)', () => {
    const stack = aStack();
    const everynode = new Everynode(stack, 'Everynode', { cluster: importedCluster(stack, false) });
    expect(everynode.manifests).toBeUndefined();
    Template.fromStack(stack).resourceCountIs('Custom::AWSCDK-EKS-KubernetesResource', 0);
  });
});
