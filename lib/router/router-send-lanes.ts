/**
 * Sending a trigger's work to the FIFO work queue in concurrent lanes. A gate change fans out to
 * every node (`router-gate-fan-out.ts`): 5,000 nodes are 500 SendMessageBatch calls, which one
 * after another take a good part of the router's timeout. FIFO order binds only the messages of one
 * group, so each group's messages keep one lane, in order, and the lanes run side by side.
 */
import { messageGroupId } from '../messages/message-group-id.ts';
import { SEND_MESSAGE_BATCH } from '../queue/send-messages.ts';
import type { OutgoingWork, WorkSender } from '../queue/work-senders.ts';

/** The most SendMessageBatch streams one trigger's work uses at once. */
export const WORK_SEND_LANES = 8;

/**
 * Sends `work` through `sender` in up to `lanes` concurrent calls, one lane per batch-sized share
 * of the work: every message of a FIFO group in the same lane, in `work`'s order (groups dealt to
 * the lanes in turn as they first appear). Work of one batch or less is one call, as before.
 * Resolves when every lane is accepted; rejects with the first lane's failure.
 */
export async function sendInLanes(
  sender: WorkSender,
  work: readonly OutgoingWork[],
  lanes = WORK_SEND_LANES,
): Promise<void> {
  const count = Math.max(1, Math.min(lanes, Math.ceil(work.length / SEND_MESSAGE_BATCH)));
  if (count === 1) return sender.send(work);
  const laneOf = new Map<string, number>();
  const shares: OutgoingWork[][] = Array.from({ length: count }, () => []);
  for (const item of work) {
    const group = messageGroupId(item.message);
    let lane = laneOf.get(group);
    if (lane === undefined) {
      lane = laneOf.size % count;
      laneOf.set(group, lane);
    }
    shares[lane]?.push(item);
  }
  await Promise.all(shares.filter((share) => share.length > 0).map((share) => sender.send(share)));
}
