import { describe, expect, it } from 'vitest';
import { EKS_TOKEN_PREFIX, eksToken } from '../../../lib/kube/connection/eks-token.ts';
import { EksTokenRejected } from '../../../lib/sim/auth/eks-access-entries.ts';
import { type EksCredential, verifyEksToken } from '../../../lib/sim/auth/eks-token-verifier.ts';

const signingDate = new Date('2026-05-06T07:08:09Z');
const roleSession: EksCredential = {
  accessKeyId: 'ASIAROLESESSION',
  secretAccessKey: 'role/secret+key=1',
  sessionToken: 'session/token+with=chars',
  arn: 'arn:aws:sts::111122223333:assumed-role/everynode-reconcile/reconcile-fn',
};
const user: EksCredential = {
  accessKeyId: 'AKIAUSER',
  secretAccessKey: 'user-secret',
  arn: 'arn:aws:iam::111122223333:user/alice',
};
const options = { clusterName: 'prod', credentials: [roleSession, user], now: () => signingDate };

/** A token as the functions make it (lib/kube/connection/eks-token.ts), signed by `credential`. */
function tokenOf(credential: EksCredential, overrides: { clusterName?: string; region?: string } = {}) {
  return eksToken({
    clusterName: overrides.clusterName ?? 'prod',
    region: overrides.region ?? 'eu-west-1',
    credentials: credential,
    signingDate,
  });
}

/** `token` with its presigned URL changed by `change`. */
function tampered(token: string, change: (url: URL) => void): string {
  const url = new URL(Buffer.from(token.slice(EKS_TOKEN_PREFIX.length), 'base64url').toString('utf8'));
  change(url);
  return EKS_TOKEN_PREFIX + Buffer.from(url.toString(), 'utf8').toString('base64url');
}

const minutes = (n: number) => new Date(signingDate.getTime() + n * 60_000);

describe('verifyEksToken', () => {
  it.each([
    { name: 'a role session token at its signing time', credential: roleSession, now: signingDate },
    { name: 'an IAM user token', credential: user, now: signingDate },
    {
      name: 'a token 15 minutes after X-Amz-Date, although X-Amz-Expires says 60 s',
      credential: roleSession,
      now: minutes(15),
    },
  ])('accepts $name, answering who signed it', async ({ credential, now }) => {
    const identity = await verifyEksToken(await tokenOf(credential), { ...options, now: () => now });
    expect(identity).toEqual({ arn: credential.arn, accessKeyId: credential.accessKeyId });
  });

  it('accepts a token whose URL is only re-encoded (the tampering below changes nothing else)', async () => {
    const token = tampered(await tokenOf(user), () => undefined);
    expect(await verifyEksToken(token, options)).toEqual({ arn: user.arn, accessKeyId: user.accessKeyId });
  });

  it.each([
    {
      name: 'a tampered signature',
      token: async () =>
        tampered(await tokenOf(user), (url) => {
          const signature = url.searchParams.get('X-Amz-Signature') ?? '';
          url.searchParams.set(
            'X-Amz-Signature',
            `${signature.slice(0, -1)}${signature.endsWith('0') ? 1 : 0}`,
          );
        }),
      message: 'the request signature does not match',
    },
    {
      name: 'a token for another cluster',
      token: () => tokenOf(user, { clusterName: 'staging' }),
      message: 'the request signature does not match',
    },
    {
      name: 'a token signed with another secret key',
      token: () => tokenOf({ ...user, secretAccessKey: 'guessed' }),
      message: 'the request signature does not match',
    },
    {
      name: 'a token of an unknown access key',
      token: () => tokenOf({ ...user, accessKeyId: 'AKIAUNKNOWN' }),
      message: 'the security token included in the request is invalid (access key AKIAUNKNOWN)',
    },
    {
      name: 'a session key without its session token',
      token: () => tokenOf({ ...roleSession, sessionToken: undefined }),
      message: 'the security token included in the request is invalid (access key ASIAROLESESSION)',
    },
    {
      name: 'a token for another region than its STS host',
      token: async () => tampered(await tokenOf(user), (url) => (url.host = 'sts.us-west-2.amazonaws.com')),
      message: 'X-Amz-Credential is not scoped to the date, region and service',
    },
    {
      name: 'X-Amz-Expires over 15 minutes',
      token: async () => tampered(await tokenOf(user), (url) => url.searchParams.set('X-Amz-Expires', '901')),
      message: 'invalid X-Amz-Expires parameter in pre-signed URL: 901',
    },
    {
      name: 'an unsigned cluster header',
      token: async () =>
        tampered(await tokenOf(user), (url) => url.searchParams.set('X-Amz-SignedHeaders', 'host')),
      message: 'client did not sign the x-k8s-aws-id header',
    },
    {
      name: 'another action',
      token: async () => tampered(await tokenOf(user), (url) => url.searchParams.set('Action', 'AssumeRole')),
      message: 'unexpected action parameter in pre-signed URL',
    },
    {
      name: 'another algorithm',
      token: async () =>
        tampered(await tokenOf(user), (url) =>
          url.searchParams.set('X-Amz-Algorithm', 'AWS4-ECDSA-P256-SHA256'),
        ),
      message: 'X-Amz-Algorithm must be AWS4-HMAC-SHA256',
    },
    {
      name: 'a parameter STS tokens do not have',
      token: async () => tampered(await tokenOf(user), (url) => url.searchParams.append('Extra', '1')),
      message: 'non-whitelisted query parameter "Extra"',
    },
    {
      name: 'a parameter given twice in another case',
      token: async () =>
        tampered(await tokenOf(user), (url) => url.searchParams.append('action', 'GetCallerIdentity')),
      message: 'duplicate query parameter found: "action"',
    },
    {
      name: 'a URL to another host than STS',
      token: async () => tampered(await tokenOf(user), (url) => (url.host = 'sts.example.com')),
      message: 'unexpected hostname "sts.example.com" in pre-signed URL',
    },
    {
      name: 'a URL of another path',
      token: async () => tampered(await tokenOf(user), (url) => (url.pathname = '/x')),
      message: 'unexpected path in pre-signed URL',
    },
    {
      name: 'a token without the k8s-aws-v1. prefix',
      token: async () => (await tokenOf(user)).slice(EKS_TOKEN_PREFIX.length),
      message: 'token is missing expected "k8s-aws-v1." prefix',
    },
    { name: 'padded base64', token: async () => `${await tokenOf(user)}==`, message: 'illegal base64 data' },
  ])('rejects $name', async ({ token, message }) => {
    const error = await verifyEksToken(await token(), options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EksTokenRejected);
    expect((error as Error).message).toContain(message);
  });

  it.each([
    {
      name: '15 minutes and a second after X-Amz-Date',
      now: new Date(minutes(15).getTime() + 1000),
      message: 'X-Amz-Date parameter is expired (15 minute expiration)',
    },
    { name: 'more than 15 minutes before X-Amz-Date', now: minutes(-16), message: 'is not yet current' },
  ])('rejects a token $name', async ({ now, message }) => {
    const error = await verifyEksToken(await tokenOf(user), { ...options, now: () => now }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EksTokenRejected);
    expect((error as Error).message).toContain(message);
  });
});
