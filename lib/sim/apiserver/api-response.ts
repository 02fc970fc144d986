/**
 * Writing answers: JSON bodies, Status errors, and the content negotiation kubectl relies on
 * (meta.k8s.io Table and PartialObjectMetadata via `Accept: application/json;as=...`).
 */
import type { ServerResponse } from 'node:http';
import { SimApiError } from '../schema/api-error.ts';

/** One Accept entry: media type plus its parameters. */
interface MediaRange {
  readonly type: string;
  readonly params: Readonly<Record<string, string>>;
}

/** Parses an Accept header into media ranges, in order. */
export function parseAccept(accept: string | undefined): MediaRange[] {
  return (accept ?? '').split(',').flatMap((entry) => {
    const [type = '', ...params] = entry.split(';').map((p) => p.trim());
    if (type === '') return [];
    const record: Record<string, string> = {};
    for (const p of params) {
      const eq = p.indexOf('=');
      if (eq > 0) record[p.slice(0, eq).trim()] = p.slice(eq + 1).trim();
    }
    return [{ type: type.toLowerCase(), params: record }];
  });
}

/** The transformed form an Accept header asks for first: a Table, partial metadata, or plain objects. */
export type Rendering = 'Table' | 'PartialObjectMetadata' | 'Object';

/** Which rendering `accept` prefers (handlers/response.go transformObject); 406 if it accepts no JSON. */
export function renderingFor(accept: string | undefined): Rendering {
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return 'Object';
  for (const range of ranges) {
    const jsonLike =
      range.type === 'application/json' || range.type === '*/*' || range.type === 'application/*';
    if (!jsonLike) continue;
    const as = range.params.as;
    const metaGroup =
      range.params.g === 'meta.k8s.io' && (range.params.v === 'v1' || range.params.v === 'v1beta1');
    if (as === 'Table' && metaGroup) return 'Table';
    if ((as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') && metaGroup)
      return 'PartialObjectMetadata';
    if (as === undefined) return 'Object';
  }
  throw new SimApiError(
    406,
    'NotAcceptable',
    `only the following media types are accepted: application/json, application/yaml`,
  );
}

/** Sends a JSON body (already serialized — as text or UTF-8 bytes — or not) with status `code`. */
export function sendJson(
  res: ServerResponse,
  code: number,
  body: unknown,
  contentType = 'application/json',
  headers: Readonly<Record<string, string>> = {},
): void {
  const text = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  res.writeHead(code, {
    'Content-Type': contentType,
    'Cache-Control': 'no-cache, private',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Sends an error as a Status; anything but a SimApiError becomes 500 InternalError. */
export function sendError(res: ServerResponse, error: unknown): void {
  const apiError =
    error instanceof SimApiError
      ? error
      : SimApiError.internal(error instanceof Error ? error.message : String(error));
  if (!(error instanceof SimApiError)) console.error('simulated API server: unexpected error', error);
  const retryAfter = apiError.details?.retryAfterSeconds;
  const headers: Record<string, string> =
    retryAfter !== undefined ? { 'Retry-After': String(retryAfter) } : {};
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, apiError.status, apiError.toStatus(), 'application/json', headers);
}

/** Reads a request body as text (up to 3 MiB, the apiserver's request size limit). */
export async function readBody(req: NodeJS.ReadableStream): Promise<string> {
  return (await readBodyBytes(req)).toString('utf8');
}

/** The 413 of a body past the apiserver's 3 MiB request size limit. */
const tooLarge = () =>
  new SimApiError(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');

/**
 * Reads a request body as bytes (up to 3 MiB; past that the request is dropped and this rejects
 * with 413). Listens for the stream's events rather than iterating it: no async iterator per request.
 */
export function readBodyBytes(req: NodeJS.ReadableStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (error: Error | undefined) => {
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      req.removeListener('error', settle);
      req.removeListener('close', onClose);
      if (error) reject(error);
      else resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer | string) => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buffer.length;
      if (size <= 3 * 1024 * 1024) chunks.push(buffer);
      else {
        settle(tooLarge());
        (req as { destroy?: () => void }).destroy?.();
      }
    };
    const onEnd = () => settle(undefined);
    const onClose = () =>
      settle(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', settle);
    req.on('close', onClose);
  });
}

/** Parses a JSON request body; 400 with the decoder's words when it is not JSON. */
export function parseJsonBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SimApiError(
      400,
      'BadRequest',
      `the object provided is unrecognized (${error instanceof Error ? error.message : 'invalid JSON'})`,
      undefined,
      { cause: error },
    );
  }
}
