import { defineConfig } from 'vitest/config';

/**
 * Test files that leave no module state behind run in one shared module graph per worker
 * (`isolate: false`): importing lib/ again for each of these files cost most of their time. That
 * includes the end-to-end files, which start processes but stop them in their own hooks. Files that
 * bundle, synthesize, stub modules or the environment, or change module state keep a fresh worker
 * each.
 */
const SHARED_MODULE_DIRS = [
  'core',
  'messages',
  'kube',
  'queue',
  'architecture',
  'sim',
  'relay',
  'reconcile',
  'router',
  'e2e',
];

export default defineConfig({
  test: {
    // The AWS SDK warns in every worker that its releases after January 2027 need Node 22; the
    // lockfile pins an SDK that supports Node 20, so the warning is noise (lib/cli/main.ts does the
    // same for the CLI). Set the variable to false to see it.
    env: {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED:
        process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ?? 'true',
    },
    exclude: ['test/bench/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two test files at a time on a 2-core machine: most of a test's time is spent waiting on the
    // processes it starts (API servers, kubectl, pipelines), so one file at a time (Vitest's
    // default of cores − 1) left a core idle and took the suite past the CI budget. Three at a time
    // ran the suite 18 % faster but made timing-sensitive tests fail under the load (a relay
    // hand-over, a watch-cache read), one or two in each of two runs.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: SHARED_MODULE_DIRS.map((dir) => `test/${dir}/**/*.test.ts`),
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'system',
          include: ['test/**/*.test.ts'],
          exclude: ['test/bench/**', 'node_modules/**', ...SHARED_MODULE_DIRS.map((dir) => `test/${dir}/**`)],
        },
      },
    ],
  },
});
