/**
 * EKS bearer tokens verified as EKS verifies them, without AWS: aws-iam-authenticator's
 * tokenVerifier.Verify checks the presigned STS GetCallerIdentity URL inside the token
 * (`k8s-aws-v1.` + base64url), then STS checks its SigV4 signature against the caller's secret key
 * and answers who signed it. Here the simulator holds the secret keys and recomputes the signature
 * with @smithy/signature-v4 over the request EKS would send to STS — its own cluster name in the
 * signed `x-k8s-aws-id` header, so a token made for another cluster does not verify.
 *
 * Expiry: a token is good for 15 minutes after its X-Amz-Date whatever its X-Amz-Expires says
 * (presignedURLExpiration), and X-Amz-Expires itself must be 0…900 seconds; like STS, a date more
 * than 15 minutes ahead of the clock is not yet valid.
 */
import { timingSafeEqual } from 'node:crypto';
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { type EksIdentity, EksTokenRejected } from './eks-access-entries.ts';

/** A key pair the simulated STS knows, and the ARN GetCallerIdentity answers for it. */
export interface EksCredential {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** Session token of temporary credentials (ASIA… keys); the token must carry the same one. */
  readonly sessionToken?: string;
  /** E.g. `arn:aws:sts::111122223333:assumed-role/<role>/<session>` or `arn:aws:iam::…:user/alice`. */
  readonly arn: string;
}

/** What a token is verified against. */
export interface EksTokenVerifierOptions {
  /** The cluster's name: tokens must sign it in `x-k8s-aws-id`. */
  readonly clusterName: string;
  readonly credentials: readonly EksCredential[];
  /** The clock; default the system clock. */
  readonly now?: () => Date;
}

const PREFIX = 'k8s-aws-v1.';
const MAX_TOKEN_LENGTH = 4096;
const CLUSTER_ID_HEADER = 'x-k8s-aws-id';
const EXPIRATION_MS = 15 * 60 * 1000;
const MAX_EXPIRES_SECONDS = 900;
/** The query parameters a token may have (parameterWhitelist), lower case. */
const ALLOWED = new Set([
  'action',
  'version',
  'x-amz-algorithm',
  'x-amz-credential',
  'x-amz-date',
  'x-amz-expires',
  'x-amz-security-token',
  'x-amz-signature',
  'x-amz-signedheaders',
]);
/** The parameters SigV4 presigning adds; the others are the request's own. */
const SIGNING_PARAMETERS = new Set([...ALLOWED].filter((name) => name.startsWith('x-amz-')));

function reject(why: string): never {
  throw new EksTokenRejected(`input token was not properly formatted: ${why}`);
}

/** The presigned URL in `token`: prefix, size, strict unpadded base64url, https, an STS host, path `/`. */
function presignedUrl(token: string): URL {
  if (token.length > MAX_TOKEN_LENGTH) reject('token is too large');
  if (!token.startsWith(PREFIX)) reject(`token is missing expected "${PREFIX}" prefix`);
  const encoded = token.slice(PREFIX.length);
  if (!/^[A-Za-z0-9_-]*$/.test(encoded) || encoded.length % 4 === 1) reject('illegal base64 data');
  let url: URL;
  try {
    url = new URL(Buffer.from(encoded, 'base64url').toString('utf8'));
  } catch (error) {
    throw new EksTokenRejected('input token was not properly formatted: not a URL', { cause: error });
  }
  if (url.protocol !== 'https:') reject(`unexpected scheme "${url.protocol.slice(0, -1)}" in pre-signed URL`);
  if (!/^sts(\.[a-z0-9-]+)?\.amazonaws\.com(\.cn)?$/.test(url.host))
    reject(`unexpected hostname "${url.host}" in pre-signed URL`);
  if (url.pathname !== '/') reject('unexpected path in pre-signed URL');
  return url;
}

/** The query by lower-cased name; only allowed names, each once with one value. */
function parameters(url: URL): Map<string, string> {
  const lower = new Map<string, string>();
  for (const [key, value] of url.searchParams) {
    const name = key.toLowerCase();
    if (!ALLOWED.has(name)) reject(`non-whitelisted query parameter "${key}"`);
    if (lower.has(name)) reject(`duplicate query parameter found: "${key}"`);
    lower.set(name, value);
  }
  return lower;
}

/** X-Amz-Date (`20060102T150405Z`) as a Date, or undefined when it is not one. */
function amzDate(value: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!m) return undefined;
  const date = new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** The signing date of a well-formed GetCallerIdentity presigned request, checked against `now`. */
function signingDate(query: ReadonlyMap<string, string>, now: Date): Date {
  if (query.get('action') !== 'GetCallerIdentity') reject('unexpected action parameter in pre-signed URL');
  const signed = (query.get('x-amz-signedheaders') ?? '').split(';');
  if (!signed.some((header) => header.toLowerCase() === CLUSTER_ID_HEADER))
    reject(`client did not sign the ${CLUSTER_ID_HEADER} header in the pre-signed URL`);
  const expires = query.get('x-amz-expires') ?? '';
  if (!/^[+-]?\d+$/.test(expires) || Number(expires) < 0 || Number(expires) > MAX_EXPIRES_SECONDS)
    reject(`invalid X-Amz-Expires parameter in pre-signed URL: ${expires}`);
  const date = amzDate(query.get('x-amz-date') ?? '');
  if (!date) reject('X-Amz-Date parameter must be present in pre-signed URL and formatted 20060102T150405Z');
  if (now.getTime() > date.getTime() + EXPIRATION_MS)
    reject(`X-Amz-Date parameter is expired (15 minute expiration) ${date.toISOString()}`);
  if (date.getTime() > now.getTime() + EXPIRATION_MS)
    reject(`X-Amz-Date parameter ${date.toISOString()} is not yet current`);
  if (query.get('x-amz-algorithm') !== 'AWS4-HMAC-SHA256') reject('X-Amz-Algorithm must be AWS4-HMAC-SHA256');
  return date;
}

/** The region a host serves: `sts.<region>.amazonaws.com`, or us-east-1 for the global endpoint. */
function regionOf(host: string): string {
  return host === 'sts.amazonaws.com' ? 'us-east-1' : (host.split('.')[1] ?? '');
}

/** The credential of X-Amz-Credential `<key>/<yyyymmdd>/<region>/sts/aws4_request`, scoped as STS wants. */
function credentialFor(
  query: ReadonlyMap<string, string>,
  date: Date,
  host: string,
  options: Readonly<EksTokenVerifierOptions>,
): EksCredential {
  const [accessKeyId = '', ...scope] = (query.get('x-amz-credential') ?? '').split('/');
  const day = date.toISOString().slice(0, 10).replaceAll('-', '');
  if (scope.join('/') !== `${day}/${regionOf(host)}/sts/aws4_request`)
    reject('X-Amz-Credential is not scoped to the date, region and service of the pre-signed URL');
  const credential = options.credentials.find((candidate) => candidate.accessKeyId === accessKeyId);
  if (!credential)
    reject(`the security token included in the request is invalid (access key ${accessKeyId})`);
  if ((credential.sessionToken ?? '') !== (query.get('x-amz-security-token') ?? ''))
    reject(`the security token included in the request is invalid (access key ${accessKeyId})`);
  return credential;
}

/** What a signature is recomputed from. */
interface Signing {
  readonly credential: EksCredential;
  readonly date: Date;
  readonly expiresIn: number;
  readonly clusterName: string;
}

/** The signature STS computes for `url` as EKS forwards it: with the cluster's name in `x-k8s-aws-id`. */
async function expectedSignature(
  url: URL,
  { credential, date, expiresIn, clusterName }: Signing,
): Promise<string> {
  const query: Record<string, string> = {};
  for (const [key, value] of url.searchParams)
    if (!SIGNING_PARAMETERS.has(key.toLowerCase())) query[key] = value;
  const signer = new SignatureV4({
    service: 'sts',
    region: regionOf(url.host),
    credentials: credential,
    sha256: Sha256,
    uriEscapePath: true,
  });
  const request = new HttpRequest({
    method: 'GET',
    protocol: 'https:',
    hostname: url.hostname,
    path: '/',
    query,
    headers: { host: url.host, [CLUSTER_ID_HEADER]: clusterName },
  });
  const signed = await signer.presign(request, { signingDate: date, expiresIn });
  return String(signed.query?.['X-Amz-Signature'] ?? '');
}

function sameSignature(expected: string, actual: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(actual);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The caller `token` authenticates, when it is an EKS token for `options.clusterName` signed by one
 * of `options.credentials` within its 15 minutes; throws EksTokenRejected saying why otherwise.
 */
export async function verifyEksToken(
  token: string,
  options: Readonly<EksTokenVerifierOptions>,
): Promise<EksIdentity> {
  const url = presignedUrl(token);
  const query = parameters(url);
  const date = signingDate(query, (options.now ?? (() => new Date()))());
  const credential = credentialFor(query, date, url.host, options);
  const expiresIn = Number(query.get('x-amz-expires'));
  const expected = await expectedSignature(url, {
    credential,
    date,
    expiresIn,
    clusterName: options.clusterName,
  });
  if (!sameSignature(expected, query.get('x-amz-signature') ?? ''))
    throw new EksTokenRejected(
      'sts getCallerIdentity failed: the request signature does not match ' +
        '(wrong secret key, another cluster name or a tampered token)',
    );
  return { arn: credential.arn, accessKeyId: credential.accessKeyId };
}
