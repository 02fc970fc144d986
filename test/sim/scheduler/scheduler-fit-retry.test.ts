import type { V1Pod } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { aNode, aPod } from '../../support/builders.ts';
import { eventually, type Harness, startHarness, stripServerFields } from '../../support/runtime-harness.ts';

let harness: Harness | undefined;
afterEach(() => harness?.stop());

/** An unbound pod requesting `cpu`. */
function wants(name: string, cpu: string): V1Pod {
  const pod = aPod(name, { phase: 'Pending' });
  delete pod.status;
  pod.spec = { containers: [{ name: 'main', image: 'busybox', resources: { requests: { cpu } } }] };
  return pod;
}

const scheduledStatus = (pod: V1Pod | undefined) =>
  pod?.status?.conditions?.find((c) => c.type === 'PodScheduled')?.status;

describe('the scheduler retries a pod that did not fit when room appears', () => {
  it('binds it once its node reports a larger allocatable', async () => {
    harness = startHarness([aNode('n1')]);
    harness.store.create('pods', stripServerFields(wants('p', '6')));
    const pending = await eventually(
      () => harness?.pod('p'),
      (p) => scheduledStatus(p) === 'False',
    );
    expect(pending?.status?.conditions?.[0]?.message).toMatch(
      /^0\/1 nodes are available: 1 Insufficient cpu\./,
    );
    harness.store.mutate(
      'nodes',
      undefined,
      'n1',
      (node) => {
        const status = node.status as { allocatable: Record<string, string> };
        status.allocatable = { ...status.allocatable, cpu: '8' };
      },
      { subresource: 'status' },
    );
    const bound = await eventually(
      () => harness?.pod('p'),
      (p) => Boolean(p?.spec?.nodeName),
    );
    expect([bound?.spec?.nodeName, scheduledStatus(bound)]).toEqual(['n1', 'True']);
  });

  it('binds it once a pod that ended on the node frees its requests', async () => {
    harness = startHarness([aNode('n1')]);
    harness.store.create('pods', stripServerFields(wants('first', '3')));
    await eventually(
      () => harness?.pod('first'),
      (p) => Boolean(p?.spec?.nodeName),
    );
    harness.store.create('pods', stripServerFields(wants('second', '3')));
    await eventually(
      () => harness?.pod('second'),
      (p) => scheduledStatus(p) === 'False',
    );
    harness.store.mutate(
      'pods',
      'default',
      'first',
      (pod) => {
        (pod.status as { phase: string }).phase = 'Succeeded';
      },
      { subresource: 'status' },
    );
    const bound = await eventually(
      () => harness?.pod('second'),
      (p) => Boolean(p?.spec?.nodeName),
    );
    expect(bound?.spec?.nodeName).toBe('n1');
  });
});
