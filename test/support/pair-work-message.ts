import type { PairMessage } from '../../lib/messages/work-message.ts';

/** The timestamp of the fixture messages. */
export const fixtureAt = '2026-01-01T00:00:00.000Z';

/** A resync pair message with hints, for the message and batch tests. */
export const pairWorkMessage: PairMessage = {
  v: 1,
  kind: 'pair',
  cause: { type: 'resync', at: fixtureAt },
  daemonSet: { namespace: 'kube-system', name: 'agent', uid: 'u1' },
  node: { name: 'n1' },
  hints: {
    observedAt: fixtureAt,
    daemonSet: { resourceVersion: '5', generation: 1, revisionHash: 'h' },
    node: null,
    pods: [],
  },
};
