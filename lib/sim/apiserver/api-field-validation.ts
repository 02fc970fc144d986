/**
 * Server-side field validation (`?fieldValidation=Strict|Warn|Ignore`, GA in 1.27), as
 * staging/src/k8s.io/apiserver/pkg/endpoints/handlers create.go, update.go and patch.go apply it:
 * unknown and duplicate fields are always dropped; Strict refuses the request, Warn (the default
 * when the parameter is absent, rest.go fieldValidation) answers with one `Warning: 299` header per
 * problem, Ignore says nothing.
 */
import type { ServerResponse } from 'node:http';
import { type FieldError, SimApiError } from '../schema/api-error.ts';
import { notSupported } from '../schema/field-errors.ts';

/** What the server does with unknown and duplicate fields. */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** The options kind named in a 422 about a bad query parameter. */
export type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions';

/**
 * The directive of a write request; absent or empty means Warn. Other values are refused with 422
 * as ValidateFieldValidation does (supported values listed sorted, empty string first).
 */
export function fieldValidationOf(query: URLSearchParams, optionsKind: OptionsKind): FieldValidation {
  const value = query.get('fieldValidation') ?? '';
  if (value === '') return 'Warn';
  if (value === 'Strict' || value === 'Warn' || value === 'Ignore') return value;
  const error: FieldError = notSupported('fieldValidation', value, ['', 'Ignore', 'Strict', 'Warn']);
  throw SimApiError.invalid(optionsKind, 'meta.k8s.io', '', [error]);
}

/** `strict decoding error: a, b` (runtime.strictDecodingError.Error()). */
export function strictDecodingMessage(texts: readonly string[]): string {
  return `strict decoding error: ${texts.join(', ')}`;
}

/**
 * The 400 of a create or update whose body has unknown or duplicate fields under Strict
 * (handlers/rest.go transformDecodeError): `DaemonSet in version "v1" cannot be handled as a
 * DaemonSet: strict decoding error: unknown field "spec.foo"`.
 */
export function strictBodyError(
  bodyKind: string,
  bodyVersion: string,
  resourceKind: string,
  texts: readonly string[],
): SimApiError {
  return SimApiError.badRequest(
    `${bodyKind} in version ${JSON.stringify(bodyVersion)} cannot be handled as a ${resourceKind}: ${strictDecodingMessage(texts)}`,
  );
}

/**
 * The 422 of a patch whose result has unknown or duplicate fields under Strict (patch.go
 * applyPatchToObject / jsonPatcher): an Invalid error on field `patch` with an empty kind and name,
 * whose value is the patch map (strategic merge) or the patched object (JSON and merge patches).
 */
export function strictPatchError(shownValue: string, texts: readonly string[]): SimApiError {
  const message = `Invalid value: ${JSON.stringify(shownValue)}: ${strictDecodingMessage(texts)}`;
  return new SimApiError(422, 'Invalid', ` "" is invalid: patch: ${message}`, {
    causes: [{ reason: 'FieldValueInvalid', message, field: 'patch' }],
  });
}

/** A `Warning` header value: code 299, agent `-`, the text quoted (util/net NewWarningHeader). */
export function warningHeader(text: string): string {
  // Header values must be Latin-1; the apiserver's are UTF-8, which Node refuses here.
  const safe = text.replace(/[^\u0020-\u00ff]/g, '?');
  return `299 - "${safe.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

/** Adds `texts` as Warning headers of `res` (deduplicated, as the warning recorder does). */
export function addWarnings(res: ServerResponse, texts: readonly string[]): void {
  if (texts.length === 0 || res.headersSent) return;
  const existing = res.getHeader('Warning');
  const current = Array.isArray(existing) ? existing : existing === undefined ? [] : [String(existing)];
  const next = [...current];
  for (const text of texts) {
    const header = warningHeader(text);
    if (!next.includes(header)) next.push(header);
  }
  res.setHeader('Warning', next);
}

/**
 * Applies `directive` to the strict-decoding error texts of a request: throws `refuse(texts)`
 * under Strict, adds one warning per text under Warn, does nothing under Ignore or without errors.
 */
export function enforceFieldValidation(
  directive: FieldValidation,
  texts: readonly string[],
  res: ServerResponse,
  refuse: (texts: readonly string[]) => SimApiError,
): void {
  if (texts.length === 0 || directive === 'Ignore') return;
  if (directive === 'Strict') throw refuse(texts);
  addWarnings(res, texts);
}
