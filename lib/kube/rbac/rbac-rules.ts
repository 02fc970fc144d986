/**
 * What each everynode function may do in the cluster: exactly the KubePort calls its runtime makes
 * (lib/relay, lib/router, lib/reconcile), one rule per resource, each saying which code needs it.
 * test/kube/rbac-rules-capabilities.test.ts removes each verb in turn and shows the call it breaks.
 */

import { type ManagedKind, managedResourceOf } from '../managed-kind.ts';
import type { EverynodeFunction } from './function-groups.ts';

/** One RBAC PolicyRule with the reason it is granted. */
export interface FunctionRule {
  /** Which code needs the rule; rendered as the rule's comment. */
  readonly why: string;
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly verbs: readonly string[];
}

/** The relay: lists and watches what becomes triggers and hints, and reads the cluster identity. */
function relayRules(group: string): FunctionRule[] {
  return [
    {
      why: "run/relay.ts reads the kube-system namespace once per start (getClusterIdentity): its uid, recorded in the relay's checkpoint, tells this cluster from another whose versions it must not resume from.",
      apiGroups: [''],
      resources: ['namespaces'],
      resourceNames: ['kube-system'],
      verbs: ['get'],
    },
    {
      why: 'watches/resource-watch.ts and run/resume.ts list, then watch, nodes: their changes become triggers and node hints.',
      apiGroups: [''],
      resources: ['nodes'],
      verbs: ['list', 'watch'],
    },
    {
      why: 'watches/resource-watch.ts lists and watches the daemon pods, watches/orphan-watches.ts the pods each managed DaemonSet could adopt (both label-selected; RBAC cannot narrow by label), for triggers.',
      apiGroups: [''],
      resources: ['pods'],
      verbs: ['list', 'watch'],
    },
    {
      why: 'watches/resource-watch.ts lists and watches the managed DaemonSets for triggers.',
      apiGroups: [group],
      resources: ['daemonsets'],
      verbs: ['list', 'watch'],
    },
    {
      why: 'watches/resource-watch.ts lists and watches ControllerRevisions for the revision hashes of its hints (cluster-view/revision-hashes.ts).',
      apiGroups: ['apps'],
      resources: ['controllerrevisions'],
      verbs: ['list', 'watch'],
    },
  ];
}

/** The router: the reads it routes by. */
function routerRules(group: string): FunctionRule[] {
  return [
    {
      why: 'router-ec2.ts lists nodes to find the node of an EC2 instance by its providerID.',
      apiGroups: [''],
      resources: ['nodes'],
      verbs: ['list'],
    },
    {
      why: 'router-resync.ts and router-watch.ts list the managed DaemonSets to fan a resync or a node change out to them.',
      apiGroups: [group],
      resources: ['daemonsets'],
      verbs: ['list'],
    },
  ];
}

/**
 * The reconciler: reads its inputs, writes daemon pods, Events, status and revision history, and
 * the node readiness gates (taints, marker, condition) of nodes.
 */
function reconcileRules(group: string): FunctionRule[] {
  return [
    {
      why: "node-step/node-step.ts and reads/pair-reader.ts read a node (getNode); daemon-set-step/read-nodes.ts lists nodes for placement and watches them from the kept table's version to catch it up; node-gates/gate-step.ts lifts and restores the node readiness gate taints, with the released marker, in one merge patch guarded by resourceVersion (patchNodeGate).",
      apiGroups: [''],
      resources: ['nodes'],
      verbs: ['get', 'list', 'watch', 'patch'],
    },
    {
      why: "node-gates/gate-step.ts sets the everynode.dev/DaemonSetsReady node condition through the status subresource, a strategic merge patch by condition type that leaves the kubelet's conditions alone (patchNodeCondition).",
      apiGroups: [''],
      resources: ['nodes/status'],
      verbs: ['patch'],
    },
    {
      why: "Daemon pods: listed by selector and node (daemon-set-step/daemon-set-step.ts, effects/claim-pods.ts), watched from a kept LIST's version to catch it up (daemon-set-step/catch-up-pods.ts), created and deleted with preconditions (effects/action-executor.ts), patched to adopt or release them (effects/claim-pods.ts, also from pair-step/adopt-orphan.ts) and to update them in place (effects/in-place-update.ts).",
      apiGroups: [''],
      resources: ['pods'],
      verbs: ['list', 'watch', 'create', 'delete', 'patch'],
    },
    {
      why: 'effects/in-place-update.ts resizes a daemon pod in place (daemon-set-step/in-place-rollout.ts, inPlace: IfPossible) with a guarded JSON patch of the resize subresource.',
      apiGroups: [''],
      resources: ['pods/resize'],
      verbs: ['patch'],
    },
    {
      why: "effects/in-place-gate-writes.ts sets the everynode.dev/InPlaceUpdateReady readiness gate condition of a daemon pod (True after its create and once an in-place update settled, False before one) through the status subresource, a strategic merge patch by condition type that leaves the kubelet's conditions alone (patchPodConditions).",
      apiGroups: [''],
      resources: ['pods/status'],
      verbs: ['patch'],
    },
    {
      why: 'memory/event-recorder.ts records core/v1 Events with the upstream DaemonSet reasons; it only creates them (its spam filter drops repeats instead of patching a series).',
      apiGroups: [''],
      resources: ['events'],
      verbs: ['create'],
    },
    {
      why: 'The managed DaemonSets: read (daemon-set-step/daemon-set-step.ts, reads/pair-reader.ts) and listed (node-step/node-step.ts); never written but for their status.',
      apiGroups: [group],
      resources: ['daemonsets'],
      verbs: ['get', 'list'],
    },
    {
      why: 'daemon-set-step/write-status.ts replaces the status through the status subresource (PUT: update).',
      apiGroups: [group],
      resources: ['daemonsets/status'],
      verbs: ['update'],
    },
    {
      why: "Pods and revisions carry blockOwnerDeletion, which the OwnerReferencesPermissionEnforcement admission plugin allows only to those who may update the owner's finalizers (upstream's daemon-set-controller role has it too).",
      apiGroups: [group],
      resources: ['daemonsets/finalizers'],
      verbs: ['update'],
    },
    {
      why: 'daemon-set-step/sync-revision-history.ts keeps the revision history `kubectl rollout history` and `undo` read: lists, creates, updates (adoption, revision bumps) and deletes (cleanupHistory) ControllerRevisions.',
      apiGroups: ['apps'],
      resources: ['controllerrevisions'],
      verbs: ['list', 'create', 'update', 'delete'],
    },
  ];
}

/**
 * The rules of `fn` when everynode manages `kind`: the DaemonSet rules name only that kind's API
 * group, so no function has rights on the kind not managed.
 */
export function functionRules(fn: EverynodeFunction, kind: ManagedKind): readonly FunctionRule[] {
  const { group } = managedResourceOf(kind);
  if (fn === 'relay') return relayRules(group);
  if (fn === 'router') return routerRules(group);
  if (kind !== 'apps/v1') return reconcileRules(group);
  return [
    ...reconcileRules(group),
    {
      why: "daemon-set-step/write-rollout-record.ts keeps a safe rollout's record in the everynode.dev/rollout-status annotation (PATCH): an apps/v1 status has no field for it.",
      apiGroups: [group],
      resources: ['daemonsets'],
      verbs: ['patch'],
    },
  ];
}
