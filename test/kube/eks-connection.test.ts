import { describe, expect, it } from 'vitest';
import { pemOf } from '../../lib/kube/connection/eks-connection.ts';
import { EKS_TOKEN_PREFIX } from '../../lib/kube/connection/eks-token.ts';
import { connectionFromEnvironment } from '../../lib/kube/connection/environment-connection.ts';
import { KubeConfigError } from '../../lib/kube/connection/kubeconfig-connection.ts';
import { createKubePort } from '../../lib/kube/operations/create-kube-port.ts';
import { RequestCounter } from '../../lib/kube/requests/request-counter.ts';
import { useTinyApiServer } from './tiny-api-server.ts';

const pem = '-----BEGIN CERTIFICATE-----\nMIIBdummy\n-----END CERTIFICATE-----';
const credentials = async () => ({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' });

const server = useTinyApiServer();

describe('connectionFromEnvironment on AWS', () => {
  it('authenticates every request with an EKS token for the named cluster', async () => {
    const env = {
      CLUSTER_ENDPOINT: server.url,
      CLUSTER_NAME: 'prod',
      CLUSTER_CA: Buffer.from(pem).toString('base64'),
      AWS_REGION: 'us-east-2',
    };
    const connection = connectionFromEnvironment(env, credentials);
    expect(connection.description).toBe(`EKS endpoint ${server.url}`);
    server.answer = { status: 200, body: { items: [], metadata: { resourceVersion: '1' } } };
    const port = createKubePort({ connection, managedKind: 'apps/v1', counter: new RequestCounter() });
    await port.listNodes();
    const authorization = String(server.requests.at(-1)?.headers.authorization);
    expect(authorization.startsWith(`Bearer ${EKS_TOKEN_PREFIX}`)).toBe(true);
    const url = new URL(
      Buffer.from(authorization.slice(`Bearer ${EKS_TOKEN_PREFIX}`.length), 'base64url').toString(),
    );
    expect(url.host).toBe('sts.us-east-2.amazonaws.com');
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host;x-k8s-aws-id');
  });

  it.each([
    {
      name: 'no region',
      env: { CLUSTER_ENDPOINT: 'https://x', CLUSTER_NAME: 'c', CLUSTER_CA: pem },
      missing: /AWS_REGION/,
    },
    {
      name: 'no cluster name',
      env: { CLUSTER_ENDPOINT: 'https://x', CLUSTER_CA: pem, AWS_REGION: 'r' },
      missing: /CLUSTER_NAME/,
    },
    {
      name: 'no CA',
      env: { CLUSTER_ENDPOINT: 'https://x', CLUSTER_NAME: 'c', AWS_DEFAULT_REGION: 'r' },
      missing: /CLUSTER_CA/,
    },
  ])('refuses an environment with $name', ({ env, missing }) => {
    expect(() => connectionFromEnvironment(env, credentials)).toThrow(KubeConfigError);
    expect(() => connectionFromEnvironment(env, credentials)).toThrow(missing);
  });
});

describe('pemOf', () => {
  it.each([
    { name: 'PEM', ca: pem },
    { name: 'base64 of PEM (EKS certificateAuthority.data)', ca: Buffer.from(pem).toString('base64') },
    { name: 'PEM with surrounding space', ca: `\n${pem}\n` },
  ])('reads $name', ({ ca }) => {
    expect(pemOf(ca)).toBe(pem);
  });
});
