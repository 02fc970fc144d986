/**
 * Tolerations of daemon pods and taint matching (upstream k8s.io/api core/v1 toleration.go,
 * pkg/apis/core/v1/helper FindMatchingUntoleratedTaint, pkg/controller/daemon/util
 * daemonset_util.go AddOrUpdateDaemonPodTolerations).
 */
import type { V1PodSpec, V1Taint, V1Toleration } from '@kubernetes/client-node';

/** The taint effects: NoSchedule and NoExecute matter to daemon pods, PreferNoSchedule never does. */
export type TaintEffect = 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';

function exists(key: string, effect: TaintEffect): V1Toleration {
  return { key, operator: 'Exists', effect };
}

/**
 * The tolerations every daemon pod gets, in upstream order (AddOrUpdateDaemonPodTolerations):
 * not-ready and unreachable NoExecute (so the taint manager never evicts daemon pods from failing
 * nodes), disk/memory/pid-pressure and unschedulable NoSchedule (daemons run on cordoned and
 * pressured nodes), and network-unavailable NoSchedule only for host-network pods, which do not
 * need the pod network. All `Exists` without tolerationSeconds.
 */
export function automaticTolerations(hostNetwork: boolean): V1Toleration[] {
  const tolerations = [
    exists('node.kubernetes.io/not-ready', 'NoExecute'),
    exists('node.kubernetes.io/unreachable', 'NoExecute'),
    exists('node.kubernetes.io/disk-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/memory-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/pid-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/unschedulable', 'NoSchedule'),
  ];
  if (hostNetwork) tolerations.push(exists('node.kubernetes.io/network-unavailable', 'NoSchedule'));
  return tolerations;
}

/**
 * True when `a` and `b` are "the same" toleration: equal key, effect, operator and value
 * (upstream Toleration.MatchToleration; tolerationSeconds is not compared, and operators are
 * compared as written, so `""` and `Equal` differ).
 */
export function sameToleration(a: Readonly<V1Toleration>, b: Readonly<V1Toleration>): boolean {
  return (
    (a.key ?? '') === (b.key ?? '') &&
    (a.effect ?? '') === (b.effect ?? '') &&
    (a.operator ?? '') === (b.operator ?? '') &&
    (a.value ?? '') === (b.value ?? '')
  );
}

/**
 * `tolerations` with `toleration` added: a toleration that is the same (key, effect, operator,
 * value — see {@link sameToleration}) is replaced in place, otherwise it is appended
 * (upstream v1helper.AddOrUpdateTolerationInPodSpec).
 */
export function addOrUpdateToleration(
  tolerations: readonly Readonly<V1Toleration>[],
  toleration: Readonly<V1Toleration>,
): V1Toleration[] {
  let replaced = false;
  const result = tolerations.map((existing) => {
    if (!sameToleration(existing, toleration)) return { ...existing };
    replaced = true;
    return { ...toleration };
  });
  if (!replaced) result.push({ ...toleration });
  return result;
}

/**
 * The tolerations of the daemon pod built from `podSpec`: the template's own tolerations with each
 * automatic toleration added or, when the template already has the same toleration (same key,
 * effect, operator and value, e.g. a user `not-ready:NoExecute Exists` with tolerationSeconds),
 * replacing it — so daemon pods are never evicted by the taint manager for the automatic taints;
 * and a NoSchedule `Exists` toleration of each node readiness gate key in `gateKeys`, so that
 * everynode's daemon pods land on a node its gates keep from other workloads (core/node-gates/gate-declaration.ts).
 */
export function daemonPodTolerations(
  podSpec: Readonly<Pick<V1PodSpec, 'tolerations' | 'hostNetwork'>>,
  gateKeys: readonly string[] = [],
): V1Toleration[] {
  let tolerations: V1Toleration[] = (podSpec.tolerations ?? []).map((t) => ({ ...t }));
  for (const automatic of automaticTolerations(podSpec.hostNetwork === true)) {
    tolerations = addOrUpdateToleration(tolerations, automatic);
  }
  for (const key of gateKeys) tolerations = addOrUpdateToleration(tolerations, exists(key, 'NoSchedule'));
  return tolerations;
}

/**
 * True when `toleration` tolerates `taint` (upstream core/v1 Toleration.ToleratesTaint): an empty
 * effect matches every effect, an empty key (only valid with Exists) matches every key, `Exists`
 * ignores the value, `Equal` or an empty operator needs an equal value; any other operator
 * tolerates nothing.
 */
export function toleratesTaint(toleration: Readonly<V1Toleration>, taint: Readonly<V1Taint>): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? '') {
    case '':
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/**
 * The taints among `taints` whose effect is in `effects` and which no toleration in `tolerations`
 * tolerates, in node order; empty means the pod fits (upstream FindMatchingUntoleratedTaint with an
 * effect filter, returning every such taint rather than the first).
 */
export function untoleratedTaints(
  taints: readonly Readonly<V1Taint>[] | undefined,
  tolerations: readonly Readonly<V1Toleration>[] | undefined,
  effects: readonly TaintEffect[],
): V1Taint[] {
  return (taints ?? [])
    .filter((taint) => (effects as readonly string[]).includes(taint.effect))
    .filter((taint) => !(tolerations ?? []).some((toleration) => toleratesTaint(toleration, taint)))
    .map((taint) => ({ ...taint }));
}
