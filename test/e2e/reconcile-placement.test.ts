import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagedKind } from '../../lib/kube/managed-kind.ts';
import {
  allReady,
  createDaemonSet,
  daemonSetMessage,
  fixtureDaemonSet,
  placementOf,
  waitFor,
} from '../support/reconcile-cluster.ts';
import { type Harness, startReconcileHarness } from '../support/reconcile-harness.ts';

const seeds = [
  { file: 'fluentd-elasticsearch.yaml', nodes: ['cordoned-1', 'master-1', 'worker-1', 'worker-ssd'] },
  { file: 'demo.yaml', nodes: ['cordoned-1', 'worker-1', 'worker-ssd'] },
  { file: 'node-selector-ds.yaml', nodes: ['worker-ssd'] },
];

describe.each<{ kind: ManagedKind }>([{ kind: 'apps/v1' }, { kind: 'everynode.dev/v1' }])(
  'seed fixtures as $kind',
  ({ kind }) => {
    let harness: Harness;
    beforeAll(async () => {
      harness = await startReconcileHarness({ managedKind: kind });
    });
    afterAll(async () => harness?.stop());

    it('land on exactly the right nodes, ready, with status equal to a recount', async () => {
      const created = seeds.map((seed) => ({
        ...seed,
        ds: createDaemonSet(harness, fixtureDaemonSet(seed.file, kind)),
      }));
      await harness.send(...created.map(({ ds }) => daemonSetMessage(ds)));
      for (const { ds, nodes } of created) {
        const uid = ds.metadata?.uid ?? '';
        await waitFor(
          `${ds.metadata?.name} on ${nodes}`,
          () => placementOf(harness, uid).join() === nodes.join() && allReady(harness, uid),
        );
      }
      await harness.quiet();
      await harness.send(...created.map(({ ds }) => daemonSetMessage(ds)));
      await harness.quiet();
      for (const { ds, nodes } of created) {
        const stored = harness.sim.store.get(
          kind === 'apps/v1' ? 'apps/daemonsets' : 'everynode.dev/daemonsets',
          ds.metadata?.namespace,
          ds.metadata?.name ?? '',
        );
        expect(placementOf(harness, ds.metadata?.uid ?? '')).toEqual(nodes);
        expect(stored?.status).toMatchObject({
          desiredNumberScheduled: nodes.length,
          currentNumberScheduled: nodes.length,
          numberReady: nodes.length,
          numberAvailable: nodes.length,
          updatedNumberScheduled: nodes.length,
          numberMisscheduled: 0,
          observedGeneration: 1,
        });
      }
    });
  },
);
