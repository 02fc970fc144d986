import { execFile } from 'node:child_process';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

interface TemplateJson {
  Resources: Record<
    string,
    { Type: string; Metadata?: Record<string, string>; Properties?: { Handler?: string } }
  >;
}

/** Runs the real `npx cdk synth` (esbuild bundling included) offline, as an operator would. */
describe('npx cdk synth', () => {
  it('synthesizes offline with real bundles, the reconcile bundle within 2 MB', async () => {
    const out = await mkdtemp(join(tmpdir(), 'cdk-out-'));
    await run('npx', ['cdk', 'synth', '--quiet', '--output', out, '-c', 'clusterName=ci-cluster'], {
      env: { ...process.env, CDK_DISABLE_VERSION_CHECK: '1', AWS_REGION: 'us-east-1' },
      timeout: 240_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    const template = JSON.parse(await readFile(join(out, 'Everynode.template.json'), 'utf8')) as TemplateJson;
    const sizes: Record<string, number> = {};
    for (const [id, resource] of Object.entries(template.Resources)) {
      const asset = resource.Metadata?.['aws:asset:path'];
      if (resource.Type !== 'AWS::Lambda::Function' || !asset || !id.startsWith('Functions')) continue;
      sizes[id.replace(/^Functions/, '').replace(/[0-9A-F]{8}$/, '')] = (
        await stat(join(out, asset, 'index.mjs'))
      ).size;
    }
    console.log(
      `bundle sizes (minified ESM): ${Object.entries(sizes)
        .map(([name, bytes]) => `${name} ${(bytes / 1024).toFixed(0)} KiB`)
        .join(', ')}`,
    );
    expect(Object.keys(sizes).sort()).toEqual(['Reconcile', 'Relay', 'Router']);
    expect(sizes.Reconcile).toBeLessThanOrEqual(2 * 1024 * 1024);
  }, 300_000);
});
