/**
 * ListOptions checks of staging/src/k8s.io/apimachinery/pkg/apis/meta/internalversion/validation
 * (ValidateListOptions) and the continue token format of apiserver/pkg/storage/continue.go.
 */
import { type FieldError, SimApiError } from '../schema/api-error.ts';
import { forbidden, notSupported } from '../schema/field-errors.ts';

/** The list-related query parameters of a request. */
export interface ListQuery {
  readonly watch: boolean;
  readonly resourceVersion: string;
  readonly resourceVersionMatch: string;
  readonly continueToken: string;
  readonly limit: number;
  readonly sendInitialEvents: boolean | undefined;
  readonly allowWatchBookmarks: boolean;
  readonly labelSelector: string;
  readonly fieldSelector: string;
  readonly timeoutSeconds: number | undefined;
}

const isTrue = (v: string | null): boolean => v === 'true' || v === '1';

/** Reads the list query parameters; 400 on a malformed number. */
export function listQueryOf(query: URLSearchParams, watch: boolean): ListQuery {
  const limitText = query.get('limit');
  const limit = limitText ? Number(limitText) : 0;
  if (!Number.isInteger(limit))
    throw SimApiError.badRequest(`limit: Invalid value: "${limitText}": must be an integer`);
  const timeoutText = query.get('timeoutSeconds');
  const initial = query.get('sendInitialEvents');
  return {
    watch,
    resourceVersion: query.get('resourceVersion') ?? '',
    resourceVersionMatch: query.get('resourceVersionMatch') ?? '',
    continueToken: query.get('continue') ?? '',
    limit: Math.max(0, limit),
    sendInitialEvents: initial === null ? undefined : isTrue(initial),
    allowWatchBookmarks: isTrue(query.get('allowWatchBookmarks')),
    labelSelector: query.get('labelSelector') ?? '',
    fieldSelector: query.get('fieldSelector') ?? '',
    timeoutSeconds: timeoutText ? Number(timeoutText) : undefined,
  };
}

/** ValidateListOptions; throws 422 Invalid (ListOptions.meta.k8s.io) with the upstream causes. */
export function validateListQuery(q: Readonly<ListQuery>): void {
  const errors: FieldError[] = [];
  const match = q.resourceVersionMatch;
  if (match) {
    if (q.watch) {
      if (q.sendInitialEvents === undefined)
        errors.push(
          forbidden(
            'resourceVersionMatch',
            'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
          ),
        );
      if (match !== 'NotOlderThan')
        errors.push(notSupported('resourceVersionMatch', match, ['NotOlderThan']));
    } else {
      if (!q.resourceVersion)
        errors.push(
          forbidden(
            'resourceVersionMatch',
            'resourceVersionMatch is forbidden unless resourceVersion is provided',
          ),
        );
      if (match !== 'Exact' && match !== 'NotOlderThan')
        errors.push(notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
      if (match === 'Exact' && q.resourceVersion === '0')
        errors.push(
          forbidden(
            'resourceVersionMatch',
            'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
          ),
        );
    }
    if (q.continueToken)
      errors.push(
        forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'),
      );
  }
  if (q.sendInitialEvents !== undefined) {
    if (!q.watch) errors.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
    else {
      if (!q.allowWatchBookmarks)
        errors.push(
          forbidden('allowWatchBookmarks', 'allowWatchBookmarks required when sendInitialEvents is provided'),
        );
      if (match !== 'NotOlderThan')
        errors.push(
          forbidden(
            'resourceVersionMatch',
            'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
          ),
        );
    }
  }
  if (errors.length > 0) throw SimApiError.invalid('ListOptions', 'meta.k8s.io', '', errors);
}

/** A decoded continue token: the list's resourceVersion and the key to start after. */
export interface ContinueToken {
  readonly resourceVersion: number;
  readonly start: string;
}

/** The continue token for the next page (storage.EncodeContinue). */
export function encodeContinue(resourceVersion: number, lastKey: string): string {
  const json = JSON.stringify({ v: 'meta.k8s.io/v1', rv: resourceVersion, start: `${lastKey}\u0000` });
  return Buffer.from(json).toString('base64url');
}

/** Decodes a continue token (storage.DecodeContinue); 400 BadRequest when it is not one of ours. */
export function decodeContinue(token: string): ContinueToken {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as {
      v?: unknown;
      rv?: unknown;
      start?: unknown;
    };
    if (parsed.v !== 'meta.k8s.io/v1')
      throw new Error('continue key is not valid: server does not recognize this encoded key');
    if (typeof parsed.rv !== 'number' || typeof parsed.start !== 'string')
      throw new Error(
        'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
      );
    return { resourceVersion: parsed.rv, start: parsed.start };
  } catch (error) {
    const message =
      error instanceof Error && error.message.startsWith('continue key')
        ? error.message
        : 'continue key is not valid: illegal base64 data';
    throw SimApiError.badRequest(message);
  }
}
