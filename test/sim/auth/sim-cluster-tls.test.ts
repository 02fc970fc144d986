/**
 * `startSimCluster({ tls: true })`: HTTPS with a CA made at start, a kubeconfig that trusts it and
 * skips no verification, and every client of ours (kubectl, client-node, the KubePort) verifying
 * the server with it; a client that does not trust the CA is refused.
 */
import { get } from 'node:https';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import {
  connectionFromKubeConfig,
  loadKubeConfig,
} from '../../../lib/kube/connection/kubeconfig-connection.ts';
import { createKubePort } from '../../../lib/kube/operations/create-kube-port.ts';
import { RequestBudget } from '../../../lib/kube/requests/request-budget.ts';
import { RequestCounter } from '../../../lib/kube/requests/request-counter.ts';
import { type SimCluster, startSimCluster } from '../../../lib/sim/start-sim-cluster.ts';
import { findKubectl, kubectlFor } from '../../support/kubectl-harness.ts';

type Kubeconfig = { clusters: { cluster: Record<string, unknown> }[]; users: { user: { token: string } }[] };

let cluster: SimCluster;
beforeAll(async () => {
  cluster = await startSimCluster({ tls: true, nodes: 2, timing: { timeScale: 0.001 } });
});
afterAll(() => cluster.stop());

/** GET `path` with Node's https client trusting `ca`; resolves to the status code. */
function getStatus(path: string, ca: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(`${cluster.url}${path}`, { ca }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject);
  });
}

describe('a simulated cluster with tls', () => {
  it('serves https, and its kubeconfig carries the CA and never skips verification', () => {
    expect(cluster.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const config = parse(cluster.kubeconfig) as Kubeconfig;
    expect(config.clusters[0]?.cluster).toEqual({
      server: cluster.url,
      'certificate-authority-data': Buffer.from(cluster.caCertificate ?? '').toString('base64'),
    });
  });

  it('refuses a client that does not trust its CA, and answers one that does', async () => {
    const refused = await fetch(`${cluster.url}/version`).catch((error: Error) => error);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).cause).toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    expect(await getStatus('/version', cluster.caCertificate ?? '')).toBe(200);
  });

  it('is listed by client-node with the kubeconfig', async () => {
    const config = new KubeConfig();
    config.loadFromString(cluster.kubeconfig);
    const nodes = await config.makeApiClient(CoreV1Api).listNode();
    expect(nodes.items.map((n) => n.metadata?.name)).toEqual(['worker-1', 'worker-ssd']);
  });

  it('is listed and watched by our KubePort through the kubeconfig connection', async () => {
    const port = createKubePort({
      connection: connectionFromKubeConfig(loadKubeConfig({ yaml: cluster.kubeconfig })),
      budget: new RequestBudget({ requestsPerSecond: 100, burst: 100 }),
      counter: new RequestCounter(),
    });
    const listed = await port.listNodes();
    expect(listed.items.map((n) => n.metadata?.name)).toEqual(['worker-1', 'worker-ssd']);
    const controller = new AbortController();
    cluster.nodes.add('late-node');
    let added: string | undefined;
    for await (const event of port.watch('nodes', {
      resourceVersion: listed.resourceVersion,
      timeoutSeconds: 5,
      signal: controller.signal,
    })) {
      if (event.type !== 'ADDED') continue;
      added = event.object.metadata?.name;
      controller.abort();
    }
    expect(added).toBe('late-node');
    cluster.nodes.remove('late-node');
  });

  const kubectl = findKubectl();
  it.runIf(kubectl)('is listed by kubectl with the kubeconfig, which verifies the server', async () => {
    const run = kubectlFor(kubectl ?? 'kubectl', cluster);
    const result = await run(['get', 'nodes', '-o', 'name']);
    expect(result).toMatchObject({ code: 0, stdout: 'node/worker-1\nnode/worker-ssd\n' });
  });

  it.runIf(kubectl)('is refused by kubectl with a kubeconfig that lacks the CA', async () => {
    const config = parse(cluster.kubeconfig) as Kubeconfig;
    const { 'certificate-authority-data': _ca, ...withoutCa } = config.clusters[0]?.cluster ?? {};
    const unverified = stringify({ ...config, clusters: [{ ...config.clusters[0], cluster: withoutCa }] });
    const result = await kubectlFor(kubectl ?? 'kubectl', { kubeconfig: unverified })(['get', 'nodes']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('certificate signed by unknown authority');
  });
});
