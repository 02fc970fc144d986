/**
 * The one place plans become API requests
 * (docs/design.md, 4. Decisions are data; one executor applies them). Writes are idempotent by
 * construction: a create uses the pod's deterministic name, so 409 AlreadyExists means another run
 * made it; a delete carries uid + resourceVersion preconditions, so 404 means it is gone already
 * and 409 Conflict means the pod changed since it was read (re-read, re-plan).
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { Action, CreateAction, DeleteAction } from '../../core/action.ts';
import { isControlledBy } from '../../core/controller-ref.ts';
import { daemonPodName } from '../../core/daemon-pod.ts';
import { CONTROLLER_REVISION_HASH_LABEL, type DaemonSet } from '../../core/daemon-set.ts';
import { EverynodeError } from '../../errors/everynode-error.ts';
import {
  AlreadyExistsError,
  ConflictError,
  NotFoundError,
  TooManyRequestsError,
} from '../../kube/errors/kube-api-errors.ts';
import { isNamespaceGone } from '../../kube/errors/namespace-gone.ts';
import type { ReconcileDeps } from '../deps/reconcile-deps.ts';
import { EventReason } from '../memory/event-recorder.ts';
import { openCreatedGate } from './in-place-gate-writes.ts';
import { mapConcurrent } from './map-concurrent.ts';
import { emptyReport, type StepReport } from './step-report.ts';
import { isRefused, isTemplateRefusal, podRevision, recordRefusal } from './template-refusal.ts';

/** What executing a plan did. */
export interface ExecutionResult {
  readonly report: StepReport;
  /** A delete met a Conflict: the state the plan was made from is gone; re-read before planning again. */
  readonly conflict: boolean;
  /** The earliest requeue the plan asked for, in seconds, if any. */
  readonly requeueAfterSeconds?: number;
  /** The resourceVersions of the pods created (their ADDED events are this plan's own doing). */
  readonly created: readonly string[];
}

/** How to execute a plan. */
export interface ExecutionOptions {
  /** Pods the plan was made from (for the FailedDaemonPod / SucceededDaemonPod events). */
  readonly pods?: readonly V1Pod[];
  /**
   * The plan may not have seen every pod whose name it could take (it was made from hints or a
   * DaemonSet-wide LIST by selector): a 409 AlreadyExists is checked against the pod of that name.
   */
  readonly verifyNameClashes?: boolean;
  /** Called just before each delete is sent. */
  readonly beforeDelete?: (action: Readonly<DeleteAction>) => void;
  /** Called for each delete the API server accepted, or answered that the pod was gone already. */
  readonly afterDelete?: (action: Readonly<DeleteAction>) => void;
}

/** Every name tried for a pod is held by a pod of someone else; retried later. */
export class PodNameError extends EverynodeError {
  constructor(ds: Readonly<DaemonSet>, node: string) {
    const meta = ds.metadata ?? {};
    super(
      `creating the pod of DaemonSet ${meta.namespace}/${meta.name} for node ${node}: every name tried is taken`,
      true,
    );
  }
}

/**
 * Executes `actions` for `ds`: deletes first, then — unless a delete met a Conflict — creates,
 * with upstream's events (SuccessfulCreate, FailedCreate, SuccessfulDelete, FailedDelete, and
 * FailedDaemonPod / SucceededDaemonPod before deleting a failed / succeeded pod found in `pods`).
 * Creates of a revision whose pod template the API server refuses (template-refusal.ts) are skipped,
 * and a create refused so is recorded on the DaemonSet instead of thrown. Throws the first other
 * error than AlreadyExists on create, NotFound or Conflict on delete (after recording its event);
 * the handler retries or dead-letters it by its type.
 */
export async function executeActions(
  deps: ReconcileDeps,
  ds: Readonly<DaemonSet>,
  actions: readonly Action[],
  options: Readonly<ExecutionOptions> = {},
): Promise<ExecutionResult> {
  const report = emptyReport();
  const pods = options.pods ?? [];
  const deletes = uniqueDeletes(actions);
  // Creates of a revision whose template the API server refuses wait for a new one (template-refusal.ts).
  const creates = actions.filter(
    (a): a is CreateAction => a.type === 'create' && !isRefused(deps, ds, podRevision(a.pod)),
  );
  const outcomes = await mapConcurrent(deletes, (action) =>
    deleteOne(deps, ds, action, pods, report, options),
  );
  const conflict = outcomes.includes('conflict');
  const verify = options.verifyNameClashes ?? false;
  const created = conflict
    ? []
    : await mapConcurrent(creates, (action) => createOne(deps, ds, action, report, verify));
  const requeues = actions.flatMap((a) => (a.type === 'requeue' ? [a.afterSeconds] : []));
  if (conflict) report.conflicts++;
  return {
    report,
    conflict,
    created: created.filter((rv): rv is string => rv !== undefined),
    ...(requeues.length > 0 ? { requeueAfterSeconds: Math.min(...requeues) } : {}),
  };
}

function uniqueDeletes(actions: readonly Action[]): DeleteAction[] {
  const seen = new Set<string>();
  return actions.filter((a): a is DeleteAction => {
    if (a.type !== 'delete' || seen.has(a.uid)) return false;
    seen.add(a.uid);
    return true;
  });
}

/** Creates attempted per action when names are taken by pods the DaemonSet does not control. */
const MAX_NAME_ATTEMPTS = 5;

/** The pod named `name` in `namespace`, read fresh, if any. */
async function podNamed(deps: ReconcileDeps, namespace: string, name: string): Promise<V1Pod | undefined> {
  const list = await deps.ports.kube.listPods({ namespace, fieldSelector: `metadata.name=${name}` });
  return list.items[0];
}

/** The first deterministic name for the action's pod that is not in `taken` (same revision, next attempt). */
function nextName(ds: Readonly<DaemonSet>, action: CreateAction, taken: ReadonlySet<string>): string {
  const hash = action.pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '';
  let attempt = 0;
  while (taken.has(daemonPodName(ds.metadata?.name ?? '', action.node, hash, attempt))) attempt++;
  return daemonPodName(ds.metadata?.name ?? '', action.node, hash, attempt);
}

/**
 * Creates the action's pod; resolves to its resourceVersion, or undefined when it existed or its
 * namespace is being torn down (no event, as upstream: every later create there fails too) or the
 * API server refuses its template (recorded on the DaemonSet: `recordRefusal`). 409
 * AlreadyExists means another run made it — unless, when `verify`, the pod of that name turns out
 * not to be controlled by this DaemonSet (a pod released after its labels changed): then the next
 * attempt's name is used, as every planner that sees that pod would choose.
 */
async function createOne(
  deps: ReconcileDeps,
  ds: Readonly<DaemonSet>,
  action: CreateAction,
  report: StepReport,
  verify: boolean,
): Promise<string | undefined> {
  const taken = new Set<string>();
  let pod = action.pod;
  for (let attempt = 0; attempt < MAX_NAME_ATTEMPTS; attempt++) {
    const name = pod.metadata?.name ?? '';
    try {
      const made = await deps.ports.kube.createPod(pod);
      report.created++;
      const opened = await openCreatedGate(deps, made);
      const version = made.metadata?.resourceVersion;
      for (const written of [version, opened?.metadata?.resourceVersion])
        if (written !== undefined) deps.memory.keptPods.noteWritten(ds.metadata?.uid ?? '', written);
      deps.memory.events.normal(ds, EventReason.SuccessfulCreate, `Created pod: ${name}`);
      return version;
    } catch (error) {
      if (isNamespaceGone(error)) {
        report.namespaceGone++;
        return undefined;
      }
      if (isTemplateRefusal(error)) {
        await recordRefusal(deps, ds, podRevision(pod), error);
        return undefined;
      }
      if (!(error instanceof AlreadyExistsError)) {
        if (!(error instanceof TooManyRequestsError))
          deps.memory.events.warning(ds, EventReason.FailedCreate, `Error creating: ${messageOf(error)}`);
        throw error;
      }
      const existing = verify ? await podNamed(deps, pod.metadata?.namespace ?? 'default', name) : undefined;
      if (existing === undefined || isControlledBy(existing, ds)) {
        report.alreadyExisted++;
        return undefined;
      }
      taken.add(name);
      pod = { ...pod, metadata: { ...pod.metadata, name: nextName(ds, action, taken) } };
    }
  }
  throw new PodNameError(ds, action.node);
}

async function deleteOne(
  deps: ReconcileDeps,
  ds: Readonly<DaemonSet>,
  action: DeleteAction,
  pods: readonly V1Pod[],
  report: StepReport,
  options: Readonly<ExecutionOptions>,
): Promise<'done' | 'conflict'> {
  await recordTerminalPod(deps, ds, action, pods);
  const { namespace, name, uid, resourceVersion } = action;
  options.beforeDelete?.(action);
  try {
    await deps.ports.kube.deletePod({
      namespace,
      name,
      uid,
      ...(resourceVersion ? { resourceVersion } : {}),
    });
    report.deleted++;
    options.afterDelete?.(action);
    deps.memory.events.normal(ds, EventReason.SuccessfulDelete, `Deleted pod: ${name}`);
    return 'done';
  } catch (error) {
    if (error instanceof NotFoundError) {
      report.alreadyGone++;
      options.afterDelete?.(action);
      return 'done';
    }
    if (error instanceof ConflictError) return 'conflict';
    if (!(error instanceof TooManyRequestsError))
      deps.memory.events.warning(ds, EventReason.FailedDelete, `Error deleting: ${messageOf(error)}`);
    throw error;
  }
}

/** Upstream podsShouldBeOnNode's events for the failed and succeeded pods it deletes. */
async function recordTerminalPod(
  deps: ReconcileDeps,
  ds: Readonly<DaemonSet>,
  action: DeleteAction,
  pods: readonly V1Pod[],
): Promise<void> {
  const phase = pods.find((pod) => pod.metadata?.uid === action.uid)?.status?.phase;
  const which = `${action.namespace}/${action.name} on node ${action.node}`;
  if (phase === 'Failed') {
    deps.memory.events.warning(
      ds,
      EventReason.FailedDaemonPod,
      `Found failed daemon pod ${which}, will try to kill it`,
    );
  } else if (phase === 'Succeeded') {
    deps.memory.events.normal(
      ds,
      EventReason.SucceededDaemonPod,
      `Found succeeded daemon pod ${which}, will try to delete it`,
    );
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
