/**
 * The backstop for a pod template the API server refuses on every node (a field kube-apiserver
 * validates on pods that everynode's own template validation, core/validation-pod-template.ts, does
 * not): the first refused create records it on the DaemonSet's status — the shared record, as
 * processes share no memory — and every create of that revision is skipped until a new revision
 * replaces it, so the fan-out stops instead of dead-lettering one pair per node.
 */
import type { V1DaemonSetCondition } from '@kubernetes/client-node';
import { CONTROLLER_REVISION_HASH_LABEL, type DaemonSet } from '../../core/daemon-set.ts';
import { ConflictError, InvalidError, NotFoundError } from '../../kube/errors/kube-api-errors.ts';
import type { ReconcileDeps } from '../deps/reconcile-deps.ts';
import { EventReason } from '../memory/event-recorder.ts';

/** The condition type of a refused template (upstream's, shared with the invalid-spec condition). */
export const REFUSED_CONDITION = 'ReplicaFailure';
/** Its reason, as upstream's ReplicaSet controller sets it, and the reason of its Warning event. */
export const REFUSED_REASON = 'FailedCreate';

const MESSAGE_PREFIX = 'Error creating pods of revision ';
const MESSAGE_PATTERN = /^Error creating pods of revision (\S+): /;

/**
 * Field paths of a 422 cause that concern the node rather than the template: the pod's name (it
 * embeds the node's name), its `spec.nodeName` and the node affinity a daemon pod gets for its node.
 */
const NODE_SPECIFIC_FIELDS = ['metadata.name', 'spec.nodeName', 'spec.affinity.nodeAffinity'];

function nodeSpecific(field: string | undefined): boolean {
  return NODE_SPECIFIC_FIELDS.some(
    (prefix) => field === prefix || field?.startsWith(`${prefix}.`) || field?.startsWith(`${prefix}[`),
  );
}

/**
 * True when `error`, the answer to a pod create, refuses the pod template itself, so every node's
 * create of the same revision would be refused too. The rule: a 422 Invalid with at least one field
 * cause and no cause under a node-specific path (`metadata.name`, `spec.nodeName`,
 * `spec.affinity.nodeAffinity`: see NODE_SPECIFIC_FIELDS). A 422 naming no field says nothing about
 * where the fault is: it stays a permanent failure of its pair.
 */
export function isTemplateRefusal(error: unknown): error is InvalidError {
  if (!(error instanceof InvalidError) || error.causes.length === 0) return false;
  return !error.causes.some((cause) => nodeSpecific(cause.field));
}

/** The revision hash the refused-template condition of `ds` names, if it has one. */
export function refusedRevision(ds: Readonly<DaemonSet> | undefined): string | undefined {
  const condition = ds?.status?.conditions?.find(
    (c) => c.type === REFUSED_CONDITION && c.reason === REFUSED_REASON && c.status === 'True',
  );
  return MESSAGE_PATTERN.exec(condition?.message ?? '')?.[1];
}

/**
 * True when creates of revision `hash` of `ds` are refused: its status (or this process's most
 * recent read of it, which a refusal recorded here updates) names that revision.
 */
export function isRefused(deps: ReconcileDeps, ds: Readonly<DaemonSet>, hash: string): boolean {
  if (hash === '') return false;
  if (refusedRevision(ds) === hash) return true;
  const recent = deps.memory.objects.recentDaemonSet(ds.metadata?.uid ?? '', deps.clock().getTime());
  return refusedRevision(recent?.value) === hash;
}

/** The revision hash of a pod about to be created. */
export function podRevision(pod: { metadata?: { labels?: Record<string, string> } }): string {
  return pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '';
}

function refusedCondition(hash: string, message: string, now: Date): V1DaemonSetCondition {
  const text = `${MESSAGE_PREFIX}${hash}: ${message}`;
  return {
    type: REFUSED_CONDITION,
    status: 'True',
    reason: REFUSED_REASON,
    message: text,
    lastTransitionTime: now,
  };
}

/**
 * Records that the API server refused the template of revision `hash` of `ds` with `error`: the
 * refused-template condition on a fresh read of the DaemonSet (status write with optimistic
 * concurrency, retried once on a Conflict), and upstream's Warning event `FailedCreate`
 * ("Error creating: <message>") when this call is the one that wrote it, so the DaemonSet gets one
 * event per refused revision however many pairs met the refusal. A DaemonSet gone meanwhile needs
 * nothing. The process's fan-out feed of the DaemonSet is dropped: its pairs would only be skipped.
 */
export async function recordRefusal(
  deps: ReconcileDeps,
  ds: Readonly<DaemonSet>,
  hash: string,
  error: Readonly<InvalidError>,
): Promise<void> {
  const meta = ds.metadata ?? {};
  deps.memory.fanOutFeeds.drop(meta.uid ?? '');
  for (let attempt = 0; attempt < 2; attempt++) {
    const fresh = await deps.ports.kube.getDaemonSet(meta.namespace ?? 'default', meta.name ?? '');
    if (fresh === undefined || fresh.metadata?.uid !== meta.uid) return;
    const now = deps.clock();
    if (refusedRevision(fresh) === hash) {
      deps.memory.objects.putRecentDaemonSet(fresh, now.getTime());
      return;
    }
    const others = (fresh.status?.conditions ?? []).filter((c) => c.type !== REFUSED_CONDITION);
    const status = {
      currentNumberScheduled: 0,
      desiredNumberScheduled: 0,
      numberMisscheduled: 0,
      numberReady: 0,
      ...fresh.status,
      conditions: [...others, refusedCondition(hash, error.message, now)],
    };
    try {
      const written = await deps.ports.kube.updateDaemonSetStatus({ ...fresh, status });
      deps.memory.objects.putRecentDaemonSet(written, deps.clock().getTime());
      deps.memory.events.warning(ds, EventReason.FailedCreate, `Error creating: ${error.message}`);
      deps.ports.logger.warn('the API server refuses the pod template; creates of its revision stop', {
        daemonSet: `${meta.namespace}/${meta.name}`,
        revision: hash,
        error: error.message,
      });
      return;
    } catch (failure) {
      if (failure instanceof NotFoundError) return;
      if (!(failure instanceof ConflictError) || attempt === 1) throw failure;
    }
  }
}
