/**
 * Where the relay keeps the resourceVersions it resumes its watches from: an SSM parameter on AWS
 * (`run/checkpoint-ssm.ts`), a JSON file locally. A checkpoint only ever names versions whose
 * events the bus has accepted, so resuming from it can repeat events (the work queue de-duplicates
 * them) but never skip one. It also names the cluster it was taken in (`ClusterIdentity`): versions
 * mean nothing in another cluster, so the relay resumes only from a checkpoint of its own.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as z from 'zod';
import type { ClusterIdentity, TriggeringResource } from '../../kube/kube-port.ts';
import type { ManagedKind } from '../../kube/managed-kind.ts';
import { managedKinds } from '../../kube/managed-kind.ts';
import { type RelayLease, relayLeaseSchema } from './handover.ts';

/** The versions to resume from, per watched resource, and the managed kind they were watched for. */
export interface RelayCheckpoint {
  readonly managedKind: ManagedKind;
  readonly resourceVersions: Readonly<Partial<Record<TriggeringResource, string>>>;
  /** The cluster the versions are of; absent in checkpoints written before it was recorded. */
  readonly cluster?: ClusterIdentity;
  /** When it was written (for operators reading the parameter). */
  readonly savedAt?: string;
  /** On AWS, the run holding the right to write it (docs/design.md, 25); absent when released. */
  readonly lease?: RelayLease;
}

/** Reads and writes the checkpoint. */
export interface RelayCheckpointStore {
  /** The stored checkpoint, or undefined when there is none (or it is unreadable: start cold). */
  load(): Promise<RelayCheckpoint | undefined>;
  /** Replaces the stored checkpoint. */
  save(checkpoint: Readonly<RelayCheckpoint>): Promise<void>;
  /**
   * Whether every write is a heartbeat (a lease holder proving it is alive): written at every
   * checkpoint tick, and once as soon as the watches are up, even when no version moved.
   */
  readonly heartbeat?: boolean;
}

const checkpointSchema = z.object({
  managedKind: z.enum(managedKinds),
  resourceVersions: z.object({
    nodes: z.string().min(1).optional(),
    pods: z.string().min(1).optional(),
    daemonsets: z.string().min(1).optional(),
  }),
  cluster: z.object({ server: z.string().min(1), kubeSystemUid: z.string().min(1) }).optional(),
  savedAt: z.string().optional(),
  lease: relayLeaseSchema.optional(),
});

/**
 * The checkpoint in `text`, or undefined when it holds none: empty, `{}` (the parameter's initial
 * value), or not a checkpoint — the relay then starts cold (LIST + resync), which loses nothing.
 */
export function parseRelayCheckpoint(text: string | undefined): RelayCheckpoint | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  try {
    const parsed = checkpointSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The checkpoint as stored text. */
export function formatRelayCheckpoint(checkpoint: Readonly<RelayCheckpoint>): string {
  return JSON.stringify(checkpointSchema.parse(checkpoint));
}

/** A checkpoint in a JSON file, replaced atomically (write to a temporary file, then rename). */
export class FileCheckpointStore implements RelayCheckpointStore {
  constructor(readonly path: string) {}

  /** The checkpoint in the file; undefined when the file is missing or holds none. */
  async load(): Promise<RelayCheckpoint | undefined> {
    try {
      return parseRelayCheckpoint(await readFile(this.path, 'utf8'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new Error(`reading the relay checkpoint ${this.path}`, { cause: error });
    }
  }

  /** Writes the checkpoint; a crash mid-write leaves the previous one intact. */
  async save(checkpoint: Readonly<RelayCheckpoint>): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
    const temporary = `${this.path}.${process.pid}.tmp`;
    await writeFile(temporary, formatRelayCheckpoint(checkpoint));
    await rename(temporary, this.path);
  }
}
