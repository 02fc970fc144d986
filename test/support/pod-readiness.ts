/**
 * A pod's readiness as its kubelet reports it, set by hand in tests that change a pod behind a
 * step's back.
 */
import type { V1Pod } from '@kubernetes/client-node';

/** `pod` with its Ready and ContainersReady conditions set to `ready`. */
export function withReady(pod: Readonly<V1Pod>, ready: boolean): V1Pod {
  const status = ready ? 'True' : 'False';
  const conditions = (pod.status?.conditions ?? []).map((c) =>
    c.type === 'Ready' || c.type === 'ContainersReady' ? { ...c, status } : c,
  );
  return { ...pod, status: { ...pod.status, conditions } };
}
