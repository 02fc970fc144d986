/**
 * The Kubernetes side of an install, applied by CloudFormation through the cluster's kubectl
 * provider: the CRD of `everynode.dev/v1` (when it is the managed kind) and the ClusterRoles and
 * bindings of the three functions' groups, the same objects `everynode install` applies
 * (infra/k8s/crd-daemonsets.everynode.dev.yaml, lib/kube/rbac/rbac-manifest.ts).
 */
import { readFileSync } from 'node:fs';
import { RemovalPolicy } from 'aws-cdk-lib';
import { type ICluster, KubernetesManifest } from 'aws-cdk-lib/aws-eks-v2';
import { Construct } from 'constructs';
import { parse } from 'yaml';
import type { ManagedKind } from '../../lib/kube/managed-kind.ts';
import { rbacObjects } from '../../lib/kube/rbac/rbac-manifest.ts';

const crdUrl = new URL('../k8s/crd-daemonsets.everynode.dev.yaml', import.meta.url);

/** Props of {@link ClusterManifests}. */
export interface ClusterManifestsProps {
  readonly cluster: ICluster;
  readonly managedKind: ManagedKind;
}

/** The objects of an install of `managedKind`: the CRD (for `everynode.dev/v1`) and the RBAC. */
export function manifestObjects(managedKind: ManagedKind): {
  readonly crd: Record<string, unknown> | undefined;
  readonly rbac: Record<string, unknown>[];
} {
  const crd =
    managedKind === 'everynode.dev/v1'
      ? (parse(readFileSync(crdUrl, 'utf8')) as Record<string, unknown>)
      : undefined;
  const rbac = rbacObjects(managedKind).flatMap(({ role, binding }) => [role, binding]);
  return { crd, rbac: rbac as unknown as Record<string, unknown>[] };
}

/** True when CloudFormation can apply manifests to `cluster`: it has a kubectl provider. */
export function appliesManifests(cluster: ICluster): boolean {
  return cluster.kubectlProvider !== undefined || cluster.kubectlProviderOptions !== undefined;
}

/**
 * The CRD and RBAC manifests of the managed kind, applied to the cluster with `kubectl apply`
 * (`overwrite`), so objects an earlier `everynode install` applied are taken over rather than
 * refused. The CRD is retained when the stack is deleted: deleting it would delete every
 * `everynode.dev/v1` DaemonSet, and garbage collection every pod of theirs, with one `cdk destroy`.
 */
export class ClusterManifests extends Construct {
  /** The CRD, for `everynode.dev/v1`. */
  public readonly crd: KubernetesManifest | undefined;
  public readonly rbac: KubernetesManifest;

  constructor(scope: Construct, id: string, props: ClusterManifestsProps) {
    super(scope, id);
    const { cluster, managedKind } = props;
    const objects = manifestObjects(managedKind);
    this.crd = objects.crd
      ? new KubernetesManifest(this, 'Crd', {
          cluster,
          manifest: [objects.crd],
          overwrite: true,
          removalPolicy: RemovalPolicy.RETAIN,
        })
      : undefined;
    this.rbac = new KubernetesManifest(this, 'Rbac', { cluster, manifest: objects.rbac, overwrite: true });
    if (this.crd) this.rbac.node.addDependency(this.crd);
  }
}
