/**
 * Pod garbage collection of pods bound to nodes that do not exist (upstream
 * pkg/controller/podgc/gc_controller.go gcOrphaned): after the quarantine time (scaled) the pod is
 * marked Failed with `DisruptionTarget=True`, reason `DeletionByPodGC`, and force-deleted
 * (grace period 0). The quarantine guards against a pod created just before its node, as upstream.
 */
import type { V1PodSpec } from '@kubernetes/client-node';
import type { SimContext, SimController } from '../sim-context.ts';
import { scaledMs } from '../sim-timing.ts';
import type { KubeObject, StoreEvent } from '../storage/store.ts';
import { deleteDisruptedPod } from './delete-disrupted-pod.ts';

/** The pod garbage collector of a simulated cluster. */
export class PodGarbageCollector implements SimController {
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly ctx: SimContext) {}

  start(): void {
    this.unsubscribe = this.ctx.store.subscribe((event) => this.onEvent(event));
    for (const pod of this.ctx.store.view('pods')) this.check(pod);
  }

  stop(): void {
    this.unsubscribe?.();
  }

  private onEvent(event: StoreEvent): void {
    if (event.key === 'pods' && event.type !== 'DELETED') this.check(event.object);
    if (event.key === 'nodes' && event.type === 'DELETED') {
      const name = event.object.metadata.name ?? '';
      for (const pod of this.ctx.store.view('pods', { fieldSelector: `spec.nodeName=${name}` }))
        this.check(pod);
    }
  }

  /** Queues a bound pod whose node is missing for collection once the quarantine has passed. */
  private check(pod: Readonly<KubeObject>): void {
    const nodeName = (pod.spec as V1PodSpec | undefined)?.nodeName;
    if (!nodeName || this.ctx.store.peek('nodes', undefined, nodeName)) return;
    const { uid = '', namespace = '', name = '' } = pod.metadata;
    const at = this.ctx.now() + scaledMs(this.ctx.timing, this.ctx.timing.podGcQuarantineSeconds);
    this.ctx.queue.schedule(`podgc/${uid}`, at, () => this.collect(uid, namespace, name, nodeName));
  }

  private collect(uid: string, namespace: string, name: string, nodeName: string): void {
    const pod = this.ctx.store.peek('pods', namespace, name);
    if (!pod || pod.metadata.uid !== uid || this.ctx.store.peek('nodes', undefined, nodeName)) return;
    deleteDisruptedPod(
      this.ctx,
      { uid, namespace, name },
      {
        reason: 'DeletionByPodGC',
        message: 'PodGC: node no longer exists',
        markFailed: true,
        gracePeriodSeconds: 0,
      },
    );
  }
}
