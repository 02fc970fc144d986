import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { synthesizeApp, TEST_APP_CONTEXT } from '../support/aws/synthesized-app.ts';

/**
 * Runs the real `npx cdk synth` (esbuild bundling included) offline, as an operator would; the
 * assembly is shared with the offline deployment tests (test/deployment) through the synth cache.
 */
describe('npx cdk synth', () => {
  it('synthesizes offline with real bundles, the reconcile bundle within 2 MB', async () => {
    const { outDir, template } = await synthesizeApp(TEST_APP_CONTEXT);
    const sizes: Record<string, number> = {};
    for (const [id, resource] of Object.entries(template.Resources)) {
      const asset = resource.Metadata?.['aws:asset:path'];
      if (
        resource.Type !== 'AWS::Lambda::Function' ||
        typeof asset !== 'string' ||
        !id.startsWith('Functions')
      )
        continue;
      sizes[id.replace(/^Functions/, '').replace(/[0-9A-F]{8}$/, '')] = (
        await stat(join(outDir, asset, 'index.mjs'))
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
