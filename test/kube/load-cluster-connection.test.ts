import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FunctionConfigError } from '../../lib/config/function-config-error.ts';
import { loadClusterConnection } from '../../lib/kube/connection/load-cluster-connection.ts';
import { kubeconfigFor } from './tiny-kube-port.ts';

const pem = '-----BEGIN CERTIFICATE-----\nMIIBdummy\n-----END CERTIFICATE-----';

describe('loadClusterConnection', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'everynode-load-connection-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));
  afterEach(() => {
    delete process.env.EVERYNODE_EKS_ONLY;
  });

  it('connects to an EKS endpoint with in-process tokens', async () => {
    const connection = await loadClusterConnection({
      type: 'eks',
      name: 'prod',
      endpoint: 'https://eks.example:443',
      ca: Buffer.from(pem).toString('base64'),
      region: 'us-east-1',
    });
    expect(connection).toMatchObject({
      server: 'https://eks.example:443',
      description: 'EKS endpoint https://eks.example:443',
    });
  });

  it('loads the kubeconfig support on demand for a kubeconfig', async () => {
    const path = join(dir, 'kubeconfig');
    await writeFile(path, kubeconfigFor('http://127.0.0.1:1'));
    const connection = await loadClusterConnection({ type: 'kubeconfig', path });
    expect(connection.server).toBe('http://127.0.0.1:1');
    await expect(connection.authHeaders()).resolves.toEqual({ Authorization: 'Bearer test-token' });
  });

  it('refuses a kubeconfig where it is built for EKS only (the Lambda bundles)', async () => {
    process.env.EVERYNODE_EKS_ONLY = 'true';
    const loading = loadClusterConnection({ type: 'kubeconfig', path: join(dir, 'kubeconfig') });
    await expect(loading).rejects.toThrow(FunctionConfigError);
    await expect(loading).rejects.toThrow(/EKS only, and EVERYNODE_CLUSTER_ENDPOINT is not set/);
  });
});
