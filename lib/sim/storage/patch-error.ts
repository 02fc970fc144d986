/**
 * Errors raised while applying a patch, carrying the HTTP status the real API server answers with,
 * so the HTTP layer can turn them into a `Status` without guessing.
 */

/** Why a patch was refused: the status code and `Status.reason` the real API server uses. */
export type PatchErrorReason = 'BadRequest' | 'Invalid' | 'UnsupportedMediaType' | 'InternalError';

const statusOf: Readonly<Record<PatchErrorReason, number>> = {
  BadRequest: 400,
  Invalid: 422,
  UnsupportedMediaType: 415,
  InternalError: 500,
};

/**
 * A patch that cannot be applied. `status`/`reason` follow
 * staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go: malformed patches are 400 BadRequest,
 * well-formed patches that do not apply (failed `test`, missing path, list of lists) are 422; other
 * strategic merge errors (a list element without its merge key) reach the client as 500, as upstream.
 */
export class PatchError extends Error {
  /** HTTP status code of the answer. */
  readonly status: number;
  /** `Status.reason` of the answer. */
  readonly reason: PatchErrorReason;

  constructor(reason: PatchErrorReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PatchError';
    this.reason = reason;
    this.status = statusOf[reason];
  }
}
