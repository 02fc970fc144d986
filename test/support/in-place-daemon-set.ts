/**
 * The manifest of a one-container busybox DaemonSet for the in-place e2e tests, of either kind,
 * updating in place when asked (`rollingUpdate.inPlace` on everynode.dev/v1, the
 * `everynode.dev/in-place` annotation on apps/v1), `maxUnavailable: 1`, as JSON for `kubectl apply -f -`.
 */
import type { V1Container } from '@kubernetes/client-node';
import type { ManagedKind } from '../../lib/kube/managed-kind.ts';

/** What the manifest says. */
export interface InPlaceDaemonSetOptions {
  readonly kind: ManagedKind;
  readonly namespace: string;
  readonly name: string;
  readonly inPlace?: 'IfPossible' | 'Never';
  /** Fields of the container beside its name and image (busybox:1.36). */
  readonly container?: Partial<V1Container>;
}

/** The DaemonSet's manifest (selector and pod label `app: NAME`). */
export function inPlaceDaemonSet(options: Readonly<InPlaceDaemonSetOptions>): string {
  const { kind, namespace, name, inPlace, container } = options;
  const byField = inPlace !== undefined && kind === 'everynode.dev/v1';
  const byAnnotation = inPlace !== undefined && kind === 'apps/v1';
  return JSON.stringify({
    apiVersion: kind,
    kind: 'DaemonSet',
    metadata: { name, namespace, annotations: byAnnotation ? { 'everynode.dev/in-place': inPlace } : {} },
    spec: {
      selector: { matchLabels: { app: name } },
      updateStrategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable: 1, ...(byField ? { inPlace } : {}) },
      },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          terminationGracePeriodSeconds: 1,
          containers: [{ name: 'agent', image: 'busybox:1.36', ...container }],
        },
      },
    },
  });
}
