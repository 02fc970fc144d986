import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { kubeconfigFor, writeKubeconfig } from '../../lib/sim/kubeconfig.ts';

describe('writeKubeconfig', () => {
  it('makes the missing folders and writes the file readable by its owner only', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'everynode-kc-')), 'not', 'yet', 'config');
    await writeKubeconfig(path, 'http://127.0.0.1:6443');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const config = parse(readFileSync(path, 'utf8')) as { clusters: { cluster: { server: string } }[] };
    expect(config.clusters[0]?.cluster.server).toBe('http://127.0.0.1:6443');
  });
});

describe('kubeconfigFor', () => {
  const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
  it.each([
    {
      name: 'without a CA: no verification, the default token',
      url: 'http://127.0.0.1:6443',
      options: {},
      cluster: { server: 'http://127.0.0.1:6443', 'insecure-skip-tls-verify': true },
      user: { token: 'sim-token' },
    },
    {
      name: 'with a CA: its PEM in base64, verification on, the given token',
      url: 'https://127.0.0.1:6443',
      options: { caCertificate: pem, token: 'admin-token' },
      cluster: {
        server: 'https://127.0.0.1:6443',
        'certificate-authority-data': Buffer.from(pem).toString('base64'),
      },
      user: { token: 'admin-token' },
    },
  ])('$name', ({ url, options, cluster, user }) => {
    const config = parse(kubeconfigFor(url, options)) as {
      clusters: { cluster: unknown }[];
      users: { user: unknown }[];
    };
    expect(config.clusters[0]?.cluster).toEqual(cluster);
    expect(config.users[0]?.user).toEqual(user);
  });
});
