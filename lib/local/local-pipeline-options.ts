/** What a local pipeline is started with. */

import type { ManagedKind } from '../kube/managed-kind.ts';
import type { EverynodeFunction } from '../kube/rbac/function-groups.ts';

/** Options of `startLocalPipeline`. */
export interface LocalPipelineOptions {
  /** The cluster, as a kubeconfig file (the simulated cluster writes one). */
  readonly kubeconfigPath: string;
  /**
   * Each function's own credentials, as kubeconfig paths: relay, router and reconcile then call the
   * API as their own users, as each function on AWS does with its own IAM role mapped to its own
   * group (lib/kube/rbac/function-groups.ts). A function not named here, and the CLI's own reads (the
   * live view), use `kubeconfigPath`.
   */
  readonly identities?: Readonly<Partial<Record<EverynodeFunction, string>>>;
  readonly managedKind: ManagedKind;
  /** Where the journal (`journal.jsonl`) and the relay checkpoint live. */
  readonly stateDir: string;
  /** Journal path (default `<stateDir>/journal.jsonl`). */
  readonly journalPath?: string;
  /** API requests per second of each component (default 100). */
  readonly apiQps?: number;
  /** Receives of a work message before the DLQ (default 5). */
  readonly maxReceiveCount?: number;
  /** Visibility timeout of the queues in seconds (default 30, as a function timeout would set). */
  readonly visibilityTimeoutSeconds?: number;
  /**
   * Concurrent router / reconcile invocations (default 8 / 8). Lambda scales the router's pollers with
   * the ingress queue; a router invocation may hold an envelope due within the second (see
   * `MAX_ROUTER_HOLD_MS`), so a few pollers alone would leave triggers waiting behind it.
   */
  readonly routerConcurrency?: number;
  readonly reconcileConcurrency?: number;
  /** The fewest nodes a kept node LIST must hold for the DaemonSet steps to plan on it again (default 2,000). */
  readonly nodeListReuseMinNodes?: number;
  /** Seconds an in-place resize may stay Deferred before its pod is recreated (default 300). */
  readonly resizeDeferredSeconds?: number;
  /** Where log lines go (default nowhere), and from which level (default INFO). */
  readonly log?: (line: string) => void;
  readonly logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';
  /** Start the relay with the pipeline (default true); tests may start and stop it themselves. */
  readonly startRelay?: boolean;
}
