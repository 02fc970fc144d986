import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { functionBundles, synthesizeApp, TEST_APP_CONTEXT } from '../support/aws/synthesized-app.ts';

/**
 * What the functions' bundles, as `npx cdk synth` makes them, leave out so that a cold start does
 * not load it (test/bench/cold-start.ts measures what it costs): client-node's whole model set,
 * its kubeconfig support (on AWS the cluster is reached through EKS only), and any AWS SDK client
 * from the Lambda runtime but EC2's, which the router loads on its first EC2 lookup, and Lambda's,
 * which the relay loads when it first invokes its successor.
 */
describe('the Lambda bundles', () => {
  it('leave out what init need not load', async () => {
    const runtimeImports: Record<string, { static: string[]; dynamic: string[] }> = {};
    for (const { name, dir } of functionBundles(await synthesizeApp(TEST_APP_CONTEXT))) {
      const code = await readFile(join(dir, 'index.mjs'), 'utf8');
      // A model client-node has and the pipeline never uses: present only with the whole set.
      expect(code, name).not.toContain('V1beta1DeviceClassSpec');
      // client-node's KubeConfig reads the in-cluster service account from here.
      expect(code, name).not.toContain('/var/run/secrets/kubernetes.io/serviceaccount');
      const specifiers = (pattern: RegExp) => [...code.matchAll(pattern)].map((m) => m[1] ?? '');
      runtimeImports[name] = {
        static: specifiers(/from\s*"(@aws-sdk\/[^"]+)"/g),
        dynamic: specifiers(/import\(\s*"(@aws-sdk\/[^"]+)"\s*\)/g),
      };
    }
    expect(runtimeImports).toEqual({
      Reconcile: { static: [], dynamic: [] },
      Relay: { static: [], dynamic: ['@aws-sdk/client-lambda'] },
      Router: { static: [], dynamic: ['@aws-sdk/client-ec2'] },
    });
  }, 300_000);
});
