/**
 * The EKS Blueprints add-on over the clusters a blueprint hands it: an aws-eks one (its kubectl
 * provider applies the CRD and RBAC) and an aws-eks-v2 one (the construct applies them itself).
 */
import { KubectlV33Layer } from '@aws-cdk/lambda-layer-kubectl-v33';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Cluster as ClusterV1 } from 'aws-cdk-lib/aws-eks';
import { Cluster, KubectlProvider } from 'aws-cdk-lib/aws-eks-v2';
import { describe, expect, it } from 'vitest';
import { EverynodeAddOn } from '../../infra/blueprints.ts';
import { Everynode } from '../../infra/everynode.ts';

function aStack(): Stack {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  return new Stack(app, 'Blueprint', { env: { account: '111122223333', region: 'eu-west-1' } });
}

/** The kinds of the manifests the template applies, per manifest, and whether each is retained. */
function applied(template: Template): { kinds: string[]; retained: boolean; overwrite: boolean }[] {
  return Object.values(template.findResources('Custom::AWSCDK-EKS-KubernetesResource')).map((resource) => ({
    kinds: (JSON.parse(String(resource.Properties.Manifest)) as { kind: string }[]).map((o) => o.kind),
    retained: resource.DeletionPolicy === 'Retain',
    overwrite: resource.Properties.Overwrite === true,
  }));
}

describe('EverynodeAddOn', () => {
  it('deploys everynode for an aws-eks cluster and applies the CRD (retained) and RBAC through its kubectl provider', async () => {
    const stack = aStack();
    const cluster = ClusterV1.fromClusterAttributes(stack, 'Cluster', {
      clusterName: 'prod-eks',
      kubectlRoleArn: 'arn:aws:iam::111122223333:role/kubectl',
      kubectlLayer: new KubectlV33Layer(stack, 'Kubectl'),
    });
    const everynode = await new EverynodeAddOn({ maxReceiveCount: 7 }).deploy({ cluster });
    expect(everynode).toBeInstanceOf(Everynode);
    expect((everynode as Everynode).settings).toMatchObject({ clusterName: 'prod-eks', maxReceiveCount: 7 });
    const template = Template.fromStack(stack);
    expect(applied(template)).toEqual([
      { kinds: ['CustomResourceDefinition'], retained: true, overwrite: true },
      {
        kinds: Array.from({ length: 3 }, () => ['ClusterRole', 'ClusterRoleBinding']).flat(),
        retained: false,
        overwrite: true,
      },
    ]);
    template.resourceCountIs('AWS::EKS::AccessEntry', 3);
  });

  it('hands an aws-eks-v2 cluster to the construct, which applies the manifests itself', async () => {
    const stack = aStack();
    const kubectlProvider = KubectlProvider.fromKubectlProviderAttributes(stack, 'Provider', {
      serviceToken: 'arn:aws:lambda:eu-west-1:111122223333:function:kubectl-provider',
    });
    const clusterv2 = Cluster.fromClusterAttributes(stack, 'ClusterV2', {
      clusterName: 'prod-eks',
      kubectlProvider,
    });
    const cluster = ClusterV1.fromClusterAttributes(stack, 'Cluster', { clusterName: 'prod-eks' });
    const everynode = (await new EverynodeAddOn({ managedKind: 'apps/v1' }).deploy({
      cluster,
      clusterv2,
    })) as Everynode;
    expect(everynode.manifests?.crd).toBeUndefined();
    expect(applied(Template.fromStack(stack)).map((m) => m.kinds.length)).toEqual([6]);
  });
});
