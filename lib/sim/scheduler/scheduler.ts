/**
 * The simulated kube-scheduler: binds pending pods (no `spec.nodeName`, not being deleted, for the
 * default scheduler) to nodes by the pure decision of scheduler-filter.ts, and leaves pods that fit
 * nowhere Pending with `PodScheduled=False`, reason `Unschedulable`, and a `FailedScheduling`
 * event, retrying them when a node changes or a pod bound there frees room (upstream moves
 * unschedulable pods back to the active queue on such events). What bound pods request per node
 * is kept by node-usage.ts from pod events.
 * Binding sets `spec.nodeName` and `PodScheduled=True` in one write, as the pods/binding
 * subresource does (pkg/registry/core/pod/storage assignPod).
 */
import type { V1Node, V1PodSpec } from '@kubernetes/client-node';
import { isGoneOrReplaced, objectKey, type SimContext, type SimController } from '../sim-context.ts';
import { rfc3339 } from '../sim-timing.ts';
import type { KubeObject, StoreEvent } from '../storage/store.ts';
import { NodeUsage } from './node-usage.ts';
import { FailedSchedulingEvents } from './scheduler-events.ts';
import { type NodeCandidates, pinnedNodeNames, placePod } from './scheduler-filter.ts';
import { UnschedulablePods } from './scheduler-queue.ts';

/** Pods placed per turn of the event loop. */
const BATCH = 500;

/** The scheduler of a simulated cluster. */
export class SimScheduler implements SimController {
  private readonly nodes = new Map<string, Readonly<V1Node>>();
  private sortedNodes: Readonly<V1Node>[] | undefined;
  private readonly usage = new NodeUsage();
  private readonly pending = new Set<string>();
  private readonly unschedulable = new UnschedulablePods();
  private readonly events: FailedSchedulingEvents;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly ctx: SimContext) {
    this.events = new FailedSchedulingEvents(ctx);
  }

  start(): void {
    this.unsubscribe = this.ctx.store.subscribe((event) => this.onEvent(event));
    for (const node of this.ctx.store.view('nodes')) this.nodes.set(node.metadata.name ?? '', node as V1Node);
    for (const pod of this.ctx.store.view('pods')) this.onPod(objectKey(pod), undefined, pod);
    this.kick();
  }

  stop(): void {
    this.unsubscribe?.();
  }

  private onEvent(event: StoreEvent): void {
    if (event.key === 'pods') {
      const key = objectKey(event.object);
      this.onPod(key, event.oldObject, event.type === 'DELETED' ? undefined : event.object);
      if (event.type === 'DELETED') this.forget(event.object);
    } else if (event.key === 'nodes') {
      const name = event.object.metadata.name ?? '';
      if (event.type === 'DELETED') this.nodes.delete(name);
      else this.nodes.set(name, event.object as V1Node);
      this.sortedNodes = undefined;
      // A new node, or new labels, taints, cordon state or allocatable, may let an unschedulable pod fit.
      if (event.type === 'DELETED' || !schedulingInputsChanged(event.oldObject, event.object)) return;
      this.retryFor(name);
    }
  }

  /** Moves the unschedulable pods a change of node `name` may let fit back to the queue. */
  private retryFor(name: string): void {
    for (const key of this.unschedulable.takeFor(name)) this.pending.add(key);
    this.kick();
  }

  /**
   * Keeps the per-node requests, retrying unschedulable pods where a pod freed room (upstream
   * NodeResourcesFit queues them on a bound pod's deletion or scale-down), and queues pods that
   * need a node.
   */
  private onPod(
    key: string,
    old: Readonly<KubeObject> | undefined,
    pod: Readonly<KubeObject> | undefined,
  ): void {
    const freed = this.usage.update(key, pod);
    if (freed) this.retryFor(freed);
    if (!pod || nodeNameOf(pod) || pod.metadata.deletionTimestamp || !forDefaultScheduler(pod)) return;
    if (this.unschedulable.has(key) && old && jsonSpec(old) === jsonSpec(pod)) return;
    this.unschedulable.delete(key);
    this.pending.add(key);
    this.kick();
  }

  private forget(pod: Readonly<KubeObject>): void {
    const key = objectKey(pod);
    this.pending.delete(key);
    this.unschedulable.delete(key);
    this.events.forget(pod.metadata.uid ?? '');
  }

  private kick(): void {
    if (this.pending.size > 0)
      this.ctx.queue.schedule('scheduler', this.ctx.now(), () => this.scheduleBatch());
  }

  private scheduleBatch(): void {
    let done = 0;
    for (const key of this.pending) {
      if (done++ >= BATCH) break;
      this.pending.delete(key);
      this.scheduleOne(key);
    }
    this.kick();
  }

  private scheduleOne(key: string): void {
    const [namespace = '', name = ''] = key.split('/');
    const pod = this.ctx.store.peek('pods', namespace, name);
    if (!pod || nodeNameOf(pod) || pod.metadata.deletionTimestamp) return;
    const decision = placePod(pod.spec as V1PodSpec, this.candidates(), this.usage);
    const now = rfc3339(this.ctx.now());
    try {
      if ('node' in decision) this.bind(namespace, name, decision.node, now);
      else {
        this.unschedulable.add(key, pinnedNodeNames(pod.spec as V1PodSpec));
        this.events.record(pod, decision.unschedulable);
        this.setScheduledCondition(
          namespace,
          name,
          { status: 'False', reason: 'Unschedulable', message: decision.unschedulable },
          now,
        );
      }
    } catch (error) {
      if (!isGoneOrReplaced(error)) throw error;
    }
  }

  private bind(namespace: string, name: string, node: string, now: string): void {
    // The stored pod rewritten, not copied: the bind changes two small parts of it.
    this.ctx.store.rewriteShared('pods', namespace, name, (pod) => {
      const spec = pod.spec as V1PodSpec;
      if (spec.nodeName) return undefined;
      return {
        ...pod,
        spec: { ...spec, nodeName: node },
        status: scheduledStatus(pod, { status: 'True' }, now),
      };
    });
  }

  private setScheduledCondition(
    namespace: string,
    name: string,
    condition: ScheduledCondition,
    now: string,
  ): void {
    this.ctx.store.rewriteShared(
      'pods',
      namespace,
      name,
      (pod) => ({ ...pod, status: scheduledStatus(pod, condition, now) }),
      { subresource: 'status' },
    );
  }

  private candidates(): NodeCandidates {
    // Sorted only when a pod is not pinned to its nodes: a daemon pod never needs the whole list,
    // so a node joining a large cluster does not cost a sort of every node.
    const all = () => {
      this.sortedNodes ??= [...this.nodes.values()].sort((a, b) =>
        (a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1,
      );
      return this.sortedNodes;
    };
    return { get: (name) => this.nodes.get(name), all, size: this.nodes.size };
  }
}

interface ScheduledCondition {
  status: 'True' | 'False';
  reason?: string;
  message?: string;
}

/**
 * The pod's status with the PodScheduled condition set (lastTransitionTime kept when its status
 * does not change), phase Pending unless it has one; a new object, the pod's own left as it is.
 */
function scheduledStatus(
  pod: Readonly<KubeObject>,
  condition: ScheduledCondition,
  now: string,
): Record<string, unknown> {
  const status = (pod.status ?? {}) as { conditions?: readonly Record<string, unknown>[] };
  const conditions = status.conditions ?? [];
  const before = conditions.find((c) => c.type === 'PodScheduled');
  const next = {
    type: 'PodScheduled',
    status: condition.status,
    lastProbeTime: null,
    lastTransitionTime: before?.status === condition.status ? before.lastTransitionTime : now,
    ...(condition.reason ? { reason: condition.reason, message: condition.message } : {}),
  };
  const changed = before ? conditions.map((c) => (c === before ? next : c)) : [...conditions, next];
  return { phase: 'Pending', ...status, conditions: changed };
}

function nodeNameOf(pod: Readonly<KubeObject> | undefined): string | undefined {
  return (pod?.spec as V1PodSpec | undefined)?.nodeName || undefined;
}

function forDefaultScheduler(pod: Readonly<KubeObject>): boolean {
  const schedulerName = (pod.spec as V1PodSpec | undefined)?.schedulerName;
  return !schedulerName || schedulerName === 'default-scheduler';
}

/**
 * Whether a node change touches what the filters read: labels, taints, unschedulable, allocatable
 * (or it is new).
 */
function schedulingInputsChanged(old: Readonly<KubeObject> | undefined, node: Readonly<KubeObject>): boolean {
  if (!old) return true;
  const allocatable = (n: Readonly<KubeObject>) =>
    (n.status as { allocatable?: unknown } | undefined)?.allocatable;
  const inputs = (n: Readonly<KubeObject>) => JSON.stringify([n.metadata.labels, n.spec, allocatable(n)]);
  return inputs(old) !== inputs(node);
}

function jsonSpec(pod: Readonly<KubeObject>): string {
  return JSON.stringify([pod.spec, pod.metadata.labels]);
}
