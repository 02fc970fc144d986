/**
 * The kubelets of every simulated node, as one in-process controller over the store. A node's
 * kubelet registers it (fills in missing status), and while the node is Ready runs the pods bound
 * to it through the pure state machine of kubelet-pod-run.ts, writing their status. It kills a pod
 * that is deleted or set to a terminal phase through the API (kubelet-pod-stop.ts): its containers
 * exit `containerStopSeconds` after SIGTERM, or at SIGKILL when the grace period ends, and a deleted
 * pod is then removed for good. A node that is not Ready stops progressing its pods, as a kubelet
 * that is down does: they keep their last status and pods being deleted stay Terminating — unless
 * the kubelet itself reported it NotReady because a `break-node` container broke it: it then keeps
 * running its pods, and reports the node Ready again once no such container runs
 * (kubelet-node-status.ts, kubeletReadyConditions).
 */
import type { V1Node, V1PodSpec, V1PodStatus } from '@kubernetes/client-node';
import { isGoneOrReplaced, type SimContext, type SimController } from '../sim-context.ts';
import { rfc3339, scaledMs } from '../sim-timing.ts';
import type { KubeObject, StoreEvent } from '../storage/store.ts';
import { earliest, runDelaysOf } from './kubelet-delays.ts';
import {
  breaksNodeFrom,
  internalIPOf,
  kubeletIsUp,
  kubeletReadyConditions,
  registeredNodeStatus,
} from './kubelet-node-status.ts';
import { deferredPodsOn, usedByOthers } from './kubelet-node-usage.ts';
import { admitPod, advancePodRun, isTerminalPhase, type PodRun, type RunDelays } from './kubelet-pod-run.ts';
import { podStatusFor } from './kubelet-pod-status.ts';
import { runOfStoredPod, stopPodRun } from './kubelet-pod-stop.ts';
import { applyPodSpec, finishResize, type ResizeContext } from './kubelet-pod-update.ts';
import { allocatableOf } from './kubelet-resize.ts';

/** The grace period of a pod that does not set one (the API server's default). */
const DEFAULT_GRACE_SECONDS = 30;

/** The simulated kubelets of all nodes. */
export class SimKubelets implements SimController {
  private readonly runs = new Map<string, PodRun>();
  private readonly nodeIPs = new Map<string, string>();
  /** Node name → uid → when that pod's `break-node` container breaks the node (breaksNodeFrom). */
  private readonly breakers = new Map<string, Map<string, number>>();
  private unsubscribe: (() => void) | undefined;
  private podCount = 0;
  /** uid of the pod whose status this kubelet is writing right now: its echo event needs no resync. */
  private writing: string | undefined;

  constructor(private readonly ctx: SimContext) {}

  /** Follows the store; registers existing nodes and picks up pods already bound. */
  start(): void {
    this.unsubscribe = this.ctx.store.subscribe((event) => this.onEvent(event));
    for (const node of this.ctx.store.view('nodes')) this.register(node.metadata.name ?? '');
    for (const pod of this.ctx.store.view('pods')) this.enqueuePod(pod, this.ctx.now());
  }

  stop(): void {
    this.unsubscribe?.();
    this.runs.clear();
    this.breakers.clear();
  }

  private onEvent(event: StoreEvent): void {
    if (event.key === 'nodes') this.onNodeEvent(event);
    else if (event.key === 'pods') this.onPodEvent(event);
  }

  private onNodeEvent(event: StoreEvent): void {
    const name = event.object.metadata.name ?? '';
    if (event.type === 'DELETED') {
      this.breakers.delete(name);
      this.ctx.queue.cancel(`kubelet-node-ready/${name}`);
      return;
    }
    if (event.type === 'ADDED') {
      this.ctx.queue.schedule(`kubelet-node/${name}`, this.ctx.now(), () => this.register(name));
      return;
    }
    if (!kubeletIsUp(event.object as V1Node)) return;
    if (!event.oldObject || !kubeletIsUp(event.oldObject as V1Node)) {
      // The kubelet is back: resync every pod of the node, and post the node's Ready condition.
      for (const pod of this.ctx.store.view('pods', { fieldSelector: `spec.nodeName=${name}` })) {
        this.enqueuePod(pod, this.ctx.now());
      }
      this.scheduleNodeReady(name, this.ctx.now());
    } else if (this.breakers.has(name)) {
      // Someone else wrote the node (Ready=True, say, over the kubelet's NotReady): post it again.
      this.scheduleNodeReady(name, this.ctx.now());
    }
  }

  private onPodEvent(event: StoreEvent): void {
    const uid = event.object.metadata.uid ?? '';
    if (event.type === 'DELETED') {
      this.runs.delete(uid);
      this.ctx.queue.cancel(`kubelet/${uid}`);
      const node = (event.object.spec as V1PodSpec | undefined)?.nodeName ?? '';
      this.noteBreaker(node, uid, undefined);
      this.retryDeferred(node);
      return;
    }
    if (uid === this.writing) return;
    this.enqueuePod(event.object, this.ctx.now());
  }

  private enqueuePod(pod: Readonly<KubeObject>, at: number): void {
    if (!(pod.spec as V1PodSpec | undefined)?.nodeName) return;
    const { uid = '', namespace = '', name = '' } = pod.metadata;
    this.ctx.queue.schedule(`kubelet/${uid}`, at, () => this.syncPod(uid, namespace, name));
  }

  /** Posts the node's status the first time its kubelet sees it. */
  private register(name: string): void {
    const node = this.ctx.store.peek('nodes', undefined, name) as V1Node | undefined;
    if (!node) return;
    const ip = internalIPOf(node) ?? this.nodeIPs.get(name) ?? this.nextNodeIP();
    this.nodeIPs.set(name, ip);
    // A node a `break-node` container left NotReady before this kubelet started: Ready again unless
    // one of its pods still breaks it.
    if (kubeletReadyConditions(node, false, '')) this.scheduleNodeReady(name, this.ctx.now());
    if (!registeredNodeStatus(node, ip, rfc3339(this.ctx.now()))) return;
    this.ctx.store.mutateShared(
      'nodes',
      undefined,
      name,
      (obj) => {
        const status = registeredNodeStatus(obj as V1Node, ip, rfc3339(this.ctx.now()));
        if (status) obj.status = status;
      },
      { subresource: 'status' },
    );
  }

  private nextNodeIP(): string {
    const n = this.nodeIPs.size + 10;
    return `10.0.${(n >> 8) & 255}.${n & 255}`;
  }

  private nextPodIP(): string {
    this.podCount += 1;
    const n = this.podCount + 1; // .0 and .1 of the range are the network and its gateway

    return `10.${244 + ((n >> 16) & 3)}.${(n >> 8) & 255}.${n & 255}`;
  }

  /** Brings one pod's status up to date, or finishes its deletion, and schedules what comes next. */
  private syncPod(uid: string, namespace: string, name: string): void {
    const pod = this.ctx.store.peek('pods', namespace, name);
    if (!pod || pod.metadata.uid !== uid) return;
    const spec = pod.spec as V1PodSpec;
    const node = this.ctx.store.peek('nodes', undefined, spec.nodeName ?? '') as V1Node | undefined;
    if (!node || !kubeletIsUp(node)) return;
    const now = this.ctx.now();
    if (pod.metadata.deletionTimestamp) {
      this.terminate(pod, now);
      return;
    }
    const phase = (pod.status as { phase?: string } | undefined)?.phase;
    const known = this.runs.get(uid);
    if (!known && isTerminalPhase(phase)) return;
    let admitted = known ?? admitPod(spec, node, now, this.nextPodIP());
    if (isTerminalPhase(phase) && admitted.phase !== phase) {
      // Set to a terminal phase through the API: the phase is kept, whatever the containers do
      // (upstream generateAPIPodStatus forces the API server's terminal phase back), and the pod
      // is killed (SyncPod reports it terminal; the pod worker then terminates it).
      const graceMs = scaledMs(this.ctx.timing, spec.terminationGracePeriodSeconds ?? DEFAULT_GRACE_SECONDS);
      admitted = stopPodRun(admitted, now, graceMs, phase);
    }
    admitted = applyPodSpec(admitted, spec, now, this.resizeContext(spec, node, uid));
    const advanced = advancePodRun(admitted, now, this.delays());
    const { run, dueAt: resizeDue } = finishResize(advanced.run, now);
    const dueAt = earliest(advanced.dueAt, resizeDue);
    this.runs.set(uid, run);
    this.trackBreaker(spec.nodeName ?? '', uid, run);
    this.writeStatus(pod, run, internalIPOf(node) ?? '', now);
    const freed = isTerminalPhase(run.phase) && !isTerminalPhase(known?.phase);
    if (freed || (known && known.resources?.allocated !== run.resources?.allocated))
      this.retryDeferred(spec.nodeName ?? '', uid);
    if (dueAt !== undefined)
      this.ctx.queue.schedule(`kubelet/${uid}`, dueAt, () => this.syncPod(uid, namespace, name));
  }

  private writeStatus(pod: Readonly<KubeObject>, run: PodRun, hostIP: string, now: number): void {
    const { namespace = '', name = '', uid = '' } = pod.metadata;
    this.writing = uid;
    try {
      // The stored pod rewritten, not copied: only its status changes.
      this.ctx.store.rewriteShared(
        'pods',
        namespace,
        name,
        (stored) => {
          const previous = stored.status as Readonly<Record<string, unknown>> | undefined;
          const gates = (stored.spec as V1PodSpec | undefined)?.readinessGates ?? [];
          const readinessGates = gates.map((g) => g.conditionType);
          const status = {
            ...previous,
            ...podStatusFor(run, { name, namespace, uid, readinessGates }, previous, hostIP, now),
          };
          return { ...stored, status };
        },
        { subresource: 'status' },
      );
    } finally {
      this.writing = undefined;
    }
  }

  /**
   * Kills a pod being deleted and deletes it for good once no container runs: `containerStopSeconds`
   * after SIGTERM, or at the end of its grace period (scaled by timeScale) for containers that
   * ignore SIGTERM.
   */
  private terminate(pod: Readonly<KubeObject>, now: number): void {
    const { uid = '', namespace = '', name = '' } = pod.metadata;
    const known =
      this.runs.get(uid) ?? runOfStoredPod(pod.spec as V1PodSpec, pod.status as V1PodStatus | undefined, now);
    const graceMs = scaledMs(this.ctx.timing, pod.metadata.deletionGracePeriodSeconds ?? 0);
    const { run, dueAt } = advancePodRun(stopPodRun(known, now, graceMs), now, this.delays());
    this.runs.set(uid, run);
    this.trackBreaker((pod.spec as V1PodSpec).nodeName ?? '', uid, run);
    // While killed, the next transition due is the next container to exit; none left is done.
    if (dueAt !== undefined) {
      this.ctx.queue.schedule(`kubelet/${uid}`, dueAt, () => this.syncPod(uid, namespace, name));
      return;
    }
    try {
      this.ctx.store.delete('pods', namespace, name, { gracePeriodSeconds: 0, preconditions: { uid } });
    } catch (error) {
      if (!isGoneOrReplaced(error)) throw error;
    }
  }

  /** What a resize of the pod `uid` on `node` is judged against (kubelet-pod-update.ts). */
  private resizeContext(spec: Readonly<V1PodSpec>, node: Readonly<V1Node>, uid: string): ResizeContext {
    const t = this.ctx.timing;
    return {
      used: () => usedByOthers(this.ctx, this.runs, node.metadata?.name ?? '', uid),
      allocatable: allocatableOf(node),
      resizeMs: scaledMs(t, t.podResizeSeconds),
      graceMs: scaledMs(t, spec.terminationGracePeriodSeconds ?? DEFAULT_GRACE_SECONDS),
    };
  }

  /** Syncs again the pods of `node` (but `except`) whose resize is Deferred: room may have freed. */
  private retryDeferred(node: string, except?: string): void {
    for (const [uid, namespace, name] of deferredPodsOn(this.ctx, this.runs, node)) {
      if (uid !== except)
        this.ctx.queue.schedule(`kubelet/${uid}`, this.ctx.now(), () => this.syncPod(uid, namespace, name));
    }
  }

  /** Notes whether and from when the pod `uid` breaks its node (breaksNodeFrom). */
  private trackBreaker(node: string, uid: string, run: Readonly<PodRun>): void {
    const t = this.ctx.timing;
    this.noteBreaker(node, uid, breaksNodeFrom(run, scaledMs(t, t.breakNodeSeconds)));
  }

  /** Records `from` for the pod `uid` on `node` (undefined: it does not break it); re-posts Ready on a change. */
  private noteBreaker(node: string, uid: string, from: number | undefined): void {
    const pods = this.breakers.get(node);
    if (pods?.get(uid) === from) return;
    if (from !== undefined) this.breakers.set(node, (pods ?? new Map()).set(uid, from));
    else if (pods?.delete(uid) && pods.size === 0) this.breakers.delete(node);
    this.scheduleNodeReady(node, this.ctx.now());
  }

  private scheduleNodeReady(node: string, at: number): void {
    this.ctx.queue.schedule(`kubelet-node-ready/${node}`, at, () => this.postNodeReady(node));
  }

  /**
   * Posts the node's Ready condition when it must change: NotReady while some pod's `break-node`
   * container has run `breakNodeSeconds`, Ready once none does (kubeletReadyConditions); and
   * comes back when the next such container's time is up.
   */
  private postNodeReady(name: string): void {
    const now = this.ctx.now();
    const froms = [...(this.breakers.get(name)?.values() ?? [])];
    const broken = froms.some((from) => from <= now);
    const node = this.ctx.store.peek('nodes', undefined, name) as V1Node | undefined;
    if (node && kubeletReadyConditions(node, broken, rfc3339(now))) {
      this.ctx.store.mutateShared(
        'nodes',
        undefined,
        name,
        (obj) => {
          const conditions = kubeletReadyConditions(obj as V1Node, broken, rfc3339(now));
          if (conditions) obj.status = { ...(obj.status as object | undefined), conditions };
        },
        { subresource: 'status' },
      );
    }
    const next = Math.min(...froms.filter((from) => from > now));
    if (node && Number.isFinite(next)) this.scheduleNodeReady(name, next);
  }

  private delays(): RunDelays {
    return runDelaysOf(this.ctx.timing);
  }
}
