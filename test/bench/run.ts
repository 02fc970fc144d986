/**
 * `npm run bench -- NAME [options]`: runs the benchmark NAME, a script in test/bench, with the
 * options after its name (as if started as `tsx test/bench/<script> [options]`).
 */
import { fileURLToPath } from 'node:url';

/** Benchmark name → its script, relative to this file. */
const benchmarks: Readonly<Record<string, string>> = {
  rollout: './rollout.ts',
  'node-join': './node-join.ts',
  'rolling-update': './rolling-update.ts',
  'node-join-e2e': './node-join-e2e.ts',
  'sim-throughput': './sim-throughput.ts',
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
