/**
 * The stable revision of a rollout: the last revision whose rollout completed, which a revert puts
 * back. Known from the record of the rollout before this one; for a DaemonSet whose record is lost
 * or that had none, the revision most of its old pods run.
 */
import { CONTROLLER_REVISION_HASH_LABEL } from '../daemon-set.ts';
import { isPodTerminating } from '../pod-availability.ts';
import type { RolloutNode } from './rollout-nodes.ts';
import type { RolloutRecord } from './rollout-record.ts';

/** The stable revision when the rollout of `currentHash` begins, or undefined when nothing says. */
export function stableRevisionOf(
  input: Readonly<{ stored: RolloutRecord | undefined; currentHash: string }>,
  nodes: readonly RolloutNode[],
): string | undefined {
  const { stored, currentHash } = input;
  if (stored !== undefined && stored.revision !== currentHash)
    return stored.phase === 'Complete' ? stored.revision : stored.stableRevision;
  const counts = new Map<string, number>();
  for (const node of nodes)
    for (const pod of node.view.pods) {
      const hash = pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL];
      if (hash === undefined || hash === currentHash || isPodTerminating(pod)) continue;
      counts.set(hash, (counts.get(hash) ?? 0) + 1);
    }
  let best: [string, number] | undefined;
  for (const entry of counts) if (best === undefined || entry[1] > best[1]) best = entry;
  return best?.[0];
}
