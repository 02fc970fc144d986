/**
 * Helpers of the reconcile end-to-end tests: DaemonSets in the simulated cluster, the work messages
 * the router would send for cluster changes, and where the pods are.
 */
import { readFileSync } from 'node:fs';
import type { V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { targetNodeName } from '../../lib/core/daemon-pod.ts';
import type { ManagedKind } from '../../lib/kube/managed-kind.ts';
import type { WorkMessage } from '../../lib/messages/work-message.ts';
import type { KubeObject } from '../../lib/sim/storage/store.ts';
import { creatableDaemonSet } from './builders.ts';
import type { Harness } from './reconcile-harness.ts';

/** Resolves when `check` holds, polling; rejects with `what` after `timeoutMs`. */
export async function waitFor(what: string, check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A DaemonSet fixture of test/fixtures as the managed kind. */
export function fixtureDaemonSet(file: string, managedKind: ManagedKind): V1DaemonSet {
  const ds = parse(readFileSync(new URL(`../fixtures/${file}`, import.meta.url), 'utf8')) as V1DaemonSet;
  return { ...ds, apiVersion: managedKind };
}

/** The store key of the managed DaemonSets. */
export function daemonSetKey(managedKind: ManagedKind): 'apps/daemonsets' | 'everynode.dev/daemonsets' {
  return managedKind === 'apps/v1' ? 'apps/daemonsets' : 'everynode.dev/daemonsets';
}

/** Creates `ds` (and its namespace when missing) in the simulated cluster; returns it as stored. */
export function createDaemonSet(harness: Harness, ds: Readonly<V1DaemonSet>): V1DaemonSet {
  const namespace = ds.metadata?.namespace ?? 'default';
  if (!harness.sim.store.get('namespaces', undefined, namespace)) {
    harness.sim.store.create('namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespace },
    });
  }
  const object = creatableDaemonSet(ds, harness.managedKind);
  return harness.sim.store.create(daemonSetKey(harness.managedKind), object) as unknown as V1DaemonSet;
}

/** The DaemonSet as stored now. */
export function storedDaemonSet(harness: Harness, namespace: string, name: string): V1DaemonSet | undefined {
  return harness.sim.store.get(daemonSetKey(harness.managedKind), namespace, name) as unknown as
    | V1DaemonSet
    | undefined;
}

/** The pods controlled by the DaemonSet with `uid`, terminating ones included. */
export function podsOf(harness: Harness, uid: string): V1Pod[] {
  return (harness.sim.store.list('pods') as unknown as V1Pod[]).filter((pod) =>
    pod.metadata?.ownerReferences?.some((ref) => ref.controller && ref.uid === uid),
  );
}

/** The `daemonset` work message for `ds`. */
export function daemonSetMessage(ds: Readonly<V1DaemonSet>, at = new Date()): WorkMessage {
  const meta = ds.metadata ?? {};
  return {
    v: 1,
    kind: 'daemonset',
    cause: { type: 'resync', at: at.toISOString() },
    daemonSet: { namespace: meta.namespace ?? 'default', name: meta.name ?? '', uid: meta.uid ?? '' },
  };
}

/** The `node` work message for `name`. */
export function nodeMessage(name: string, at = new Date()): WorkMessage {
  return { v: 1, kind: 'node', cause: { type: 'resync', at: at.toISOString() }, node: { name } };
}

/** The unhinted `pair` work message for `ds` on `node`. */
export function pairMessage(ds: Readonly<V1DaemonSet>, node: string, at = new Date()): WorkMessage {
  const meta = ds.metadata ?? {};
  return {
    v: 1,
    kind: 'pair',
    cause: { type: 'resync', at: at.toISOString() },
    daemonSet: { namespace: meta.namespace ?? 'default', name: meta.name ?? '', uid: meta.uid ?? '' },
    node: { name: node },
  };
}

/** The nodes the live (non-terminating) pods of the DaemonSet `uid` are for, sorted. */
export function placementOf(harness: Harness, uid: string): string[] {
  return podsOf(harness, uid)
    .filter((pod) => !pod.metadata?.deletionTimestamp)
    .map((pod) => targetNodeName(pod) ?? '?')
    .sort();
}

/** True when every live pod of the DaemonSet `uid` is bound, Running and Ready. */
export function allReady(harness: Harness, uid: string): boolean {
  return podsOf(harness, uid)
    .filter((pod) => !pod.metadata?.deletionTimestamp)
    .every(
      (pod) =>
        pod.status?.phase === 'Running' &&
        pod.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
    );
}

/** Replaces the stored DaemonSet with `edit` applied (an update: validation, generation bump). */
export function updateDaemonSet(
  harness: Harness,
  namespace: string,
  name: string,
  edit: (ds: V1DaemonSet) => void,
): V1DaemonSet {
  const key = daemonSetKey(harness.managedKind);
  const current = harness.sim.store.get(key, namespace, name) as unknown as V1DaemonSet;
  edit(current);
  return harness.sim.store.update(key, current as unknown as KubeObject) as unknown as V1DaemonSet;
}

/** True when the pod is Ready. */
export function isReady(pod: Readonly<V1Pod>): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/**
 * Sends a `daemonset` message every few hundred milliseconds — what the router's status refreshes
 * do while pods change — until `done` holds, then waits for the queues to be quiet; rejects after
 * `timeoutMs`.
 */
export async function resyncUntil(
  harness: Harness,
  ds: Readonly<V1DaemonSet>,
  what: string,
  done: () => boolean,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not done after ${timeoutMs} ms of resyncs: ${what}`);
    await harness.send(daemonSetMessage(ds));
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  await harness.quiet();
}
