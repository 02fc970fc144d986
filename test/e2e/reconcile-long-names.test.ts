import type { CoreV1Event, V1ControllerRevision } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isControlledBy } from '../../lib/core/controller-ref.ts';
import { aDaemonSet, aNode } from '../support/builders.ts';
import {
  allReady,
  createDaemonSet,
  daemonSetMessage,
  nodeMessage,
  placementOf,
  podsOf,
  resyncUntil,
  storedDaemonSet,
  waitFor,
} from '../support/reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from '../support/reconcile-harness.ts';

/** 253 characters, the longest DNS subdomain; a '.' is the 223rd, where revision names cut. */
const DS_NAME = `${'a'.repeat(222)}.${'b'.repeat(30)}`;
/** 253 characters, the longest node name. */
const NODE_NAME = `${'ip-10-0-0-1.'.padEnd(244, 'x')}.internal`;

describe('the longest valid names', () => {
  let harness: Harness;
  let ds: ReturnType<typeof createDaemonSet>;
  const uid = () => ds.metadata?.uid ?? '';

  beforeAll(async () => {
    // A label value holds at most 63 characters: the hostname label and the selector stay short.
    const node = aNode(NODE_NAME, { labels: { 'kubernetes.io/hostname': 'long-node' } });
    harness = await startReconcileHarness({ nodes: [node, aNode('n1')] });
    const long = aDaemonSet(DS_NAME, { labels: { app: 'long' } });
    if (long.spec) long.spec.selector = { matchLabels: { app: 'long' } };
    ds = createDaemonSet(harness, long);
    await harness.send(daemonSetMessage(ds));
    await waitFor('placed', () => placementOf(harness, uid()).length === 2 && allReady(harness, uid()));
    await harness.quiet();
  });
  afterAll(async () => harness?.stop());

  it('a 253-character DaemonSet gets a revision named by its first 222 characters and the hash', () => {
    expect([DS_NAME.length, NODE_NAME.length]).toEqual([253, 253]);
    const revisions = (
      harness.sim.store.list('apps/controllerrevisions') as unknown as V1ControllerRevision[]
    ).filter((revision) => isControlledBy(revision, ds));
    expect(revisions).toHaveLength(1);
    const hash = revisions[0]?.metadata?.labels?.['controller-revision-hash'] ?? '';
    // The 223rd character is a '.', which cannot precede the '-': it is cut too.
    expect(revisions[0]?.metadata?.name).toBe(`${'a'.repeat(222)}-${hash}`);
    const hashes = podsOf(harness, uid()).map((pod) => pod.metadata?.labels?.['controller-revision-hash']);
    expect(hashes).toEqual([hash, hash]);
  });

  it('the 253-character node gets its pod, found again by the node step', async () => {
    expect(placementOf(harness, uid())).toEqual([NODE_NAME, 'n1'].sort());
    await harness.send(nodeMessage(NODE_NAME));
    await harness.quiet();
    const onLongNode = podsOf(harness, uid()).filter((pod) => pod.spec?.nodeName === NODE_NAME);
    expect(onLongNode).toHaveLength(1);
    expect(onLongNode[0]?.metadata?.deletionTimestamp).toBeUndefined();
  });

  it('the status counts both nodes', async () => {
    await resyncUntil(
      harness,
      ds,
      'status of both nodes',
      () => storedDaemonSet(harness, 'default', DS_NAME)?.status?.numberReady === 2,
    );
    expect(storedDaemonSet(harness, 'default', DS_NAME)?.status).toMatchObject({
      desiredNumberScheduled: 2,
      currentNumberScheduled: 2,
      updatedNumberScheduled: 2,
      numberReady: 2,
      numberMisscheduled: 0,
    });
  });

  it('its events are recorded', () => {
    const events = (harness.sim.store.list('events') as unknown as CoreV1Event[]).filter(
      (event) => event.involvedObject.uid === uid() && event.reason === 'SuccessfulCreate',
    );
    expect(events).toHaveLength(2);
  });
});
