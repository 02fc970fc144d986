#!/usr/bin/env node
// The everynode command: runs the TypeScript CLI in this very process through tsx's in-process
// loader, so no build step is needed and there is no child to outlive it: `kill -9 <pid>` stops
// everything, and signals reach the CLI's own handlers (lib/cli/stop-signal.ts).
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

// The repository's tsconfig, wherever the command is started from.
register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
await import('../lib/cli/main.ts');
