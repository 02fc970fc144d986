/**
 * The rolling update's expectations of deletion (docs/design.md, 10. Caches and expectations): a
 * DaemonSet step expects each replacement before it sends that pod's delete, so the pair step the
 * deletion's event brings — which can run while the step still sends the rest of its deletes —
 * creates the replacement from the DaemonSet the step just read, without asking the API server
 * for it again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetNodeName } from '../../lib/core/daemon-pod.ts';
import type { KubePort } from '../../lib/kube/kube-port.ts';
import { pairKey } from '../../lib/reconcile/memory/expectations.ts';
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

  it("expects each replacement before the step sends that pod's delete", async () => {
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

    // At each delete: whether the process expects the replacement on the deleted pod's node.
    const kube = harness.deps.ports.kube as KubePort;
    const deletePod = kube.deletePod.bind(kube);
    const expectedAtDelete: boolean[] = [];
    kube.deletePod = (target, options) => {
      const now = harness.deps.clock().getTime();
      const pod = podsOf(harness, uid).find((p) => p.metadata?.name === target.name);
      const node = pod === undefined ? undefined : targetNodeName(pod);
      expectedAtDelete.push(
        node !== undefined && harness.deps.memory.expectations.replacementPending(pairKey(uid, node), now),
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
    expect(expectedAtDelete).toEqual(NODES.map(() => true));
  });
});
