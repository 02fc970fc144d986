/**
 * The node lifecycle controller of kube-controller-manager, as far as everynode relies on it
 * (upstream pkg/controller/nodelifecycle/node_lifecycle_controller.go): it keeps the
 * `node.kubernetes.io/not-ready` / `unreachable` NoSchedule and NoExecute taints following the
 * Ready condition, `node.kubernetes.io/unschedulable:NoSchedule` following `spec.unschedulable`,
 * and marks a node's pods not ready when the node stops being Ready (MarkPodsNotReady). It never
 * changes the Ready condition itself: in the simulator that is the API's or the node controls' call,
 * or the kubelet's while a `break-node` container breaks the node.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { SimContext, SimController } from '../sim-context.ts';
import { rfc3339 } from '../sim-timing.ts';
import type { StoreEvent } from '../storage/store.ts';
import { lifecycleTaints, nodeReadyStatus } from './node-lifecycle-taints.ts';

/** The node lifecycle controller of a simulated cluster. */
export class NodeLifecycleController implements SimController {
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly ctx: SimContext) {}

  start(): void {
    this.unsubscribe = this.ctx.store.subscribe((event) => this.onEvent(event));
    for (const node of this.ctx.store.view('nodes')) this.enqueue(node.metadata.name ?? '');
  }

  stop(): void {
    this.unsubscribe?.();
  }

  private onEvent(event: StoreEvent): void {
    if (event.key !== 'nodes' || event.type === 'DELETED') return;
    const name = event.object.metadata.name ?? '';
    this.enqueue(name);
    const wasReady = event.oldObject && nodeReadyStatus(event.oldObject as V1Node) === 'True';
    if (wasReady && nodeReadyStatus(event.object as V1Node) !== 'True') {
      this.ctx.queue.schedule(`lifecycle-pods/${name}`, this.ctx.now(), () => this.markPodsNotReady(name));
    }
  }

  private enqueue(name: string): void {
    this.ctx.queue.schedule(`lifecycle/${name}`, this.ctx.now(), () => this.syncTaints(name));
  }

  /** Writes the taints lifecycleTaints asks for; a node already right is not written. */
  private syncTaints(name: string): void {
    const node = this.ctx.store.peek('nodes', undefined, name);
    const now = rfc3339(this.ctx.now());
    if (!node || !lifecycleTaints(node as V1Node, now)) return;
    this.ctx.store.mutateShared('nodes', undefined, name, (obj) => {
      const taints = lifecycleTaints(obj as V1Node, now);
      if (!taints) return;
      const spec: Record<string, unknown> = { ...(obj.spec as Record<string, unknown> | undefined), taints };
      if (taints.length === 0) delete spec.taints;
      obj.spec = spec;
    });
  }

  /**
   * Sets the Ready condition of every pod on the node to False (upstream
   * controller/util/node MarkPodsNotReady), so endpoints and controllers stop counting them.
   */
  private markPodsNotReady(name: string): void {
    const node = this.ctx.store.peek('nodes', undefined, name);
    if (!node || nodeReadyStatus(node as V1Node) === 'True') return;
    const now = rfc3339(this.ctx.now());
    for (const pod of this.ctx.store.view('pods', { fieldSelector: `spec.nodeName=${name}` })) {
      const conditions = (pod.status as { conditions?: { type: string; status: string }[] } | undefined)
        ?.conditions;
      if (!conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) continue;
      this.ctx.store.mutateShared(
        'pods',
        pod.metadata.namespace,
        pod.metadata.name ?? '',
        (obj) => {
          const status = obj.status as { conditions?: Record<string, unknown>[] };
          status.conditions = (status.conditions ?? []).map((c) =>
            c.type === 'Ready' && c.status === 'True'
              ? { ...c, status: 'False', lastTransitionTime: now }
              : c,
          );
        },
        { subresource: 'status' },
      );
    }
  }
}
