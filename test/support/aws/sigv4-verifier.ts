/**
 * SigV4 signatures of SDK requests checked as AWS checks them: the `Authorization` header's
 * credential names an access key the gateway issued, its scope gives the date, region and service,
 * and the signature is recomputed with @smithy/signature-v4 over the headers the client says it
 * signed, the path, the query and the body. A temporary key (ASIA…) is only valid with the session
 * token issued with it; a request dated more than 15 minutes away from the clock is refused.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AuthenticationFailure } from './aws-gateway-protocol.ts';

/** A key pair the gateway issued. */
export interface SigningCredential {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** Required with temporary (ASIA…) keys, absent for a user's long-term key. */
  readonly sessionToken?: string;
}

/** A request as received. */
export interface ReceivedRequest {
  readonly method: string;
  /** Path and query, as in the request line. */
  readonly url: string;
  /** Headers, lower case, repeated ones joined with `,`. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/** The parts of an `Authorization: AWS4-HMAC-SHA256 …` header. */
export interface SigV4Authorization {
  readonly accessKeyId: string;
  readonly date: string;
  readonly region: string;
  readonly service: string;
  readonly signedHeaders: readonly string[];
  readonly signature: string;
}

/** The signature check refused a request. */
export class SigV4Rejected extends Error {
  readonly failure: AuthenticationFailure;
  constructor(failure: AuthenticationFailure, message: string) {
    super(message);
    this.name = 'SigV4Rejected';
    this.failure = failure;
  }
}

const SKEW_MS = 15 * 60 * 1000;
const HEADER_PATTERN =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request,\s*SignedHeaders=([^,]+),\s*Signature=([0-9a-f]{64})$/;

/** The parsed `Authorization` header, or undefined when the request carries no SigV4 header. */
export function parseAuthorization(header: string | undefined): SigV4Authorization | undefined {
  const match = HEADER_PATTERN.exec(header?.trim() ?? '');
  if (!match) return undefined;
  const [, accessKeyId = '', date = '', region = '', service = '', signed = '', signature = ''] = match;
  return { accessKeyId, date, region, service, signedHeaders: signed.split(';'), signature };
}

/** `X-Amz-Date` (`20240101T000000Z`) as a Date, or undefined when it is not one. */
function amzDate(value: string | undefined): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? '');
  if (!m) return undefined;
  const date = new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The request as the client signed it: only the headers it lists, the query split, the path as
 * received (the signer escapes it once more, as AWS's canonical URI of every service but S3 does:
 * Lambda's `/functions/arn%3Aaws%3A…` is signed as `arn%253Aaws%253A…`).
 */
function signableRequest(request: ReceivedRequest, signedHeaders: readonly string[]): HttpRequest {
  const url = new URL(request.url, 'https://gateway.invalid');
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of url.searchParams) {
    const previous = query[key];
    query[key] =
      previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
  }
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) headers[name] = request.headers[name] ?? '';
  return new HttpRequest({
    method: request.method,
    protocol: 'https:',
    hostname: (request.headers.host ?? '').replace(/:\d+$/, ''),
    path: url.pathname,
    query,
    headers,
    body: request.body,
  });
}

/**
 * The credential that signed `request`, looked up by `credentialOf`; throws SigV4Rejected when the
 * request is unsigned, the key or its session token is unknown, the date is off or the signature
 * differs.
 */
export async function verifySigV4(
  request: ReceivedRequest,
  credentialOf: (accessKeyId: string) => SigningCredential | undefined,
  now: Date = new Date(),
): Promise<{ readonly credential: SigningCredential; readonly authorization: SigV4Authorization }> {
  const authorization = parseAuthorization(request.headers.authorization);
  if (!authorization)
    throw new SigV4Rejected('missing', 'the request carries no AWS4-HMAC-SHA256 Authorization header');
  const credential = credentialOf(authorization.accessKeyId);
  if (!credential || (credential.sessionToken ?? '') !== (request.headers['x-amz-security-token'] ?? '')) {
    throw new SigV4Rejected(
      'unknown-key',
      `access key ${authorization.accessKeyId} or its session token is unknown`,
    );
  }
  const date = amzDate(request.headers['x-amz-date']);
  if (!date || !request.headers['x-amz-date']?.startsWith(authorization.date)) {
    throw new SigV4Rejected('bad-signature', 'X-Amz-Date is missing or does not match the credential scope');
  }
  if (Math.abs(date.getTime() - now.getTime()) > SKEW_MS) {
    throw new SigV4Rejected(
      'expired',
      `${request.headers['x-amz-date']} is more than 15 minutes from ${now.toISOString()}`,
    );
  }
  const declaredHash = request.headers['x-amz-content-sha256'];
  if (declaredHash && declaredHash !== 'UNSIGNED-PAYLOAD') {
    if (declaredHash !== createHash('sha256').update(request.body).digest('hex')) {
      throw new SigV4Rejected('bad-signature', 'x-amz-content-sha256 does not match the body');
    }
  }
  const signer = new SignatureV4({
    service: authorization.service,
    region: authorization.region,
    credentials: credential,
    sha256: Sha256,
    uriEscapePath: true,
    applyChecksum: authorization.signedHeaders.includes('x-amz-content-sha256'),
  });
  const signed = await signer.sign(signableRequest(request, authorization.signedHeaders), {
    signingDate: date,
    signableHeaders: new Set(authorization.signedHeaders),
  });
  const expected = /Signature=([0-9a-f]{64})/.exec(String(signed.headers.authorization ?? ''))?.[1] ?? '';
  if (!sameText(expected, authorization.signature)) {
    throw new SigV4Rejected('bad-signature', 'the signature does not match the request');
  }
  return { credential, authorization };
}
