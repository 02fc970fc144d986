/**
 * NoExecute taint eviction (upstream pkg/controller/tainteviction, taint_eviction.go): the pure
 * decision of how long a pod on a node may stay (processPodOnNode, getMinTolerationTime), and the
 * controller that deletes it when that time is up.
 */
import type { V1NodeSpec, V1PodSpec, V1Taint, V1Toleration } from '@kubernetes/client-node';
import { toleratesTaint } from '../../core/tolerations.ts';
import type { SimContext, SimController } from '../sim-context.ts';
import { scaledMs } from '../sim-timing.ts';
import type { KubeObject, StoreEvent } from '../storage/store.ts';
import { deleteDisruptedPod } from './delete-disrupted-pod.ts';

/**
 * How many seconds the pod may stay on a node with `taints`: undefined when nothing evicts it
 * (no NoExecute taint, or every one tolerated without tolerationSeconds), 0 when some NoExecute
 * taint is not tolerated, else the smallest tolerationSeconds among the tolerations used (a value
 * ≤ 0 means at once).
 */
export function evictionDelaySeconds(
  taints: readonly Readonly<V1Taint>[] | undefined,
  tolerations: readonly Readonly<V1Toleration>[] | undefined,
): number | undefined {
  const noExecute = (taints ?? []).filter((t) => t.effect === 'NoExecute');
  if (noExecute.length === 0) return undefined;
  const used: Readonly<V1Toleration>[] = [];
  for (const taint of noExecute) {
    // GetMatchingTolerations: the first toleration tolerating each taint is the one that counts.
    const toleration = (tolerations ?? []).find((t) => toleratesTaint(t, taint));
    if (!toleration) return 0;
    used.push(toleration);
  }
  let min: number | undefined;
  for (const t of used) {
    if (t.tolerationSeconds === undefined || t.tolerationSeconds === null) continue;
    if (t.tolerationSeconds <= 0) return 0;
    min = min === undefined ? t.tolerationSeconds : Math.min(min, t.tolerationSeconds);
  }
  return min;
}

/**
 * The NoExecute taint eviction controller of a simulated cluster (upstream tainteviction
 * Controller): a pod on a node with a NoExecute taint it does not tolerate is deleted at once; one
 * tolerating every such taint for a while is deleted when the smallest tolerationSeconds (scaled)
 * has passed since the controller first saw it so; the pod first gets the condition
 * `DisruptionTarget=True`, reason `DeletionByTaintManager` (addConditionAndDeletePod).
 */
export class TaintEvictionController implements SimController {
  /** uid → when the pending eviction was first scheduled (taint_eviction.go keeps CreatedAt). */
  private readonly scheduledSince = new Map<string, number>();
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly ctx: SimContext) {}

  start(): void {
    this.unsubscribe = this.ctx.store.subscribe((event) => this.onEvent(event));
    for (const pod of this.ctx.store.view('pods')) this.evaluate(pod);
  }

  stop(): void {
    this.unsubscribe?.();
  }

  private onEvent(event: StoreEvent): void {
    if (event.key === 'pods') {
      if (event.type === 'DELETED') this.cancel(event.object.metadata.uid ?? '');
      else this.evaluate(event.object);
    } else if (event.key === 'nodes' && event.type !== 'DELETED') {
      const taints = (n: Readonly<KubeObject> | undefined) =>
        JSON.stringify((n?.spec as V1NodeSpec | undefined)?.taints ?? []);
      if (taints(event.oldObject) === taints(event.object)) return;
      const name = event.object.metadata.name ?? '';
      for (const pod of this.ctx.store.view('pods', { fieldSelector: `spec.nodeName=${name}` }))
        this.evaluate(pod);
    }
  }

  private evaluate(pod: Readonly<KubeObject>): void {
    const uid = pod.metadata.uid ?? '';
    const spec = pod.spec as V1PodSpec;
    if (!spec.nodeName || pod.metadata.deletionTimestamp) {
      this.cancel(uid);
      return;
    }
    const node = this.ctx.store.peek('nodes', undefined, spec.nodeName);
    const delay = evictionDelaySeconds((node?.spec as V1NodeSpec | undefined)?.taints, spec.tolerations);
    if (delay === undefined) {
      this.cancel(uid);
      return;
    }
    const since = this.scheduledSince.get(uid) ?? this.ctx.now();
    this.scheduledSince.set(uid, since);
    const { namespace = '', name = '' } = pod.metadata;
    this.ctx.queue.schedule(`evict/${uid}`, since + scaledMs(this.ctx.timing, delay), () =>
      this.evict(uid, namespace, name),
    );
  }

  private cancel(uid: string): void {
    if (this.scheduledSince.delete(uid)) this.ctx.queue.cancel(`evict/${uid}`);
  }

  private evict(uid: string, namespace: string, name: string): void {
    this.scheduledSince.delete(uid);
    deleteDisruptedPod(
      this.ctx,
      { uid, namespace, name },
      { reason: 'DeletionByTaintManager', message: 'Taint manager: deleting due to NoExecute taint' },
    );
  }
}
