/**
 * A tiny real HTTP server standing in for an API server in the adapter tests: it answers every
 * request with the answer the test set, records what it received, and counts TCP connections.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach } from 'vitest';

/** What the server answers. `lines` streams a watch: one JSON line each. */
export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  lines?: unknown[];
}

/** A request as the server received it. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A started tiny server. */
export interface TinyApiServer {
  url: string;
  answer: Answer | ((request: ReceivedRequest) => Answer);
  requests: ReceivedRequest[];
  connections: number;
  close(): Promise<void>;
}

/** A Status body as the API server sends it. */
export function statusBody(code: number, reason: string, message: string, details?: object) {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    code,
    details,
  };
}

function send(res: http.ServerResponse, answer: Answer): void {
  res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
  if (answer.lines) {
    for (const line of answer.lines) res.write(`${JSON.stringify(line)}\n`);
    res.end();
    return;
  }
  res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
}

/** Starts a server on 127.0.0.1 and a free port, answering 200 `{}` until told otherwise. */
export async function startTinyApiServer(): Promise<TinyApiServer> {
  const server = unstartedServer();
  await listen(server);
  return server;
}

/**
 * The server every test of a file talks to: started in `beforeAll`, closed in `afterAll`, and
 * before each test back to answering 200 `{}` with no requests recorded. Its `url` is set once
 * `beforeAll` ran.
 */
export function useTinyApiServer(): TinyApiServer {
  const server = unstartedServer();
  beforeAll(() => listen(server));
  afterAll(() => server.close());
  beforeEach(() => {
    server.requests.length = 0;
    server.answer = { status: 200, body: {} };
  });
  return server;
}

function unstartedServer(): TinyApiServer {
  return {
    url: '',
    answer: { status: 200, body: {} },
    requests: [],
    connections: 0,
    close: async () => {},
  };
}

/** Makes `state` a listening server: sets its url and close, then answers and counts into it. */
async function listen(state: TinyApiServer): Promise<void> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      state.requests.push(received);
      send(res, typeof state.answer === 'function' ? state.answer(received) : state.answer);
    });
  });
  server.on('connection', () => {
    state.connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  state.url = `http://127.0.0.1:${port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

/** The last request `server` received, with its path and query parsed. */
export function lastRequestOf(server: TinyApiServer) {
  const request = server.requests.at(-1);
  if (!request) throw new Error('the server received no request');
  const url = new URL(request.url, server.url);
  return { ...request, query: url.searchParams, path: url.pathname };
}
