import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { functionBundles, synthesizeApp, TEST_APP_CONTEXT } from '../support/aws/synthesized-app.ts';

/**
 * Runs the real `npx cdk synth` (esbuild bundling included) offline, as an operator would; the
 * assembly is shared with the offline deployment tests (test/deployment) through the synth cache.
 */
describe('npx cdk synth', () => {
  it('synthesizes offline with real bundles, the reconcile bundle within 2 MB', async () => {
    const sizes: Record<string, number> = {};
    for (const bundle of functionBundles(await synthesizeApp(TEST_APP_CONTEXT))) {
      sizes[bundle.name] = (await stat(join(bundle.dir, 'index.mjs'))).size;
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
