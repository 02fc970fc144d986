/**
 * What `everynode run` does once its arguments are parsed: starts the cluster it names (a simulated
 * one, or a kubeconfig's), runs the pipeline on it until converged, stopped or timed out, and stops
 * both. Loaded by run-command.ts only then, so that a wrong argument is refused before these
 * modules load.
 */
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ManagedKind } from '../kube/managed-kind.ts';
import { type LocalPipeline, startLocalPipeline } from '../local/local-pipeline.ts';
import { previousJournalPath } from '../queue/journal.ts';
import type { CliIo } from './cli-args.ts';
import { linkKubectlPlugin } from './kubectl-plugin-link.ts';
import { removePipelineState, writePipelineState } from './pipeline-state.ts';
import { applyDemo, type ClusterChoice, type RunCluster, startRunCluster } from './run-cluster.ts';
import { runHints } from './run-hints.ts';
import { monitorPipeline } from './run-monitor.ts';

/** The parsed options of `everynode run`. */
export interface RunOptions {
  readonly cluster: ClusterChoice;
  readonly managedKind: ManagedKind;
  readonly exitWhenConverged: boolean;
  readonly timeoutSeconds: number;
  readonly stateDir: string;
  readonly apiQps: number;
  readonly maxReceiveCount: number;
  readonly logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
}

/**
 * Starts the cluster `options` name, runs the pipeline on it until it ends (see runRunCommand) and
 * stops both; resolves to the exit code before signals: 0, or 1 when not converged in time.
 */
export async function runOnCluster(
  options: Readonly<RunOptions>,
  io: CliIo,
  signal: AbortSignal,
): Promise<number> {
  if (options.cluster.type === 'sim') await freshHistory(options.stateDir);
  const cluster = await startRunCluster(options.cluster, options.stateDir);
  try {
    return await runPipeline(options, cluster, io, signal);
  } finally {
    await cluster.stop();
  }
}

/** Where log lines go: under the live view (the last five) on a terminal, to stdout otherwise. */
function logSink(io: CliIo): { log: (line: string) => void; recent: () => readonly string[] } {
  const recent: string[] = [];
  if (!io.isTTY) return { log: (line) => io.stdout(`${line}\n`), recent: () => recent };
  const log = (line: string) => {
    recent.push(line);
    if (recent.length > 5) recent.shift();
  };
  return { log, recent: () => recent };
}

/** Publishes the running pipeline for `replay`, `redrive` and `resync`. */
function publishState(
  options: Readonly<RunOptions>,
  cluster: RunCluster,
  pipeline: LocalPipeline,
): Promise<void> {
  return writePipelineState(options.stateDir, {
    pid: process.pid,
    startedAt: new Date().toISOString(),
    sqsEndpoint: pipeline.queues.endpoint,
    queues: pipeline.queues.urls,
    journalPath: pipeline.journalPath,
    kubeconfigPath: cluster.kubeconfigPath,
    managedKind: options.managedKind,
  });
}

async function runPipeline(
  options: Readonly<RunOptions>,
  cluster: RunCluster,
  io: CliIo,
  signal: AbortSignal,
): Promise<number> {
  const { log, recent } = logSink(io);
  // Resolves once the start-up resync is on the ingress queue (docs/design.md, 28. What a restart
  // can lose): the state file and the hints below, which say the run runs, come after it.
  const pipeline = await startLocalPipeline({
    kubeconfigPath: cluster.kubeconfigPath,
    ...(cluster.identities ? { identities: cluster.identities } : {}),
    managedKind: options.managedKind,
    stateDir: options.stateDir,
    apiQps: options.apiQps,
    maxReceiveCount: options.maxReceiveCount,
    log,
    logLevel: io.isTTY ? 'WARN' : options.logLevel,
  });
  try {
    await publishState(options, cluster, pipeline);
    const demo =
      options.cluster.type === 'sim' && options.cluster.demo ? applyDemo(cluster, options.managedKind) : [];
    const { managedKind, exitWhenConverged } = options;
    const pluginDir = await linkKubectlPlugin(options.stateDir);
    const journalPath = pipeline.journalPath;
    io.stdout(runHints({ cluster, managedKind, journalPath, demo, exitWhenConverged, pluginDir }));
    const end = await monitorPipeline({
      pipeline,
      io,
      exitWhenConverged,
      timeoutMs: options.timeoutSeconds * 1000,
      signal,
      recent,
      onError: (error) => log(`WARN  run: looking at the pipeline failed: ${String(error)}`),
    });
    if (end === 'timeout') io.stderr(`everynode run: not converged after ${options.timeoutSeconds} s\n`);
    if (end === 'converged') io.stdout('everynode run: converged\n');
    if (end === 'stopped') io.stdout('everynode run: stopping\n');
    return end === 'timeout' ? 1 : 0;
  } finally {
    await pipeline.stop();
    await removePipelineState(options.stateDir);
  }
}

/**
 * A new simulated cluster has its own history: the relay checkpoint of a previous one names versions
 * this one never had, and its journal describes objects that do not exist here. The checkpoint is
 * removed and the journal kept one generation back (`journal.previous.jsonl`).
 */
async function freshHistory(stateDir: string): Promise<void> {
  await rm(join(stateDir, 'relay-checkpoint.json'), { force: true });
  await rename(join(stateDir, 'journal.jsonl'), join(stateDir, 'journal.previous.jsonl')).catch(
    () => undefined,
  );
  // The journal's rotated file is of the earlier cluster too: a replay must not read it.
  await rm(previousJournalPath(join(stateDir, 'journal.jsonl')), { force: true });
}
