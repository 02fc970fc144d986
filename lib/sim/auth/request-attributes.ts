/**
 * What authorization decides on: who asks to do what to which object (k8s.io/apiserver
 * pkg/authorization/authorizer.Attributes, as requestinfo.go fills them).
 */
import type { UserInfo } from './user-info.ts';

/** A request as the authorizer sees it. */
export interface RequestAttributes {
  readonly user: UserInfo;
  /** get, list, watch, create, update, patch, delete, deletecollection (for non-resource requests: the HTTP verb in lower case). */
  readonly verb: string;
  /** True for /api and /apis resource requests, false for other paths (discovery, /version, /healthz). */
  readonly resourceRequest: boolean;
  readonly apiGroup: string;
  readonly resource: string;
  readonly subresource: string;
  /** '' for cluster-scoped resources and requests across namespaces. */
  readonly namespace: string;
  /** '' when the request names no object (list, create, watch without a field selector on the name). */
  readonly name: string;
  /** The URL path, for non-resource requests. */
  readonly path: string;
}
