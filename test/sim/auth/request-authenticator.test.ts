import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eksToken } from '../../../lib/kube/connection/eks-token.ts';
import { createApiServer } from '../../../lib/sim/apiserver/api-server.ts';
import type { EksCredential } from '../../../lib/sim/auth/eks-token-verifier.ts';
import type { RequestAttributes } from '../../../lib/sim/auth/request-attributes.ts';
import { bearerToken, createRequestAuthenticator } from '../../../lib/sim/auth/request-authenticator.ts';
import { parseTokenFile } from '../../../lib/sim/auth/token-file.ts';
import type { UserInfo } from '../../../lib/sim/auth/user-info.ts';
import { ClusterStore } from '../../../lib/sim/storage/store.ts';

const signingDate = new Date('2026-05-06T07:08:09Z');
let now = signingDate;
const reconcile: EksCredential = {
  accessKeyId: 'ASIARECONCILE',
  secretAccessKey: 'reconcile-secret',
  sessionToken: 'reconcile-session',
  arn: 'arn:aws:sts::111122223333:assumed-role/everynode-reconcile/fn',
};
const stranger: EksCredential = {
  accessKeyId: 'AKIASTRANGER',
  secretAccessKey: 'stranger-secret',
  arn: 'arn:aws:iam::111122223333:user/stranger',
};
const tokens = parseTokenFile(
  'alice-token,alice,1001,"dev,ops"\nbob-token,bob,1002,system:authenticated\n',
  'tokens.csv',
);

/** Who the authorizer was asked about, per request: the authenticated user as the server hands it on. */
const asked: UserInfo[] = [];
let url = '';
let close: () => Promise<void> = async () => {};

beforeAll(async () => {
  const server = createApiServer(new ClusterStore(), {
    access: {
      authenticate: createRequestAuthenticator({
        tokens,
        eks: {
          clusterName: 'prod',
          credentials: [reconcile, stranger],
          accessEntries: [
            { principalArn: 'arn:aws:iam::111122223333:role/everynode-reconcile', groups: ['everynode'] },
          ],
          now: () => now,
        },
      }),
      authorize: (attributes: Readonly<RequestAttributes>) => {
        asked.push(attributes.user);
        return { allowed: true };
      },
    },
  });
  url = await server.listen();
  close = () => server.close();
});
afterAll(() => close());

const tokenOf = (credential: EksCredential, clusterName = 'prod') =>
  eksToken({ clusterName, region: 'us-east-1', credentials: credential, signingDate });

describe('authentication of the simulated API server', () => {
  it.each([
    {
      name: 'a token of the token file is its user, in system:authenticated',
      authorization: async () => 'Bearer alice-token',
      user: { name: 'alice', uid: '1001', groups: ['dev', 'ops', 'system:authenticated'] },
    },
    {
      name: 'the scheme in any case',
      authorization: async () => 'bearer alice-token',
      user: { name: 'alice', uid: '1001', groups: ['dev', 'ops', 'system:authenticated'] },
    },
    {
      name: 'a user already in system:authenticated is not put in it twice',
      authorization: async () => 'Bearer bob-token',
      user: { name: 'bob', uid: '1002', groups: ['system:authenticated'] },
    },
    {
      name: 'no Authorization header is anonymous',
      authorization: async () => undefined,
      user: { name: 'system:anonymous', groups: ['system:unauthenticated'] },
    },
    {
      name: 'another scheme is anonymous',
      authorization: async () => 'Basic YWxpY2U6cHc=',
      user: { name: 'system:anonymous', groups: ['system:unauthenticated'] },
    },
    {
      name: 'an EKS token of an access entry is its role session, in the entry groups',
      authorization: async () => `Bearer ${await tokenOf(reconcile)}`,
      user: {
        name: 'arn:aws:sts::111122223333:assumed-role/everynode-reconcile/fn',
        groups: ['everynode', 'system:authenticated'],
      },
    },
  ])('$name', async ({ authorization, user }) => {
    asked.length = 0;
    const header = await authorization();
    const response = await fetch(`${url}/api/v1/nodes`, {
      headers: header === undefined ? {} : { authorization: header },
    });
    expect(response.status).toBe(200);
    expect(asked).toEqual([user]);
  });

  it.each([
    { name: 'a token nobody issued', authorization: async () => 'Bearer mallory-token' },
    {
      name: 'an EKS token for another cluster',
      authorization: async () => `Bearer ${await tokenOf(reconcile, 'dev')}`,
    },
    {
      name: 'an EKS token of a principal without access entry',
      authorization: async () => `Bearer ${await tokenOf(stranger)}`,
    },
    {
      name: 'a tampered EKS token',
      authorization: async () => `Bearer ${(await tokenOf(reconcile)).slice(0, -2)}AA`,
    },
  ])('answers 401 to $name, before any authorization', async ({ authorization }) => {
    asked.length = 0;
    const response = await fetch(`${url}/api/v1/nodes`, {
      headers: { authorization: await authorization() },
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Unauthorized',
      reason: 'Unauthorized',
      code: 401,
    });
    expect(asked).toEqual([]);
  });

  it('answers 401 to an EKS token past its 15 minutes', async () => {
    const token = await tokenOf(reconcile);
    now = new Date(signingDate.getTime() + 15 * 60_000 + 1000);
    try {
      const response = await fetch(`${url}/api/v1/nodes`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(401);
    } finally {
      now = signingDate;
    }
  });
});

describe('bearerToken', () => {
  it.each([
    { header: undefined, token: undefined },
    { header: 'Bearer abc', token: 'abc' },
    { header: '  BEARER abc  ', token: 'abc' },
    { header: 'Bearer abc def', token: 'abc' },
    { header: 'Bearer', token: undefined },
    { header: 'Bearer  abc', token: undefined },
    { header: 'Basic abc', token: undefined },
  ])('reads $header as $token', ({ header, token }) => {
    expect(bearerToken({ headers: header === undefined ? {} : { authorization: header } })).toBe(token);
  });
});
