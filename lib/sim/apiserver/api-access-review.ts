/**
 * POST of an authorization.k8s.io/v1 SelfSubjectAccessReview: what `kubectl auth can-i` asks. The
 * review is answered, never stored (pkg/registry/authorization/selfsubjectaccessreview/rest.go):
 * the spec's resource or non-resource attributes, for the user the request authenticated as, go to
 * the server's own authorizer, and its decision comes back in `status`.
 */
import type { RequestAttributes } from '../auth/request-attributes.ts';
import type { UserInfo } from '../auth/user-info.ts';
import { type FieldError, SimApiError } from '../schema/api-error.ts';
import { invalid } from '../schema/field-errors.ts';
import { asRecord } from '../schema/store-json.ts';
import type { KubeObject } from '../schema/store-types.ts';
import type { HandlerContext } from './api-context.ts';

const textOf = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * ValidateSelfSubjectAccessReviewSpec: exactly one of resourceAttributes and nonResourceAttributes.
 * The bad value is worded as field.Invalid prints it: a nil pointer as "null", a struct as Go's %#v.
 */
function validateSpec(spec: Readonly<Record<string, unknown>>): void {
  const [resource, nonResource] = [spec.resourceAttributes, asRecord(spec.nonResourceAttributes)];
  let error: FieldError | undefined;
  if (resource !== undefined && nonResource) {
    const go = `authorization.NonResourceAttributes{Path:${JSON.stringify(textOf(nonResource.path))}, Verb:${JSON.stringify(textOf(nonResource.verb))}}`;
    const message = `Invalid value: ${go}: cannot be specified in combination with resourceAttributes`;
    error = { type: 'FieldValueInvalid', field: 'spec.nonResourceAttributes', message };
  } else if (resource === undefined && !nonResource) {
    const why = 'exactly one of nonResourceAttributes or resourceAttributes must be specified';
    error = invalid('spec.resourceAttributes', 'null', why);
  }
  if (error) throw SimApiError.invalid('SelfSubjectAccessReview', 'authorization.k8s.io', '', [error]);
}

/** The attributes the spec asks about for `user` (ResourceAttributesFrom, NonResourceAttributesFrom). */
export function reviewAttributes(user: UserInfo, spec: Readonly<Record<string, unknown>>): RequestAttributes {
  const resource = asRecord(spec.resourceAttributes);
  if (resource) {
    return {
      user,
      verb: textOf(resource.verb),
      resourceRequest: true,
      apiGroup: textOf(resource.group),
      resource: textOf(resource.resource),
      subresource: textOf(resource.subresource),
      namespace: textOf(resource.namespace),
      name: textOf(resource.name),
      path: '',
    };
  }
  const nonResource = asRecord(spec.nonResourceAttributes) ?? {};
  const none = { apiGroup: '', resource: '', subresource: '', namespace: '', name: '' };
  return {
    user,
    verb: textOf(nonResource.verb),
    resourceRequest: false,
    ...none,
    path: textOf(nonResource.path),
  };
}

/**
 * The review `review` answered for the requesting user: its spec as sent and `status.allowed`
 * (with `status.reason` when the authorizer gave one); throws 422 for a spec naming neither or both
 * kinds of attributes.
 */
export function answerSelfSubjectAccessReview(ctx: HandlerContext, review: Readonly<KubeObject>): KubeObject {
  const spec = asRecord(review.spec) ?? {};
  validateSpec(spec);
  const decision = ctx.server.access.authorize(reviewAttributes(ctx.user, spec));
  const { namespace: _namespace, ...metadata } = review.metadata;
  return {
    ...review,
    // An empty ObjectMeta as Go encodes it: the review never gets a name, uid or timestamps.
    metadata: { ...metadata, creationTimestamp: null as unknown as Date },
    status: { allowed: decision.allowed, ...(decision.reason ? { reason: decision.reason } : {}) },
  };
}
