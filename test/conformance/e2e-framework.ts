/**
 * The few parts of upstream's e2e framework (test/e2e/framework) the DaemonSet conformance tests
 * use, over `everynode run` as a user runs it: one run for the describe block that asks for it
 * (started in `beforeAll`, its whole process group stopped in `afterAll`), a fresh namespace per
 * test (framework.Framework creates `daemonsets-xxxxx` before each test), and wait.PollImmediate.
 *
 * Every step a test takes — create, update, patch, delete, a status write, a node's labels — is the
 * real kubectl's; plain HTTP does what kubectl cannot express (watching from a resourceVersion,
 * DeleteCollection) and the reads behind the conditions upstream polls (its framework reads with
 * client-go too): a kubectl run costs about half a second of a loaded two-core machine, and the
 * conditions are looked at dozens of times per test. For the same reason the namespace is created
 * with its annotations in one run and not deleted after the test (the whole cluster goes with the
 * run at the end of the block).
 */
import { randomBytes } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { parse } from 'yaml';
import { findKubectl } from '../support/kubectl.ts';
import { type KubectlResult, kubectlFor } from '../support/kubectl-harness.ts';
import { type EverynodeRun, startEverynodeRun } from './everynode-run.ts';

/**
 * The simulated cluster runs ten times faster than a real one (pods start in 0.1 s, a 30 s grace
 * period lasts 3 s); upstream's durations, which are a real cluster's, are scaled by it below.
 */
export const TIME_SCALE = 0.1;
/** Upstream dsRetryTimeout (5 minutes) on the simulated cluster's time scale. */
export const DS_RETRY_TIMEOUT_MS = 5 * 60_000 * TIME_SCALE;
/**
 * Upstream's dsRetryPeriod is 1 s, 0.1 s on the time scale; a look every 0.25 s spares the CPU of a
 * loaded two-core machine and waits little longer.
 */
const POLL_PERIOD_MS = 250;
/** A conformance test's own limit: several waits of DS_RETRY_TIMEOUT_MS at most. */
export const IT_TIMEOUT_MS = 120_000;

/** What a test drives the cluster with. */
export interface Framework {
  /** The namespace of the running test (f.Namespace.Name). */
  readonly namespace: string;
  /** Runs kubectl against the cluster; resolves with its exit code and output. */
  kubectl(args: readonly string[], stdin?: string): Promise<KubectlResult>;
  /** Runs kubectl, expects exit code 0, and resolves with its stdout. */
  ok(args: readonly string[], stdin?: string): Promise<string>;
  /** Runs kubectl (which should print `-o json`), expects exit code 0, and parses its stdout. */
  json<T>(args: readonly string[], stdin?: string): Promise<T>;
  /** One plain HTTP request to the API server; resolves with its status and parsed JSON body. */
  http(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  /** A plain HTTP GET of `path` that must answer 200; resolves with the parsed body. */
  get<T>(path: string): Promise<T>;
  /** Watches `path` (`?watch=1&…`) until `until` accepts an event; rejects when the watch ends first. */
  watchUntil(path: string, until: (event: WatchEvent) => boolean, timeoutMs: number): Promise<void>;
}

/** One event of a watch. */
export interface WatchEvent {
  readonly type: string;
  readonly object: Record<string, unknown>;
}

/**
 * Polls `check` until it returns true (upstream wait.PollImmediate): anything else it returns says
 * what is not there yet, and is the message when time runs out. A check that throws fails at once,
 * as a condition function returning an error does.
 */
export async function poll(
  what: string,
  check: () => Promise<true | string>,
  timeoutMs = DS_RETRY_TIMEOUT_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const verdict = await check();
    if (verdict === true) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms ${what}: ${verdict}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_PERIOD_MS));
  }
}

interface Endpoint {
  readonly server: string;
  readonly token: string;
  /** PEM of the CA the server's certificate is signed by, when it serves HTTPS. */
  readonly ca?: string;
}

function endpointOf(kubeconfig: string): Endpoint {
  const config = parse(kubeconfig) as {
    clusters: Array<{ cluster: { server: string; 'certificate-authority-data'?: string } }>;
    users: Array<{ user: { token: string } }>;
  };
  const cluster = config.clusters[0]?.cluster;
  const caData = cluster?.['certificate-authority-data'];
  return {
    server: cluster?.server ?? '',
    token: config.users[0]?.user.token ?? '',
    ...(caData ? { ca: Buffer.from(caData, 'base64').toString('utf8') } : {}),
  };
}

/**
 * Sends one request as the kubeconfig's user, trusting its CA (fetch cannot be given a CA without
 * undici's Agent); resolves to the response, its body a stream, once its headers arrive.
 */
function send(
  endpoint: Endpoint,
  method: string,
  path: string,
  body?: unknown,
  signal?: AbortSignal,
): Promise<IncomingMessage> {
  const url = new URL(path, endpoint.server);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers = {
    Authorization: `Bearer ${endpoint.token}`,
    Accept: 'application/json',
    // A length, not chunks: as fetch sends a JSON body (a DELETE's DeleteOptions included).
    ...(payload === undefined
      ? {}
      : { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(payload)) }),
  };
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, headers, ...(endpoint.ca ? { ca: endpoint.ca } : {}), ...(signal ? { signal } : {}) },
      resolve,
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function http(endpoint: Endpoint, method: string, path: string, body?: unknown) {
  const response = await send(endpoint, method, path, body);
  let text = '';
  for await (const chunk of response) text += String(chunk);
  return { status: response.statusCode ?? 0, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

async function watchUntil(
  endpoint: Endpoint,
  path: string,
  until: (event: WatchEvent) => boolean,
  timeoutMs: number,
): Promise<void> {
  const response = await send(endpoint, 'GET', path, undefined, AbortSignal.timeout(timeoutMs));
  if (response.statusCode !== 200) {
    response.resume();
    throw new Error(`watch ${path}: HTTP ${response.statusCode}`);
  }
  const seen: string[] = [];
  let buffered = '';
  const decoder = new TextDecoder();
  for await (const chunk of response) {
    buffered += decoder.decode(chunk as Uint8Array, { stream: true });
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines.filter((l) => l.trim() !== '')) {
      const event = JSON.parse(line) as WatchEvent;
      seen.push(event.type);
      if (until(event)) {
        response.destroy();
        return;
      }
    }
  }
  throw new Error(`watch ${path} ended before the awaited event; saw ${seen.join(', ') || 'nothing'}`);
}

/** What the framework sets up for each test, and hooks run before and after it. */
export interface FrameworkHooks {
  readonly simNodes: number;
  /** Annotations of each test's namespace. */
  readonly namespaceAnnotations?: Readonly<Record<string, string>>;
  readonly beforeEach?: (f: Framework) => Promise<void>;
  readonly afterEach?: (f: Framework) => Promise<void>;
}

/** What the tests' Framework talks to: set once the run is up, and per test. */
interface Session {
  kubectl: Framework['kubectl'];
  endpoint: Endpoint;
  namespace: string;
}

/** The Framework over `session` (read at each call, so it follows the session as it changes). */
function frameworkOver(session: Session): Framework {
  const f: Framework = {
    get namespace() {
      return session.namespace;
    },
    kubectl: (args, stdin) => session.kubectl(args, stdin),
    ok: async (args, stdin) => {
      const result = await session.kubectl(args, stdin);
      expect(result, `kubectl ${args.join(' ')}`).toMatchObject({ code: 0 });
      return result.stdout;
    },
    json: async <T>(args: readonly string[], stdin?: string) => JSON.parse(await f.ok(args, stdin)) as T,
    http: (method, path, body) => http(session.endpoint, method, path, body),
    get: async <T>(path: string) => {
      const response = await http(session.endpoint, 'GET', path);
      if (response.status !== 200)
        throw new Error(`GET ${path}: ${response.status} ${JSON.stringify(response.body)}`);
      return response.body as T;
    },
    watchUntil: (path, until, timeoutMs) => watchUntil(session.endpoint, path, until, timeoutMs),
  };
  return f;
}

/**
 * Starts `everynode run` for the enclosing `describe` and gives each of its tests a fresh namespace
 * `daemonsets-xxxxx`; returns the handle the tests use (ready once `beforeAll` ran).
 */
export function useFramework(hooks: Readonly<FrameworkHooks>): Framework {
  let run: EverynodeRun | undefined;
  const session: Session = {
    kubectl: async () => ({ code: 1, stdout: '', stderr: 'everynode run has not started' }),
    endpoint: { server: '', token: '' },
    namespace: '',
  };
  const f = frameworkOver(session);
  beforeAll(async () => {
    run = await startEverynodeRun({
      simNodes: hooks.simNodes,
      timeScale: TIME_SCALE,
      readyTimeoutMs: 60_000,
    });
    session.kubectl = kubectlFor(findKubectl() ?? 'kubectl', run);
    session.endpoint = endpointOf(run.kubeconfig);
  }, 90_000);
  afterAll(() => run?.stop(), 30_000);
  beforeEach(async () => {
    session.namespace = `daemonsets-${randomBytes(3).toString('hex').slice(0, 5)}`;
    const metadata = { name: session.namespace, annotations: { ...hooks.namespaceAnnotations } };
    await f.ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata }));
    await hooks.beforeEach?.(f);
  }, IT_TIMEOUT_MS);
  afterEach(async () => {
    await hooks.afterEach?.(f);
  }, IT_TIMEOUT_MS);
  return f;
}
