/**
 * Writes into a namespace that is being torn down. kube-apiserver's NamespaceLifecycle admission
 * refuses a create in a terminating namespace with 403 Forbidden and the status cause
 * `NamespaceTerminating`, and in a namespace that is gone with 404 NotFound about `namespaces`.
 * Either way every later create there fails the same way and the namespace's objects are being
 * deleted with it, so the work is done: upstream's DaemonSet controller returns quietly on
 * `apierrors.HasStatusCause(err, v1.NamespaceTerminatingCause)` (daemon_controller.go `syncNodes`)
 * and its pod control records no FailedCreate event for it (controller_utils.go `createPods`).
 */
import { ForbiddenError, NotFoundError } from './kube-api-errors.ts';

/** The status cause of a create refused because its namespace is terminating (v1.NamespaceTerminatingCause). */
export const NAMESPACE_TERMINATING_CAUSE = 'NamespaceTerminating';

/** True when `error` says the request's namespace is terminating or gone. */
export function isNamespaceGone(error: unknown): boolean {
  if (error instanceof ForbiddenError)
    return error.causes.some((cause) => cause.reason === NAMESPACE_TERMINATING_CAUSE);
  return error instanceof NotFoundError && error.kind === 'namespaces';
}
