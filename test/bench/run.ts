/**
 * `npm run bench -- NAME [options]`: runs the benchmark NAME, a script in test/bench, with the
 * options after its name (as if started as `tsx test/bench/<script> [options]`).
 */
import { fileURLToPath } from 'node:url';

// The AWS SDK warns on every start that its releases after January 2027 need Node 22; the lockfile
// pins an SDK that supports Node 20, so it is noise in the benchmarks' output, as in the CLI's
// (lib/cli/main.ts). Worker threads started later get the variable with the environment.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** Benchmark name → its script, relative to this file. */
const benchmarks: Readonly<Record<string, string>> = {
  rollout: './rollout.ts',
  'node-join': './node-join.ts',
  'rolling-update': './rolling-update.ts',
  'node-join-e2e': './node-join-e2e.ts',
  'sim-throughput': './sim-throughput.ts',
  'cold-start': './cold-start.ts',
  'relay-handover': './relay-handover.ts',
  'relay-memory': './relay-memory.ts',
  'relay-chain': './relay-chain.ts',
  'node-ready': './node-ready.ts',
  'api-outage': './api-outage.ts',
  'bad-rollout': './bad-rollout.ts',
  'package-install': './package-install.ts',
};

const [name, ...rest] = process.argv.slice(2);
const script = name === undefined ? undefined : benchmarks[name];
if (script === undefined) {
  process.stderr.write(
    `Usage: npm run bench -- NAME [options]\nBenchmarks: ${Object.keys(benchmarks).join(', ')}\n`,
  );
  process.exit(2);
}
process.argv = [process.argv[0] ?? 'node', fileURLToPath(new URL(script, import.meta.url)), ...rest];
await import(script);
