/**
 * `everynode/blueprints`: everynode as an add-on of EKS Blueprints (`@aws-quickstart/eks-blueprints`,
 * an optional peer dependency): `blueprint.addOns(new EverynodeAddOn({ alarmTopic }))`. Its
 * `deploy` adds the `Everynode` construct to the blueprint's cluster stack, for the blueprint's
 * cluster, and applies the CRD and RBAC through that cluster's kubectl provider, so one
 * `cdk deploy` of the blueprint installs everything.
 */
import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { type ICluster as ClusterV1, KubernetesManifest as ManifestV1 } from 'aws-cdk-lib/aws-eks';
import type { ICluster } from 'aws-cdk-lib/aws-eks-v2';
import type { Construct } from 'constructs';
import { manifestObjects } from './constructs/cluster-manifests.ts';
import { Everynode } from './everynode.ts';
import type { EverynodeProps } from './everynode-props.ts';

/** What of a Blueprints `ClusterInfo` the add-on reads: the cluster, as aws-eks or aws-eks-v2. */
export interface BlueprintsClusterInfo {
  readonly cluster: ClusterV1;
  readonly clusterv2?: ICluster | undefined;
}

/** The add-on's props: the construct's, the cluster coming from the blueprint. */
export type EverynodeAddOnProps = Omit<EverynodeProps, 'cluster' | 'clusterName'>;

/** everynode as an EKS Blueprints `ClusterAddOn`. */
export class EverynodeAddOn {
  /** The add-on's id in the blueprint. */
  readonly id = 'everynode';

  constructor(private readonly props: EverynodeAddOnProps = {}) {}

  /** Adds everynode to the blueprint's cluster (Blueprints calls this once, at synth). */
  async deploy(clusterInfo: BlueprintsClusterInfo): Promise<Construct> {
    const v2 = clusterInfo.clusterv2;
    if (v2) return new Everynode(Stack.of(v2), 'Everynode', { ...this.props, cluster: v2 });
    const cluster = clusterInfo.cluster;
    const everynode = new Everynode(Stack.of(cluster), 'Everynode', {
      ...this.props,
      clusterName: cluster.clusterName,
    });
    // An aws-eks cluster has a kubectl provider of its own: the same objects, applied as the
    // construct applies them to an aws-eks-v2 cluster (constructs/cluster-manifests.ts).
    const objects = manifestObjects(everynode.settings.managedKind);
    const crd = objects.crd
      ? new ManifestV1(everynode, 'ManifestsCrd', {
          cluster,
          manifest: [objects.crd],
          overwrite: true,
          removalPolicy: RemovalPolicy.RETAIN,
        })
      : undefined;
    const rbac = new ManifestV1(everynode, 'ManifestsRbac', {
      cluster,
      manifest: objects.rbac,
      overwrite: true,
    });
    if (crd) rbac.node.addDependency(crd);
    return everynode;
  }
}
