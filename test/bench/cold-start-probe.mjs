// The child process of the cold-start benchmark (test/bench/cold-start.ts): imports the handler
// module named by argv[2] once, as the Lambda runtime does at init, and prints one JSON line: the
// import's duration and the moment it resolved (epoch milliseconds, comparable across processes).
import { pathToFileURL } from 'node:url';

const moduleUrl = pathToFileURL(process.argv[2] ?? '').href;
const started = performance.now();
const handlerModule = await import(moduleUrl);
const ready = performance.now();
if (typeof handlerModule.handler !== 'function') {
  process.stderr.write(`${moduleUrl} exports no handler function\n`);
  process.exit(1);
}
process.stdout.write(
  `${JSON.stringify({ initMs: ready - started, readyAt: performance.timeOrigin + ready })}\n`,
);
// Clients built at init may hold sockets or timers open; the measurement is done.
process.exit(0);
