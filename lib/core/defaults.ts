/**
 * apps/v1 defaulting of a DaemonSet: upstream pkg/apis/apps/v1 defaults.go SetDefaults_DaemonSet
 * plus the pod-template parts of pkg/apis/core/v1 defaults.go (SetDefaults_PodSpec,
 * SetDefaults_Container, SetDefaults_ContainerPort) that change the stored template.
 */
import type { V1Container, V1PodSpec } from '@kubernetes/client-node';
import type { DaemonSet } from './daemon-set.ts';

/**
 * A copy of `ds` with the defaults the API server applies to an apps/v1 DaemonSet: updateStrategy
 * RollingUpdate with maxUnavailable 1 and maxSurge 0, revisionHistoryLimit 10; template
 * restartPolicy Always, dnsPolicy ClusterFirst, schedulerName default-scheduler,
 * terminationGracePeriodSeconds 30, securityContext {}; per container terminationMessagePath
 * /dev/termination-log, terminationMessagePolicy File, imagePullPolicy (Always for `:latest` or an
 * untagged image, else IfNotPresent), port protocol TCP. Set fields are never changed; the input is
 * not modified.
 */
export function defaultDaemonSet(ds: Readonly<DaemonSet>): DaemonSet {
  const copy = structuredClone(ds) as DaemonSet;
  if (copy.spec === undefined) return copy;
  const spec = copy.spec;
  const strategy = spec.updateStrategy ?? {};
  if (!strategy.type) strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const rollingUpdate = strategy.rollingUpdate ?? {};
    rollingUpdate.maxUnavailable ??= 1;
    rollingUpdate.maxSurge ??= 0;
    strategy.rollingUpdate = rollingUpdate;
  }
  spec.updateStrategy = strategy;
  spec.revisionHistoryLimit ??= 10;
  if (spec.template?.spec) defaultPodSpec(spec.template.spec);
  return copy;
}

function defaultPodSpec(podSpec: V1PodSpec): void {
  podSpec.restartPolicy ??= 'Always';
  podSpec.dnsPolicy ??= 'ClusterFirst';
  podSpec.schedulerName ??= 'default-scheduler';
  podSpec.terminationGracePeriodSeconds ??= 30;
  podSpec.securityContext ??= {};
  for (const container of [...(podSpec.initContainers ?? []), ...(podSpec.containers ?? [])]) {
    defaultContainer(container);
  }
}

function defaultContainer(container: V1Container): void {
  container.terminationMessagePath ??= '/dev/termination-log';
  container.terminationMessagePolicy ??= 'File';
  container.imagePullPolicy ??= pullPolicyFor(container.image ?? '');
  for (const port of container.ports ?? []) port.protocol ??= 'TCP';
}

/** Upstream SetDefaults_Container: Always for the `latest` tag or no tag (digests count as tags). */
function pullPolicyFor(image: string): string {
  if (image.includes('@')) return 'IfNotPresent';
  const lastSegment = image.slice(image.lastIndexOf('/') + 1);
  const colon = lastSegment.lastIndexOf(':');
  const tag = colon === -1 ? '' : lastSegment.slice(colon + 1);
  return tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent';
}
