/**
 * The answers kube-apiserver gives a request it will not serve: 401 for credentials it cannot
 * authenticate, 403 Forbidden worded as responsewriters.forbiddenMessage words it, so kubectl and
 * client-go users see exactly what a real cluster tells them.
 */
import { SimApiError } from '../schema/api-error.ts';
import type { RequestAttributes } from './request-attributes.ts';

/** 401 Unauthorized, as the authentication filter answers (no details). */
export function unauthorized(): SimApiError {
  return new SimApiError(401, 'Unauthorized', 'Unauthorized');
}

/** `User "u" cannot list resource "pods" in API group "" in the namespace "default"` (forbiddenMessage). */
export function forbiddenMessage(attributes: Readonly<RequestAttributes>): string {
  const user = attributes.user.name;
  if (!attributes.resourceRequest)
    return `User "${user}" cannot ${attributes.verb} path "${attributes.path}"`;
  const resource = attributes.subresource
    ? `${attributes.resource}/${attributes.subresource}`
    : attributes.resource;
  const where = attributes.namespace ? `in the namespace "${attributes.namespace}"` : 'at the cluster scope';
  return `User "${user}" cannot ${attributes.verb} resource "${resource}" in API group "${attributes.apiGroup}" ${where}`;
}

/**
 * 403 Forbidden for `attributes` (errors.NewForbidden of the filter): `<resource> "<name>" is
 * forbidden: <message>[: <reason>]`, or `forbidden: <message>` for a path.
 */
export function forbidden(attributes: Readonly<RequestAttributes>, reason?: string): SimApiError {
  const why = reason ? `${forbiddenMessage(attributes)}: ${reason}` : forbiddenMessage(attributes);
  if (!attributes.resourceRequest) return new SimApiError(403, 'Forbidden', `forbidden: ${why}`, {});
  const group = attributes.apiGroup;
  const qualified = group ? `${attributes.resource}.${group}` : attributes.resource;
  const subject = attributes.name ? `${qualified} "${attributes.name}"` : qualified;
  return new SimApiError(403, 'Forbidden', `${subject} is forbidden: ${why}`, {
    ...(attributes.name ? { name: attributes.name } : {}),
    ...(group ? { group } : {}),
    kind: attributes.resource,
  });
}
