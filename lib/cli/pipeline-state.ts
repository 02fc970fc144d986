/**
 * Where a running `everynode run` can be found by the other commands (`replay`, `redrive`,
 * `resync`): `<state dir>/pipeline.json` names its SQS endpoint and queues, its journal and its
 * cluster's kubeconfig. The queues live inside that process, so these commands need it running.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { managedKinds } from '../kube/managed-kind.ts';
import { processAlive } from './state-dir-lock.ts';

const stateSchema = z.object({
  pid: z.number().int().positive(),
  startedAt: z.string(),
  sqsEndpoint: z.string().min(1),
  queues: z.object({ ingress: z.string(), ingressDlq: z.string(), work: z.string(), workDlq: z.string() }),
  journalPath: z.string().min(1),
  kubeconfigPath: z.string().min(1),
  managedKind: z.enum(managedKinds),
});

/** What `everynode run` publishes about itself. */
export type PipelineState = z.infer<typeof stateSchema>;

/** The state file in `stateDir`. */
export function pipelineStatePath(stateDir: string): string {
  return join(stateDir, 'pipeline.json');
}

/** Writes the state of the running pipeline. */
export async function writePipelineState(stateDir: string, state: Readonly<PipelineState>): Promise<void> {
  await mkdir(stateDir, { recursive: true });
  await writeFile(pipelineStatePath(stateDir), `${JSON.stringify(stateSchema.parse(state), null, 2)}\n`);
}

/** Removes the state file (the pipeline stopped). */
export async function removePipelineState(stateDir: string): Promise<void> {
  await rm(pipelineStatePath(stateDir), { force: true });
}

/**
 * The state of the `everynode run` that uses `stateDir`; throws an error saying what is missing
 * when there is none, or when the process that wrote it is gone.
 */
export async function readPipelineState(stateDir: string): Promise<PipelineState> {
  const path = pipelineStatePath(stateDir);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new Error(
      `no running everynode run found (no ${path}); start one with everynode run, or pass --state-dir`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`reading ${path}: not JSON (${(error as Error).message})`);
  }
  const parsed = stateSchema.safeParse(json);
  if (!parsed.success) throw new Error(`reading ${path}: not a pipeline state file`);
  if (!processAlive(parsed.data.pid)) {
    throw new Error(`the everynode run that wrote ${path} (pid ${parsed.data.pid}) is no longer running`);
  }
  return parsed.data;
}
