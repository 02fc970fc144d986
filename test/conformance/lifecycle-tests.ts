/**
 * Upstream's DaemonSet conformance tests of creation, revival, listing, DeleteCollection and the
 * status subresource (test/e2e/apps/daemon_set.go).
 */
import type { V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { expect, it } from 'vitest';
import { DAEMONSET_NAME_LABEL } from './daemon-set-checks.ts';
import {
  checkDaemonStatus,
  checkRunningOnAllNodes,
  createDaemonSet,
  DS_LABEL,
  DS_NAME,
  getDaemonSet,
  listDaemonPods,
  newDaemonSet,
  newDaemonSetWithLabel,
  WEBSERVER_IMAGE,
} from './daemon-set-e2e.ts';
import {
  DS_RETRY_TIMEOUT_MS,
  type Framework,
  IT_TIMEOUT_MS,
  poll,
  type WatchEvent,
} from './e2e-framework.ts';

const labelSelector = `${DAEMONSET_NAME_LABEL}=${DS_NAME}`;

/** Creates `ds` and waits, as each of these tests does first, until it runs everywhere it should. */
async function createAndWaitRunning(f: Framework, ds: V1DaemonSet): Promise<V1DaemonSet> {
  const created = await createDaemonSet(f, ds);
  await poll('waiting for daemon pod to start', checkRunningOnAllNodes(f, created));
  await checkDaemonStatus(f, DS_NAME);
  return created;
}

/** A watch event of the test's DaemonSet (name, namespace and label) with a condition `accept` takes. */
function statusEvent(f: Framework, accept: (condition: Record<string, unknown>) => boolean) {
  return (event: WatchEvent): boolean => {
    const ds = event.object as V1DaemonSet;
    const found =
      ds.metadata?.name === DS_NAME &&
      ds.metadata?.namespace === f.namespace &&
      ds.metadata?.labels?.[DAEMONSET_NAME_LABEL] === DS_NAME;
    return (
      found && (ds.status?.conditions ?? []).some((c) => accept(c as unknown as Record<string, unknown>))
    );
  };
}

/** Registers these tests of the `[sig-apps] Daemon set [Serial]` block, run against `f`. */
export function lifecycleTests(f: Framework): void {
  it(
    'should run and stop simple daemon [Conformance]',
    async () => {
      const ds = await createAndWaitRunning(f, newDaemonSet(DS_NAME, WEBSERVER_IMAGE, DS_LABEL));

      // Stop a daemon pod, check that the daemon pod is revived.
      const [pod] = await listDaemonPods(f, DS_LABEL);
      await f.ok(['delete', 'pod', pod?.metadata?.name ?? '', '-n', f.namespace, '--wait=false']);
      await poll('waiting for daemon pod to revive', checkRunningOnAllNodes(f, ds));
    },
    IT_TIMEOUT_MS,
  );

  it(
    'should retry creating failed daemon pods [Conformance]',
    async () => {
      const ds = await createAndWaitRunning(f, newDaemonSet(DS_NAME, WEBSERVER_IMAGE, DS_LABEL));

      // Set a daemon pod's phase to 'Failed' (an unconditional update of pods/status), check that
      // the daemon pod is revived.
      const [pod] = await listDaemonPods(f, DS_LABEL);
      const failed: V1Pod = {
        ...pod,
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { ...pod?.metadata, resourceVersion: '' },
        status: { ...pod?.status, phase: 'Failed' },
      };
      await f.ok(['replace', '--subresource=status', '-n', f.namespace, '-f', '-'], JSON.stringify(failed));
      await poll('waiting for daemon pod to revive', checkRunningOnAllNodes(f, ds));

      // Wait for the failed daemon pod to be completely deleted (upstream waitFailedDaemonPodDeleted:
      // a GET of its name answers NotFound).
      // everynode names daemon pods deterministically; the replacement takes the next attempt's
      // name while the failed pod exists, so this GET finds the failed pod's name free at the end.
      await poll('waiting for the failed daemon pod to be completely deleted', async () => {
        const result = await f.http('GET', `/api/v1/namespaces/${f.namespace}/pods/${pod?.metadata?.name}`);
        if (result.status === 200) {
          const found = result.body as V1Pod;
          return `pod ${found.metadata?.name} exists (uid ${found.metadata?.uid}, phase ${found.status?.phase}; the failed pod's uid is ${pod?.metadata?.uid})`;
        }
        if (result.status === 404) return true;
        throw new Error(`failed to get failed daemon pod: ${result.status} ${JSON.stringify(result.body)}`);
      });
    },
    IT_TIMEOUT_MS,
  );

  it(
    'should list and delete a collection of DaemonSets [Conformance]',
    async () => {
      await createAndWaitRunning(f, newDaemonSetWithLabel(DS_NAME, WEBSERVER_IMAGE, DS_LABEL));

      // listing all DaemonSets
      const listAll = ['get', 'daemonsets', '--all-namespaces', '-l', labelSelector, '-o', 'json'];
      const before = await f.json<{ items: V1DaemonSet[] }>(listAll);
      expect(before.items, "filtered list wasn't found").toHaveLength(1);

      // DeleteCollection of the DaemonSets: kubectl deletes one by one, so this is plain HTTP.
      const path = `/apis/apps/v1/namespaces/${f.namespace}/daemonsets?labelSelector=${encodeURIComponent(labelSelector)}`;
      const deleted = await f.http('DELETE', path, {
        kind: 'DeleteOptions',
        apiVersion: 'v1',
        gracePeriodSeconds: 1,
      });
      expect(deleted.status, 'failed to delete DaemonSets').toBe(200);

      // Verify that the DaemonSets have been deleted.
      const after = await f.json<{ items: V1DaemonSet[] }>(listAll);
      expect(after.items, 'filtered list should have no daemonset').toHaveLength(0);
    },
    IT_TIMEOUT_MS,
  );

  it(
    'should verify changes to a daemon set status [Conformance]',
    async () => {
      // The list's resourceVersion, where the watches below start: kubectl prints none for a list.
      const listed = await f.http(
        'GET',
        `/apis/apps/v1/daemonsets?labelSelector=${encodeURIComponent(labelSelector)}`,
      );
      expect(listed.status, 'failed to list Daemon Sets').toBe(200);
      const resourceVersion = (listed.body as { metadata: { resourceVersion: string } }).metadata
        .resourceVersion;
      await createAndWaitRunning(f, newDaemonSetWithLabel(DS_NAME, WEBSERVER_IMAGE, DS_LABEL));

      // Getting /status
      const status = await f.json<V1DaemonSet>([
        'get',
        'daemonset',
        DS_NAME,
        '-n',
        f.namespace,
        '--subresource=status',
        '-o',
        'json',
      ]);
      expect(status).toMatchObject({ kind: 'DaemonSet', metadata: { name: DS_NAME } });

      // updating the DaemonSet Status, again on a conflict (retry.RetryOnConflict)
      const condition = { type: 'StatusUpdate', status: 'True', reason: 'E2E', message: 'Set from e2e test' };
      await poll('updating the DaemonSet status', async () => {
        const ds = await getDaemonSet(f, DS_NAME);
        ds.status = {
          ...ds.status,
          conditions: [...(ds.status?.conditions ?? []), condition],
        } as V1DaemonSet['status'];
        const args = ['replace', '--subresource=status', '-n', f.namespace, '-f', '-'];
        const result = await f.kubectl(args, JSON.stringify(ds));
        if (result.code === 0) return true;
        if (!/Conflict|the object has been modified/.test(result.stderr))
          throw new Error(`Failed to update status: ${result.stderr}`);
        return result.stderr.trim();
      });

      // watching for the daemon set status to be updated
      const watch = `/apis/apps/v1/namespaces/${f.namespace}/daemonsets?watch=1&labelSelector=${encodeURIComponent(labelSelector)}&resourceVersion=${resourceVersion}`;
      const updated = (c: Record<string, unknown>) =>
        c.type === 'StatusUpdate' && c.reason === 'E2E' && c.message === 'Set from e2e test';
      await f.watchUntil(watch, statusEvent(f, updated), DS_RETRY_TIMEOUT_MS);

      // patching the DaemonSet Status
      const patch = JSON.stringify({ status: { conditions: [{ type: 'StatusPatched', status: 'True' }] } });
      await f.ok([
        'patch',
        'daemonset',
        DS_NAME,
        '-n',
        f.namespace,
        '--subresource=status',
        '--type=merge',
        '-p',
        patch,
      ]);

      // watching for the daemon set status to be patched
      await f.watchUntil(
        watch,
        statusEvent(f, (c) => c.type === 'StatusPatched'),
        DS_RETRY_TIMEOUT_MS,
      );
    },
    IT_TIMEOUT_MS,
  );
}
