#!/usr/bin/env node
// The everynode command: runs the TypeScript CLI through tsx, so no build step is needed. Signals
// are passed on to the CLI, so `kill <pid>` of this wrapper stops `everynode run` cleanly.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const child = spawn(
  process.execPath,
  ['--import', 'tsx', join(root, 'lib/cli/main.ts'), ...process.argv.slice(2)],
  { stdio: 'inherit' },
);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => child.kill(signal));
}
child.on('exit', (code, signal) => {
  process.exit(code ?? (signal ? 128 + 1 : 1));
});
