/**
 * Where the API server is and how to authenticate to it: the part of a client that differs
 * between a kubeconfig (local, in-cluster) and EKS.
 */
import type http from 'node:http';

/** A way to reach one API server. */
export interface KubeConnection {
  /** The API server's base URL (`https://…`, or `http://…` for the simulated cluster). */
  readonly server: string;
  /** The process's keep-alive agent for that server (see `keepAliveAgent`). */
  readonly agent: http.Agent;
  /** Where the connection came from, for messages: never contains a secret. */
  readonly description: string;
  /** The headers that authenticate one request (`Authorization`, `Impersonate-User`), fresh enough to use now. */
  authHeaders(): Promise<Record<string, string>>;
}
