import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { writeKubeconfig } from '../../lib/sim/kubeconfig.ts';

describe('writeKubeconfig', () => {
  it('makes the missing folders and writes the file readable by its owner only', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'everynode-kc-')), 'not', 'yet', 'config');
    await writeKubeconfig(path, 'http://127.0.0.1:6443');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const config = parse(readFileSync(path, 'utf8')) as { clusters: { cluster: { server: string } }[] };
    expect(config.clusters[0]?.cluster.server).toBe('http://127.0.0.1:6443');
  });
});
