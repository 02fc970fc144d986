/**
 * What the other pods of a node hold, as the kubelet's resize admission counts it (canResizePod:
 * the allocated pods but the one resized; pods that ended hold nothing), and which of them wait
 * on a Deferred resize that a freed node may now let through.
 */
import type { V1PodSpec } from '@kubernetes/client-node';
import type { SimContext } from '../sim-context.ts';
import { isTerminalPhase, type PodRun } from './kubelet-pod-run.ts';
import { desiredResources, type Requests, requestsOf } from './kubelet-resize.ts';

/** The summed allocated requests of the pods on `node` other than `uid`. */
export function usedByOthers(
  ctx: Readonly<SimContext>,
  runs: ReadonlyMap<string, PodRun>,
  node: string,
  uid: string,
): Requests {
  let cpu = 0;
  let memory = 0;
  for (const pod of ctx.store.view('pods', { fieldSelector: `spec.nodeName=${node}` })) {
    const podUid = pod.metadata.uid ?? '';
    const run = runs.get(podUid);
    const phase = (pod.status as { phase?: string } | undefined)?.phase;
    if (podUid === uid || isTerminalPhase(run?.phase ?? phase)) continue;
    const requests = requestsOf(run?.resources?.allocated ?? desiredResources(pod.spec as V1PodSpec));
    cpu += requests.cpu;
    memory += requests.memory;
  }
  return { cpu, memory };
}

/** The pods on `node` whose resize is Deferred, as [uid, namespace, name]. */
export function deferredPodsOn(
  ctx: Readonly<SimContext>,
  runs: ReadonlyMap<string, PodRun>,
  node: string,
): [string, string, string][] {
  const out: [string, string, string][] = [];
  for (const pod of ctx.store.view('pods', { fieldSelector: `spec.nodeName=${node}` })) {
    const { uid = '', namespace = '', name = '' } = pod.metadata;
    if (runs.get(uid)?.resources?.pending?.reason === 'Deferred') out.push([uid, namespace, name]);
  }
  return out;
}
