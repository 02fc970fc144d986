/**
 * The rolling update's expectations of deletion (docs/design.md, 10. Caches and expectations): a
 * DaemonSet step expects each replacement before it sends the delete, so the pair step a deletion's
 * event brings — which can run while the step still sends the rest of its deletes — creates the
 * replacement from the DaemonSet the step just read, without asking the API server for it again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubePort } from '../../lib/kube/kube-port.ts';
import { pairKey } from '../../lib/reconcile/expectations.ts';
import { aDaemonSet, aNode } from '../support/builders.ts';
import {
  allReady,
  createDaemonSet,
  daemonSetMessage,
  placementOf,
  podsOf,
  updateDaemonSet,
  waitFor,
} from '../support/reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from '../support/reconcile-harness.ts';

const NODES = ['n1', 'n2', 'n3', 'n4'];
const V2 = 'busybox:1.37';

describe('rolling update deletions', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startReconcileHarness({ nodes: NODES.map((name) => aNode(name)), podDeletions: true });
  });
  afterAll(async () => harness?.stop());

  it('expects every replacement of a step before the step sends its first delete', async () => {
    const ds = createDaemonSet(
      harness,
      aDaemonSet('expect', {
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: NODES.length } },
        podSpec: { terminationGracePeriodSeconds: 0 },
      }),
    );
    const uid = ds.metadata?.uid ?? '';
    await harness.send(daemonSetMessage(ds));
    await waitFor(
      'placed',
      () => placementOf(harness, uid).join() === NODES.join() && allReady(harness, uid),
    );
    await harness.quiet();

    // At each delete: how many of the DaemonSet's pairs the process expects a replacement on.
    const kube = harness.deps.kube as KubePort;
    const deletePod = kube.deletePod.bind(kube);
    const expectedAtDelete: number[] = [];
    kube.deletePod = (target, options) => {
      const now = harness.deps.clock().getTime();
      expectedAtDelete.push(
        NODES.filter((node) => harness.deps.expectations.replacementPending(pairKey(uid, node), now)).length,
      );
      return deletePod(target, options);
    };
    try {
      updateDaemonSet(harness, 'default', 'expect', (stored) => {
        const container = stored.spec?.template.spec?.containers[0];
        if (container) container.image = V2;
      });
      await harness.send(daemonSetMessage(ds));
      await waitFor(
        'every pod replaced',
        () =>
          podsOf(harness, uid).filter(
            (p) => p.spec?.containers[0]?.image === V2 && !p.metadata?.deletionTimestamp,
          ).length === NODES.length,
      );
    } finally {
      kube.deletePod = deletePod;
    }
    expect(expectedAtDelete).toEqual(NODES.map(() => NODES.length));
  });
});
