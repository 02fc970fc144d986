/**
 * Worker threads of the benchmarks, and the request/reply protocol of those whose simulated cluster
 * runs in one (node-join-e2e, node-ready): the main thread sends the worker requests, each with an
 * id its reply carries back, and the worker says it is ready with the id 0 (its value: the API
 * server's URL). A `stop` request stops the worker: its reply is the last message.
 */
import { parentPort, type TransferListItem, Worker } from 'node:worker_threads';

/**
 * Starts the module `url` in a worker thread with `workerData`. Workers do not inherit tsx's loader
 * (Node 20): the worker registers it, runs `preamble` (statements, in an async function), then
 * loads the module.
 */
export function startTsxWorker(
  url: URL,
  workerData: unknown,
  transferList: readonly TransferListItem[] = [],
  preamble = '',
): Worker {
  const bootstrap = `import('tsx/esm/api').then(async (tsx) => { tsx.register(); ${preamble} return import(${JSON.stringify(url.href)}); });`;
  return new Worker(bootstrap, { eval: true, workerData, transferList: [...transferList] });
}

/** A request of the protocol, answered with the same id. */
export interface RpcRequest {
  readonly id: number;
  readonly cmd: string;
}

/** A request without its id (the union distributed, so each command keeps its fields). */
type Unnumbered<R> = R extends RpcRequest ? Omit<R, 'id'> : never;

/** Sends the worker a request; resolves with its reply. */
export type Ask<R extends RpcRequest> = <T>(request: Unnumbered<R>) => Promise<T>;

/** Starts the worker module `url` with `task`; resolves with a way to ask it things once it is ready. */
export function startRpcWorker<R extends RpcRequest>(url: URL, task: unknown): Promise<Ask<R>> {
  const worker = startTsxWorker(url, task);
  const waiting = new Map<number, (value: unknown) => void>();
  let nextId = 1;
  return new Promise((resolve, reject) => {
    worker.on('error', reject);
    worker.on('message', (m: { id: number; value: unknown }) => {
      if (m.id === 0) resolve(ask);
      waiting.get(m.id)?.(m.value);
      waiting.delete(m.id);
    });
    const ask: Ask<R> = (request) =>
      new Promise((done) => {
        const id = nextId++;
        waiting.set(id, done as (value: unknown) => void);
        worker.postMessage({ ...request, id });
      });
  });
}

/**
 * In the worker: answers each request but `stop` with what `answer` returns (or resolves with); at
 * `stop`, awaits `stop`, replies true and closes the port. Then says it is ready, with `ready`.
 */
export function serveRpc<R extends RpcRequest>(
  answer: (request: Exclude<R, { readonly cmd: 'stop' }>) => unknown,
  stop: () => Promise<void>,
  ready: unknown,
): void {
  parentPort?.on('message', async (request: R) => {
    const reply = (value: unknown) => parentPort?.postMessage({ id: request.id, value });
    if (request.cmd === 'stop') {
      await stop();
      reply(true);
      return parentPort?.close();
    }
    const value = answer(request as Exclude<R, { readonly cmd: 'stop' }>);
    if (value instanceof Promise) reply(await value);
    else reply(value);
  });
  parentPort?.postMessage({ id: 0, value: ready });
}
