/**
 * A whole simulated cluster in one call: store, API server on 127.0.0.1, scheduler, kubelets,
 * node lifecycle, taint eviction and pod GC, its nodes, a kubeconfig, request counters and fault
 * controls. What `everynode sim` runs, and what tests and benchmarks start.
 */
import type { V1Node } from '@kubernetes/client-node';
import { type ApiServerOptions, createApiServer } from './apiserver/api-server.ts';
import { OPEN_ACCESS } from './auth/access-control.ts';
import { type AuthorizationMode, withAuthorizationMode } from './auth/authorization-mode.ts';
import { seedBootstrapPolicy } from './auth/rbac-bootstrap-policy.ts';
import { generateServingCertificates } from './auth/serving-certificates.ts';
import { type SimAuthenticationOptions, simAuthentication } from './auth/sim-authentication.ts';
import { RequestCounters } from './counters.ts';
import { FaultInjector } from './faults.ts';
import { type KubeconfigOptions, kubeconfigFor, writeKubeconfig } from './kubeconfig.ts';
import { NodeControls } from './node-controls.ts';
import { simNodes } from './sim-nodes.ts';
import { startSimRuntime } from './sim-runtime.ts';
import type { SimTiming } from './sim-timing.ts';
import { ClusterStore, type KubeObject } from './storage/store.ts';

/**
 * Options of startSimCluster. Authentication (`tokenAuthFile`, `eks`) is off unless asked for:
 * every request is then the administrator's, as it always was.
 */
export interface SimClusterOptions extends SimAuthenticationOptions {
  /** TCP port on 127.0.0.1; 0 or omitted picks a free one. */
  readonly port?: number;
  /**
   * Nodes to start with: a count (0 = none; up to 6 = the first seed nodes of
   * lib/sim/fixtures/nodes.yaml; more = `node-00001`…) or the node objects themselves.
   * Default: the six seed nodes.
   */
  readonly nodes?: number | readonly V1Node[];
  /** Seed of the fault injector's PRNG, so fault runs repeat exactly. Default 1. */
  readonly seed?: number;
  /** When set, the kubeconfig is also written to this path (mode 0600). */
  readonly kubeconfigPath?: string;
  /**
   * How fast the runtime moves (SimTiming, in real-cluster seconds): `timeScale` multiplies every
   * duration, including pods' grace periods and tolerationSeconds (e.g. 0.01 runs a 30 s grace
   * period in 0.3 s); `podStartSeconds` (bound → Running, default 1), `podReadySeconds` (Running →
   * Ready, default 1), `containerExitSeconds` (how long image-marker containers run, default 2),
   * `containerStopSeconds` (how long a container takes to exit on SIGTERM, default 1; capped by the
   * pod's grace period; `ignore-sigterm` images wait out the grace period),
   * `crashLoopBackOffSeconds` / `maxCrashLoopBackOffSeconds` (10 / 300), `podGcQuarantineSeconds` (40),
   * `breakNodeSeconds` (how long a `break-node` container runs before its node turns NotReady, 3).
   */
  readonly timing?: Partial<SimTiming>;
  /** Changes kept per resource for watches (older resourceVersions get 410). Default 10,000. */
  readonly watchWindow?: number;
  /** Milliseconds between watch bookmarks. Default 60,000, like the real watch cache. */
  readonly bookmarkIntervalMs?: number;
  /**
   * Serve HTTPS with a CA made at start and a certificate it signs for 127.0.0.1 and localhost;
   * the kubeconfig then trusts that CA (no `insecure-skip-tls-verify`). Default plain HTTP.
   */
  readonly tls?: boolean;
  /**
   * kube-apiserver's `--authorization-mode`: `AlwaysAllow` (default) serves every request; `RBAC`
   * allows `system:masters` everything and everyone else what the cluster's Roles, ClusterRoles
   * and bindings grant (the default roles of a real cluster exist either way).
   */
  readonly authorizationMode?: AuthorizationMode;
}

/** A running simulated cluster. */
export interface SimCluster {
  /** Base URL of the API server, e.g. `http://127.0.0.1:41234` (`https://` with `tls`). */
  readonly url: string;
  /** PEM of the CA clients trust, with `tls`. */
  readonly caCertificate?: string;
  /** Kubeconfig YAML for kubectl and @kubernetes/client-node. */
  readonly kubeconfig: string;
  /** Where the kubeconfig was written, when asked to. */
  readonly kubeconfigPath?: string;
  /** Counts of every HTTP request by verb, resource and user agent. */
  readonly counters: RequestCounters;
  /** Latency, error rates, rate limits and watch faults, settable at runtime. */
  readonly faults: FaultInjector;
  /** Add, remove, make NotReady, cordon, taint and label nodes. */
  readonly nodes: NodeControls;
  /** The object store itself, for in-process inspection. */
  readonly store: ClusterStore;
  /** The timing in force. */
  readonly timing: SimTiming;
  /** Stops the runtime and closes the API server (open watches end). */
  stop(): Promise<void>;
}

/**
 * TLS and authentication as `options` ask: what the API server is given, and what the kubeconfig
 * carries (the generated admin token, the CA). Nothing when neither is asked for.
 */
async function securityOf(
  options: Readonly<SimClusterOptions>,
): Promise<{ server: Pick<ApiServerOptions, 'access' | 'tls'>; kubeconfig: KubeconfigOptions }> {
  const authentication = await simAuthentication(options);
  const certificates = options.tls ? await generateServingCertificates() : undefined;
  return {
    server: {
      ...(authentication ? { access: { ...OPEN_ACCESS, authenticate: authentication.authenticate } } : {}),
      ...(certificates ? { tls: { cert: certificates.certificate, key: certificates.privateKey } } : {}),
    },
    kubeconfig: {
      ...(authentication ? { token: authentication.adminToken } : {}),
      ...(certificates ? { caCertificate: certificates.caCertificate } : {}),
    },
  };
}

/** Starts a simulated cluster; resolves once the API server listens and the nodes exist. */
export async function startSimCluster(options: SimClusterOptions = {}): Promise<SimCluster> {
  const security = await securityOf(options);
  const store = new ClusterStore(
    options.watchWindow === undefined ? {} : { watchWindow: options.watchWindow },
  );
  seedBootstrapPolicy(store);
  const access = withAuthorizationMode(security.server.access, options.authorizationMode, store);
  const initial = typeof options.nodes === 'object' ? options.nodes : simNodes(options.nodes);
  for (const node of initial) store.create('nodes', creatable(node));
  const runtime = startSimRuntime(store, options.timing === undefined ? {} : { timing: options.timing });
  const counters = new RequestCounters();
  const faults = new FaultInjector(options.seed ?? 1);
  const server = createApiServer(store, {
    counters,
    faults,
    // Watches end after the scaled --min-request-timeout, as a real server ends them.
    timeScale: runtime.context.timing.timeScale,
    ...(options.bookmarkIntervalMs === undefined ? {} : { bookmarkIntervalMs: options.bookmarkIntervalMs }),
    ...security.server,
    ...(access ? { access } : {}),
  });
  let url: string;
  try {
    url = await server.listen(options.port ?? 0);
    if (options.kubeconfigPath) await writeKubeconfig(options.kubeconfigPath, url, security.kubeconfig);
  } catch (error) {
    runtime.stop();
    await server.close().catch(() => undefined);
    throw new SimClusterError(`starting the simulated cluster on port ${options.port ?? 0}`, {
      cause: error,
    });
  }
  return {
    url,
    kubeconfig: kubeconfigFor(url, security.kubeconfig),
    ...(security.kubeconfig.caCertificate ? { caCertificate: security.kubeconfig.caCertificate } : {}),
    ...(options.kubeconfigPath ? { kubeconfigPath: options.kubeconfigPath } : {}),
    counters,
    faults,
    nodes: new NodeControls(store, runtime.context.now),
    store,
    timing: runtime.context.timing,
    stop: async () => {
      runtime.stop();
      await server.close();
    },
  };
}

/**
 * `node` as a client would send it to create: plain JSON (Dates as strings) without the fields
 * the server sets, so objects from the test builders (which carry uid and resourceVersion) work.
 */
function creatable(node: Readonly<V1Node>): KubeObject {
  const json = JSON.parse(JSON.stringify(node)) as KubeObject;
  const { uid: _uid, resourceVersion: _rv, creationTimestamp: _created, ...metadata } = json.metadata;
  return { ...json, apiVersion: 'v1', kind: 'Node', metadata };
}

/** The simulated cluster could not start. */
export class SimClusterError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SimClusterError';
  }
}
