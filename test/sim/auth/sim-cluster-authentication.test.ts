/**
 * `startSimCluster` with authentication: a token file (`--token-auth-file`) and EKS tokens, the
 * generated admin token in its kubeconfig; without options every request is still accepted.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { connectionFromEks } from '../../../lib/kube/connection/eks-connection.ts';
import { EksTokenSource } from '../../../lib/kube/connection/eks-token.ts';
import { UnauthorizedError } from '../../../lib/kube/errors/kube-api-errors.ts';
import { createKubePort } from '../../../lib/kube/operations/create-kube-port.ts';
import { RequestBudget } from '../../../lib/kube/requests/request-budget.ts';
import { RequestCounter } from '../../../lib/kube/requests/request-counter.ts';
import type { EksCredential } from '../../../lib/sim/auth/eks-token-verifier.ts';
import { TokenFileError } from '../../../lib/sim/auth/token-file.ts';
import {
  type SimCluster,
  type SimClusterOptions,
  startSimCluster,
} from '../../../lib/sim/start-sim-cluster.ts';
import { findKubectl, kubectlFor } from '../../support/kubectl-harness.ts';

type Kubeconfig = { clusters: { cluster: Record<string, unknown> }[]; users: { user: { token: string } }[] };

const dir = mkdtempSync(join(tmpdir(), 'everynode-sim-auth-'));
const clusters: SimCluster[] = [];
afterAll(async () => {
  await Promise.all(clusters.map((c) => c.stop()));
  rmSync(dir, { recursive: true, force: true });
});

async function start(options: SimClusterOptions): Promise<SimCluster> {
  const cluster = await startSimCluster({ nodes: 1, timing: { timeScale: 0.001 }, ...options });
  clusters.push(cluster);
  return cluster;
}

/** The status of a node list with `token` (none when undefined), trusting the cluster's CA when it has one. */
function statusOf(cluster: SimCluster, token?: string): Promise<number> {
  const headers = token === undefined ? {} : { authorization: `Bearer ${token}` };
  const get = cluster.caCertificate ? httpsGet : httpGet;
  return new Promise((resolve, reject) => {
    get(`${cluster.url}/api/v1/nodes`, { headers, ca: cluster.caCertificate }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject);
  });
}

const kubectl = findKubectl();

describe('a simulated cluster with a token file, over TLS', () => {
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(tokenFile, 'alice-token,alice,1001,"dev,ops"\n');
  // TLS because kubectl sends a kubeconfig's credentials only over TLS (client-go clientcmd
  // DirectClientConfig.ClientConfig applies the user's auth info only when IsConfigTransportTLS).
  const started = start({ tls: true, tokenAuthFile: tokenFile, kubeconfigPath: join(dir, 'kubeconfig') });

  it('writes a kubeconfig with a generated admin token, which the server accepts', async () => {
    const cluster = await started;
    const token = (parse(cluster.kubeconfig) as Kubeconfig).users[0]?.user.token ?? '';
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(readFileSync(join(dir, 'kubeconfig'), 'utf8')).toBe(cluster.kubeconfig);
    expect(await statusOf(cluster, token)).toBe(200);
  });

  it.each([
    { name: 'a token of the file', token: 'alice-token', status: 200 },
    { name: 'no token (anonymous, which the open authorizer allows)', token: undefined, status: 200 },
    { name: 'a token of no one', token: 'sim-token', status: 401 },
  ])('answers $name with $status', async ({ token, status }) => {
    expect(await statusOf(await started, token)).toBe(status);
  });

  it.runIf(kubectl)(
    'lets kubectl in with the kubeconfig, and tells it Unauthorized for an unknown token',
    async () => {
      const run = kubectlFor(kubectl ?? 'kubectl', await started);
      expect(await run(['get', 'nodes', '-o', 'name'])).toMatchObject({ code: 0, stdout: 'node/worker-1\n' });
      const refused = await run(['--token', 'mallory', 'get', 'nodes']);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('You must be logged in to the server (Unauthorized)');
    },
  );

  it('does not start when the token file cannot be read', async () => {
    await expect(startSimCluster({ tokenAuthFile: join(dir, 'missing.csv') })).rejects.toThrow(
      TokenFileError,
    );
  });
});

describe('a simulated cluster with EKS tokens over TLS', () => {
  const reconcile: EksCredential = {
    accessKeyId: 'ASIARECONCILE',
    secretAccessKey: 'reconcile-secret',
    sessionToken: 'reconcile-session',
    arn: 'arn:aws:sts::111122223333:assumed-role/everynode-reconcile/fn',
  };
  const started = start({
    tls: true,
    eks: {
      clusterName: 'prod',
      credentials: [reconcile],
      accessEntries: [
        { principalArn: 'arn:aws:iam::111122223333:role/everynode-reconcile', groups: ['everynode'] },
      ],
    },
  });

  /** The KubePort the functions build on AWS: the EKS endpoint and CA, tokens from these credentials. */
  async function eksPort(credential: EksCredential, clusterName = 'prod') {
    const cluster = await started;
    const tokens = new EksTokenSource({
      clusterName,
      region: 'eu-west-1',
      credentials: async () => credential,
    });
    return createKubePort({
      connection: connectionFromEks({ endpoint: cluster.url, ca: cluster.caCertificate ?? '', tokens }),
      budget: new RequestBudget({ requestsPerSecond: 100, burst: 100 }),
      counter: new RequestCounter(),
    });
  }

  it('serves the functions’ KubePort, authenticated by its EKS token', async () => {
    const nodes = await (await eksPort(reconcile)).listNodes();
    expect(nodes.items.map((n) => n.metadata?.name)).toEqual(['worker-1']);
  });

  it.each([
    {
      name: 'a wrong secret key',
      credential: { ...reconcile, secretAccessKey: 'wrong' },
      clusterName: 'prod',
    },
    { name: 'a token for another cluster', credential: reconcile, clusterName: 'staging' },
  ])('refuses the KubePort with $name as Unauthorized', async ({ credential, clusterName }) => {
    const port = await eksPort(credential, clusterName);
    await expect(port.listNodes()).rejects.toThrow(UnauthorizedError);
  });

  it('still lets the kubeconfig’s administrator in', async () => {
    const config = new KubeConfig();
    config.loadFromString((await started).kubeconfig);
    expect((await config.makeApiClient(CoreV1Api).listNode()).items).toHaveLength(1);
  });
});

describe('a simulated cluster without authentication options', () => {
  const started = start({});

  it('writes the kubeconfig it always wrote: http, no verification, the sim-token user', async () => {
    const cluster = await started;
    expect(cluster.url).toMatch(/^http:\/\//);
    expect(cluster.caCertificate).toBeUndefined();
    const config = parse(cluster.kubeconfig) as Kubeconfig;
    expect(config.clusters[0]?.cluster).toEqual({ server: cluster.url, 'insecure-skip-tls-verify': true });
    expect(config.users[0]?.user).toEqual({ token: 'sim-token' });
  });

  it.each([
    { name: 'any token', token: 'whatever' },
    { name: 'no token', token: undefined },
  ])('accepts $name', async ({ token }) => {
    expect(await statusOf(await started, token)).toBe(200);
  });
});
