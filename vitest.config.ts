import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The AWS SDK warns in every worker that its releases after January 2027 need Node 22; the
    // lockfile pins an SDK that supports Node 20, so the warning is noise (lib/cli/main.ts does the
    // same for the CLI). Set the variable to false to see it.
    env: {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED:
        process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ?? 'true',
    },
    include: ['test/**/*.test.ts'],
    exclude: ['test/bench/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
