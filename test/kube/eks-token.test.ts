import { createHash, createHmac } from 'node:crypto';
import type { AwsCredentialIdentity } from '@smithy/types';
import { describe, expect, it } from 'vitest';
import {
  EKS_TOKEN_PREFIX,
  EksTokenError,
  EksTokenSource,
  eksToken,
} from '../../lib/kube/connection/eks-token.ts';

const credentials: AwsCredentialIdentity = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  sessionToken: 'session/token+with=chars',
};
const signingDate = new Date('2026-01-02T03:04:05Z');
const request = { clusterName: 'prod-cluster', region: 'eu-west-1', credentials, signingDate };

function decode(token: string): URL {
  return new URL(Buffer.from(token.slice(EKS_TOKEN_PREFIX.length), 'base64url').toString('utf8'));
}

/** SigV4 of the presigned URL computed from the AWS documentation, independently of the signer. */
function expectedSignature(url: URL, secret: string, clusterName: string): string {
  const params = [...url.searchParams].filter(([k]) => k !== 'X-Amz-Signature');
  const enc = (s: string) =>
    encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const query = params
    .map(([k, v]) => [enc(k), enc(v)])
    .sort(([a = ''], [b = '']) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const headers = `host:${url.host}\nx-k8s-aws-id:${clusterName}\n`;
  const emptyHash = createHash('sha256').update('').digest('hex');
  const canonical = ['GET', '/', query, headers, 'host;x-k8s-aws-id', emptyHash].join('\n');
  const date = url.searchParams.get('X-Amz-Date') ?? '';
  const scope = `${date.slice(0, 8)}/eu-west-1/sts/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', date, scope, createHash('sha256').update(canonical).digest('hex')].join(
    '\n',
  );
  let key: Buffer = Buffer.from(`AWS4${secret}`);
  for (const part of [date.slice(0, 8), 'eu-west-1', 'sts', 'aws4_request'])
    key = createHmac('sha256', key).update(part).digest();
  return createHmac('sha256', key).update(toSign).digest('hex');
}

describe('eksToken', () => {
  it('is k8s-aws-v1. + unpadded base64url of a presigned STS GetCallerIdentity URL', async () => {
    const token = await eksToken(request);
    expect(token.startsWith('k8s-aws-v1.')).toBe(true);
    expect(token.slice(EKS_TOKEN_PREFIX.length)).toMatch(/^[A-Za-z0-9_-]+$/);
    const url = decode(token);
    expect(url.origin).toBe('https://sts.eu-west-1.amazonaws.com');
    expect(url.pathname).toBe('/');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      Action: 'GetCallerIdentity',
      Version: '2011-06-15',
      'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
      'X-Amz-Credential': 'AKIDEXAMPLE/20260102/eu-west-1/sts/aws4_request',
      'X-Amz-Date': '20260102T030405Z',
      'X-Amz-Expires': '60',
      'X-Amz-SignedHeaders': 'host;x-k8s-aws-id',
      'X-Amz-Security-Token': 'session/token+with=chars',
    });
  });

  it('carries the SigV4 signature of the request with the cluster header signed', async () => {
    const url = decode(await eksToken(request));
    expect(url.searchParams.get('X-Amz-Signature')).toBe(
      expectedSignature(url, credentials.secretAccessKey, 'prod-cluster'),
    );
  });

  it('is deterministic for fixed inputs and differs per cluster', async () => {
    const again = await eksToken(request);
    expect(again).toBe(await eksToken({ ...request }));
    expect(await eksToken({ ...request, clusterName: 'other' })).not.toBe(again);
  });
});

describe('EksTokenSource', () => {
  function aSource(expiration?: Date) {
    const clock = { now: new Date('2026-01-02T03:00:00Z') };
    const calls = { count: 0 };
    const source = new EksTokenSource({
      clusterName: 'prod-cluster',
      region: 'eu-west-1',
      credentials: async () => {
        calls.count += 1;
        return { ...credentials, ...(expiration ? { expiration } : {}) };
      },
      now: () => clock.now,
    });
    const advance = (ms: number) => {
      clock.now = new Date(clock.now.getTime() + ms);
    };
    return { source, calls, advance };
  }

  it('reuses a token for under 14 minutes, then signs a new one', async () => {
    const { source, calls, advance } = aSource();
    const first = await source.token();
    advance(12 * 60_000);
    expect(await source.token()).toBe(first);
    expect(calls.count).toBe(1);
    advance(60_000 + 1);
    const second = await source.token();
    expect(second).not.toBe(first);
    expect(decode(second).searchParams.get('X-Amz-Date')).toBe('20260102T031300Z');
    expect(calls.count).toBe(2);
  });

  it('signs again before credentials that expire sooner run out', async () => {
    const { source, calls, advance } = aSource(new Date('2026-01-02T03:05:00Z'));
    await source.token();
    advance(3 * 60_000);
    await source.token();
    expect(calls.count).toBe(1);
    advance(60_000 + 1);
    await source.token();
    expect(calls.count).toBe(2);
  });

  it('signs once for concurrent callers', async () => {
    const { source, calls } = aSource();
    const tokens = await Promise.all([source.token(), source.token(), source.token()]);
    expect(new Set(tokens).size).toBe(1);
    expect(calls.count).toBe(1);
  });

  it('keeps the token out of what util.inspect shows', async () => {
    const { source } = aSource();
    const token = await source.token();
    const { inspect } = await import('node:util');
    expect(inspect(source, { depth: 10, showHidden: true })).not.toContain(
      token.slice(EKS_TOKEN_PREFIX.length, 40),
    );
  });

  it('fails with a retryable EksTokenError when there are no credentials', async () => {
    const source = new EksTokenSource({
      clusterName: 'c',
      region: 'eu-west-1',
      credentials: async () => {
        throw new Error('Could not load credentials from any providers');
      },
    });
    const error = await source.token().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EksTokenError);
    expect(error).toMatchObject({
      retryable: true,
      message: 'making an EKS token for cluster c: no AWS credentials',
    });
  });
});
