/**
 * The pair messages of the DaemonSet step's fan-out (docs/design.md, 15. The DaemonSet step): their
 * hints, their FIFO de-duplication ids, and the intent the process remembers a fan-out by.
 */
import { createHash } from 'node:crypto';
import type { Action } from '../../core/action.ts';
import type { DaemonSet } from '../../core/daemon-set.ts';
import type { NodeView } from '../../core/node-view.ts';
import { hintsWithin } from '../../messages/hint-caps.ts';
import { nodeHintOf, type PairHints, podHintOf } from '../../messages/pair-hints.ts';
import type { PairMessage } from '../../messages/work-message.ts';
import type { FanOutState } from '../memory/fan-out-feed.ts';

/**
 * The FIFO de-duplication id of a fan-out: the intent (see memoryKeyOf) and the observation it was
 * planned from (the resourceVersions of the node and pod LISTs), so a step repeated on the same
 * observation (another process, a redelivered message) sends nothing new, while anything that
 * changed is new work. Deliberately not the intent alone: a pod created by a fan-out and then
 * deleted or released leaves the pair needing exactly the same create, which must not wait five
 * minutes for SQS de-duplication to expire; the process's memory of pairs in flight
 * (Expectations.fannedOut) is what keeps consecutive steps from re-sending pending work.
 */
export function deduplicationIdOf(memoryKey: string, observation: string): string {
  return `fanout:${createHash('sha256').update(`${memoryKey}#${observation}`).digest('hex')}`;
}

/** The intent of a pair's plan: its DaemonSet and generation, the node, what it creates and deletes. */
export function memoryKeyOf(ds: Readonly<DaemonSet>, nodeName: string, actions: readonly Action[]): string {
  const intent = actions.map((a) =>
    a.type === 'create'
      ? `c:${a.pod.metadata?.name}`
      : a.type === 'delete'
        ? `d:${a.uid}@${a.resourceVersion}`
        : 'r',
  );
  return JSON.stringify([ds.metadata?.uid, ds.metadata?.generation, nodeName, intent]);
}

function hintsFor(state: Readonly<FanOutState>, view: Readonly<NodeView>): PairHints {
  const meta = state.ds.metadata ?? {};
  return {
    observedAt: state.now.toISOString(),
    daemonSet: {
      resourceVersion: meta.resourceVersion ?? '',
      ...(meta.generation !== undefined ? { generation: meta.generation } : {}),
      revisionHash: state.currentHash,
    },
    node: view.node ? nodeHintOf(view.node) : null,
    pods: view.pods.map(podHintOf),
  };
}

/**
 * The hinted pair message for `view`, as of the step's LISTs; without hints when they would not fit
 * in `MAX_PAIR_HINTS_BYTES` (`hint-caps.ts`): the pair step then reads.
 */
export function pairMessageFor(state: Readonly<FanOutState>, view: Readonly<NodeView>): PairMessage {
  const meta = state.ds.metadata ?? {};
  const hints = hintsWithin(hintsFor(state, view));
  return {
    v: 1,
    kind: 'pair',
    cause: state.cause,
    daemonSet: { namespace: meta.namespace ?? 'default', name: meta.name ?? '', uid: meta.uid ?? '' },
    node: { name: view.name },
    ...(hints ? { hints } : {}),
  };
}
