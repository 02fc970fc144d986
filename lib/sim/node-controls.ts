/**
 * Programmatic controls of a simulated cluster's nodes, for tests and benchmarks: add, remove,
 * make (not) Ready, cordon, taint, label. They write through the store in-process like any other
 * client would through the API (no HTTP, so they do not show in the request counters); the
 * node lifecycle controller and the kubelets react to the result as to any API change.
 */
import type { V1Node, V1Taint } from '@kubernetes/client-node';
import { generatedNode } from './sim-nodes.ts';
import { rfc3339 } from './sim-timing.ts';
import type { ClusterStore, KubeObject } from './storage/store.ts';

/** A node control asked about a node that does not exist. */
export class NodeNotFoundError extends Error {
  constructor(
    readonly node: string,
    doing: string,
  ) {
    super(`${doing}: node ${node} does not exist in the simulated cluster`);
    this.name = 'NodeNotFoundError';
  }
}

/** How a node added by name starts out. */
export interface AddNodeOptions {
  readonly labels?: Readonly<Record<string, string>>;
  readonly taints?: readonly V1Taint[];
  readonly unschedulable?: boolean;
  /** The Ready condition: true (default), false, or 'Unknown'. */
  readonly ready?: boolean | 'Unknown';
  readonly providerID?: string;
}

/** A Ready condition value as the controls accept it. */
export type ReadyValue = boolean | 'Unknown';

/** What the kubelet (or the node lifecycle controller, for Unknown) writes for each Ready value. */
function readyCondition(ready: ReadyValue, now: string): Record<string, unknown> {
  const [status, reason, message] =
    ready === 'Unknown'
      ? ['Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.']
      : ready
        ? ['True', 'KubeletReady', 'kubelet is posting ready status']
        : ['False', 'KubeletNotReady', 'container runtime network not ready: NetworkReady=false'];
  return { type: 'Ready', status, reason, message, lastHeartbeatTime: now, lastTransitionTime: now };
}

/** Controls over the nodes of one simulated cluster. */
export class NodeControls {
  constructor(
    private readonly store: ClusterStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** Names of all nodes, sorted. */
  names(): string[] {
    return this.store.view('nodes').map((n) => n.metadata.name ?? '');
  }

  /** A copy of the node, or undefined. */
  get(name: string): V1Node | undefined {
    return this.store.get('nodes', undefined, name) as V1Node | undefined;
  }

  /**
   * Creates a node: a full object, or a name (labelled like the generated nodes, with `options`).
   * Returns the stored node. Throws the store's 409 AlreadyExists when the name is taken.
   */
  add(node: string | Readonly<V1Node>, options: AddNodeOptions = {}): V1Node {
    const object = typeof node === 'string' ? this.nodeNamed(node, options) : (node as KubeObject);
    return this.store.create('nodes', object) as V1Node;
  }

  /** Deletes the node; pod GC then removes the pods bound to it. */
  remove(name: string): void {
    if (!this.store.peek('nodes', undefined, name)) throw new NodeNotFoundError(name, 'removing node');
    this.store.delete('nodes', undefined, name);
  }

  /** Sets the node's Ready condition (its kubelet stops or resumes running pods accordingly). */
  setReady(name: string, ready: ReadyValue): V1Node {
    return this.change(
      name,
      `setting Ready=${String(ready)}`,
      (obj) => {
        const status = (obj.status ?? {}) as { conditions?: Record<string, unknown>[] };
        const others = (status.conditions ?? []).filter((c) => c.type !== 'Ready');
        const before = (status.conditions ?? []).find((c) => c.type === 'Ready');
        const next = readyCondition(ready, rfc3339(this.now()));
        if (before && before.status === next.status) next.lastTransitionTime = before.lastTransitionTime;
        obj.status = { ...status, conditions: [...others, next] };
      },
      'status',
    );
  }

  /** Marks the node unschedulable, as `kubectl cordon` does. */
  cordon(name: string): V1Node {
    return this.change(name, 'cordoning', (obj) => {
      obj.spec = { ...(obj.spec as object), unschedulable: true };
    });
  }

  /** Makes the node schedulable again, as `kubectl uncordon` does. */
  uncordon(name: string): V1Node {
    return this.change(name, 'uncordoning', (obj) => {
      const spec = { ...(obj.spec as Record<string, unknown>) };
      delete spec.unschedulable;
      obj.spec = spec;
    });
  }

  /** Adds the taint, replacing one with the same key and effect, as `kubectl taint` does. */
  taint(name: string, taint: Readonly<V1Taint>): V1Node {
    return this.change(name, `tainting with ${taint.key}`, (obj) => {
      const spec = (obj.spec ?? {}) as { taints?: V1Taint[] };
      const others = (spec.taints ?? []).filter((t) => !(t.key === taint.key && t.effect === taint.effect));
      obj.spec = { ...spec, taints: [...others, { ...taint }] };
    });
  }

  /** Removes the node's taints with `key` (and `effect`, when given). */
  untaint(name: string, key: string, effect?: string): V1Node {
    return this.change(name, `removing taint ${key}`, (obj) => {
      const spec = { ...(obj.spec as Record<string, unknown>) } as { taints?: V1Taint[] };
      const kept = (spec.taints ?? []).filter(
        (t) => !(t.key === key && (effect === undefined || t.effect === effect)),
      );
      if (kept.length > 0) spec.taints = kept;
      else delete spec.taints;
      obj.spec = spec;
    });
  }

  /** Sets labels; a null value removes that label, as `kubectl label key-` does. */
  label(name: string, labels: Readonly<Record<string, string | null>>): V1Node {
    return this.change(name, 'labelling', (obj) => {
      const next: Record<string, string> = { ...obj.metadata.labels };
      for (const [key, value] of Object.entries(labels)) {
        if (value === null) delete next[key];
        else next[key] = value;
      }
      obj.metadata.labels = next;
    });
  }

  private change(
    name: string,
    doing: string,
    edit: (obj: KubeObject) => void,
    subresource?: 'status',
  ): V1Node {
    const result = this.store.mutate('nodes', undefined, name, edit, subresource ? { subresource } : {});
    if (!result) throw new NodeNotFoundError(name, doing);
    return result as V1Node;
  }

  private nodeNamed(name: string, options: AddNodeOptions): KubeObject {
    const base = generatedNode(0);
    const labels = { ...base.metadata?.labels, 'kubernetes.io/hostname': name, ...options.labels };
    const spec = {
      ...(options.providerID ? { providerID: options.providerID } : {}),
      ...(options.unschedulable ? { unschedulable: true } : {}),
      ...(options.taints ? { taints: options.taints.map((t) => ({ ...t })) } : {}),
    };
    const now = rfc3339(this.now());
    return {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels },
      spec,
      status: { conditions: [readyCondition(options.ready ?? true, now)] },
    };
  }
}
