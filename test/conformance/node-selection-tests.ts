/**
 * Upstream's DaemonSet tests of node selection by label (test/e2e/apps/daemon_set.go): a node
 * selector, and required node affinity, following a node's labels as they change.
 */
import type { V1DaemonSet } from '@kubernetes/client-node';
import { expect, it } from 'vitest';
import { DAEMONSET_COLOR_LABEL, separateDaemonSetNodeLabels } from './daemon-set-checks.ts';
import {
  checkDaemonPodOnNodes,
  checkDaemonStatus,
  checkRunningOnNoNodes,
  createDaemonSet,
  DS_LABEL,
  DS_NAME,
  getReadySchedulableNodes,
  newDaemonSet,
  patchDaemonSet,
  setDaemonSetNodeLabels,
  templateSpecOf,
  WEBSERVER_IMAGE,
} from './daemon-set-e2e.ts';
import { type Framework, IT_TIMEOUT_MS, poll } from './e2e-framework.ts';

/**
 * A ready schedulable node (upstream e2enode.GetRandomReadySchedulableNode picks one at random;
 * any does, and the first keeps runs repeatable).
 */
async function readySchedulableNode(f: Framework): Promise<string> {
  const nodes = await getReadySchedulableNodes(f);
  expect(nodes.length).toBeGreaterThan(0);
  return nodes[0]?.metadata?.name ?? '';
}

/**
 * The common start of both tests: `ds` runs on no node; labelling a node `daemonset-color: blue`
 * makes it run there (and only there), with a consistent status. Resolves with the node's name.
 */
async function runsWhereLabelledBlue(f: Framework, ds: V1DaemonSet): Promise<string> {
  // Initially, daemon pods should not be running on any nodes.
  await poll('waiting for daemon pods to be running on no nodes', checkRunningOnNoNodes(f, ds));

  // Change node label to blue, check that daemon pod is launched.
  const node = await readySchedulableNode(f);
  const newNode = await setDaemonSetNodeLabels(f, node, { [DAEMONSET_COLOR_LABEL]: 'blue' });
  expect(Object.keys(separateDaemonSetNodeLabels(newNode.metadata?.labels)[0])).toHaveLength(1);
  await poll('waiting for daemon pods to be running on new nodes', checkDaemonPodOnNodes(f, ds, [node]));
  await checkDaemonStatus(f, DS_NAME);
  return node;
}

/** Registers these tests of the `[sig-apps] Daemon set [Serial]` block, run against `f`. */
export function nodeSelectionTests(f: Framework): void {
  it(
    'should run and stop complex daemon [Conformance]',
    async () => {
      const template = newDaemonSet(DS_NAME, WEBSERVER_IMAGE, DS_LABEL);
      templateSpecOf(template).nodeSelector = { [DAEMONSET_COLOR_LABEL]: 'blue' };
      const ds = await createDaemonSet(f, template);
      const node = await runsWhereLabelledBlue(f, ds);

      // Update the node label to green, and wait for daemons to be unscheduled.
      const greenNode = await setDaemonSetNodeLabels(f, node, { [DAEMONSET_COLOR_LABEL]: 'green' });
      await poll('waiting for daemon pod to not be running on nodes', checkRunningOnNoNodes(f, ds));

      // Update DaemonSet node selector to green, and change its update strategy to RollingUpdate.
      const green = greenNode.metadata?.labels?.[DAEMONSET_COLOR_LABEL];
      const patch = JSON.stringify({
        spec: {
          template: { spec: { nodeSelector: { [DAEMONSET_COLOR_LABEL]: green } } },
          updateStrategy: { type: 'RollingUpdate' },
        },
      });
      const patched = await patchDaemonSet(f, DS_NAME, patch);
      expect(Object.keys(separateDaemonSetNodeLabels(greenNode.metadata?.labels)[0])).toHaveLength(1);
      await poll(
        'waiting for daemon pods to be running on new nodes',
        checkDaemonPodOnNodes(f, patched, [greenNode.metadata?.name ?? '']),
      );
      await checkDaemonStatus(f, DS_NAME);
    },
    IT_TIMEOUT_MS,
  );

  it(
    'should run and stop complex daemon with node affinity',
    async () => {
      const template = newDaemonSet(DS_NAME, WEBSERVER_IMAGE, DS_LABEL);
      templateSpecOf(template).affinity = {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: DAEMONSET_COLOR_LABEL, operator: 'In', values: ['blue'] }] },
            ],
          },
        },
      };
      const ds = await createDaemonSet(f, template);
      const node = await runsWhereLabelledBlue(f, ds);

      // Remove the node label and wait for daemons to be unscheduled.
      await setDaemonSetNodeLabels(f, node, {});
      await poll('waiting for daemon pod to not be running on nodes', checkRunningOnNoNodes(f, ds));
    },
    IT_TIMEOUT_MS,
  );
}
