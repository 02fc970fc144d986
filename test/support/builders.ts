/**
 * Fixture builders shared by the tests: small, valid objects with the fields a case cares about
 * given as arguments. Every builder returns a fresh object, so cases can mutate what they get.
 */
import type {
  V1DaemonSet,
  V1Node,
  V1NodeCondition,
  V1Pod,
  V1PodSpec,
  V1Taint,
  V1Toleration,
} from '@kubernetes/client-node';
import type { KubeObject } from '../../lib/sim/storage/store.ts';

export interface NodeOptions {
  labels?: Record<string, string>;
  taints?: V1Taint[];
  unschedulable?: boolean;
  ready?: boolean;
  providerID?: string;
  creationTimestamp?: Date;
}

/** A Ready node named `name` with the usual hostname and os labels plus `labels`. */
export function aNode(name: string, options: NodeOptions = {}): V1Node {
  const ready: V1NodeCondition = { type: 'Ready', status: options.ready === false ? 'False' : 'True' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      uid: `uid-node-${name}`,
      resourceVersion: '1',
      creationTimestamp: options.creationTimestamp ?? new Date('2026-01-01T00:00:00Z'),
      labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', ...options.labels },
    },
    spec: {
      ...(options.taints ? { taints: options.taints } : {}),
      ...(options.unschedulable ? { unschedulable: true } : {}),
      ...(options.providerID ? { providerID: options.providerID } : {}),
    },
    status: { conditions: [ready] },
  };
}

export interface DaemonSetOptions {
  namespace?: string;
  uid?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  image?: string;
  nodeSelector?: Record<string, string>;
  tolerations?: V1Toleration[];
  podSpec?: Partial<V1PodSpec>;
  updateStrategy?: NonNullable<V1DaemonSet['spec']>['updateStrategy'];
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
}

/** A valid `apps/v1` DaemonSet `name` selecting `app=<name>`, one container running `image`. */
export function aDaemonSet(name: string, options: DaemonSetOptions = {}): V1DaemonSet {
  const podLabels = { app: name, ...options.labels };
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {
      name,
      namespace: options.namespace ?? 'default',
      uid: options.uid ?? `uid-ds-${name}`,
      generation: options.generation ?? 1,
      resourceVersion: '1',
      creationTimestamp: new Date('2026-01-01T00:00:00Z'),
      ...(options.annotations ? { annotations: options.annotations } : {}),
    },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: podLabels },
        spec: {
          containers: [{ name: 'main', image: options.image ?? 'busybox:1.36' }],
          restartPolicy: 'Always',
          ...(options.nodeSelector ? { nodeSelector: options.nodeSelector } : {}),
          ...(options.tolerations ? { tolerations: options.tolerations } : {}),
          ...options.podSpec,
        },
      },
      updateStrategy: options.updateStrategy ?? {
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable: 1 },
      },
      ...(options.minReadySeconds !== undefined ? { minReadySeconds: options.minReadySeconds } : {}),
      revisionHistoryLimit: options.revisionHistoryLimit ?? 10,
    },
  };
}

export interface PodOptions {
  namespace?: string;
  uid?: string;
  nodeName?: string;
  labels?: Record<string, string>;
  owner?: V1DaemonSet;
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
  ready?: boolean;
  readySince?: Date;
  creationTimestamp?: Date;
  deletionTimestamp?: Date;
  resourceVersion?: string;
  /** Pod annotations (e.g. everynode.dev/failure-backoff). */
  annotations?: Record<string, string>;
}

/** A pod `name`; with `owner` it is controlled by that DaemonSet and carries its selector labels. */
export function aPod(name: string, options: PodOptions = {}): V1Pod {
  const owner = options.owner;
  const ownerLabels = owner?.spec?.selector.matchLabels ?? {};
  const ready = options.ready ?? options.phase === 'Running';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: options.namespace ?? owner?.metadata?.namespace ?? 'default',
      uid: options.uid ?? `uid-pod-${name}`,
      resourceVersion: options.resourceVersion ?? '1',
      creationTimestamp: options.creationTimestamp ?? new Date('2026-01-01T00:00:00Z'),
      labels: { ...ownerLabels, ...options.labels },
      ...(options.deletionTimestamp ? { deletionTimestamp: options.deletionTimestamp } : {}),
      ...(options.annotations ? { annotations: options.annotations } : {}),
      ...(owner
        ? {
            ownerReferences: [
              {
                apiVersion: owner.apiVersion ?? 'apps/v1',
                kind: owner.kind ?? 'DaemonSet',
                name: owner.metadata?.name ?? '',
                uid: owner.metadata?.uid ?? '',
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          }
        : {}),
    },
    spec: {
      containers: [{ name: 'main', image: 'busybox:1.36' }],
      ...(options.nodeName ? { nodeName: options.nodeName } : {}),
    },
    status: {
      phase: options.phase ?? 'Running',
      conditions: [
        {
          type: 'Ready',
          status: ready ? 'True' : 'False',
          lastTransitionTime: options.readySince ?? new Date('2026-01-01T00:00:00Z'),
        },
      ],
    },
  };
}

/**
 * `ds` as a client would send it to create it as `apiVersion`: a deep copy without the API
 * server's bookkeeping (uid, resourceVersion, creationTimestamp, generation).
 */
export function creatableDaemonSet(ds: Readonly<V1DaemonSet>, apiVersion: string): KubeObject {
  const object = JSON.parse(JSON.stringify({ ...ds, apiVersion, kind: 'DaemonSet' })) as KubeObject;
  const {
    uid: _uid,
    resourceVersion: _rv,
    creationTimestamp: _at,
    generation: _gen,
    ...metadata
  } = object.metadata;
  return { ...object, metadata };
}
