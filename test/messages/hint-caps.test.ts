import { describe, expect, it } from 'vitest';
import { daemonPodFor } from '../../lib/core/daemon-pod.ts';
import type { DaemonSet } from '../../lib/core/daemon-set.ts';
import {
  jsonBytes,
  MAX_PAIR_HINTS_BYTES,
  MAX_POD_HINT_LABELS,
  MAX_POD_HINT_LABELS_BYTES,
  readsInsteadOf,
} from '../../lib/messages/hint-caps.ts';
import { podHintOf, podHintSchema } from '../../lib/messages/pair-hints.ts';
import { aDaemonSet, aPod } from '../support/builders.ts';

const ds = aDaemonSet('wide', { uid: 'uid-wide' });

/** `count` labels of `valueLength`-character values, as the outside probe's DaemonSet template had. */
function manyLabels(count: number, valueLength = 63): Record<string, string> {
  return Object.fromEntries(
    Array.from({ length: count }, (_, i) => [
      `${'x'.repeat(40)}.example.com/label-${i}`,
      'v'.repeat(valueLength),
    ]),
  );
}

/** A daemon pod of a DaemonSet whose template carries `labels`, as everynode creates it. */
function daemonPodWith(labels: Record<string, string>) {
  const wide = structuredClone(ds) as DaemonSet;
  if (wide.spec) wide.spec.template.metadata = { ...wide.spec.template.metadata, labels };
  const pod = daemonPodFor(wide, 'n1', 'hash1');
  pod.metadata = { ...pod.metadata, uid: 'p1', resourceVersion: '5' };
  return pod;
}

describe('pod hint caps', () => {
  it('a pod of 2,000 template labels is hinted with the labels everynode sets only, marked capped', () => {
    const pod = daemonPodWith(manyLabels(2_000));
    expect(jsonBytes(pod.metadata?.labels)).toBeGreaterThan(200_000);
    const hint = podHintOf(pod);
    expect(hint.capped).toBe(true);
    const own = pod.metadata?.labels ?? {};
    expect(hint.labels).toEqual({
      'controller-revision-hash': 'hash1',
      'everynode.dev/daemonset-uid': 'uid-wide',
      'everynode.dev/node': own['everynode.dev/node'],
    });
    expect(jsonBytes(hint)).toBeLessThan(2_048);
    expect(podHintSchema.parse(JSON.parse(JSON.stringify(hint)))).toEqual(hint);
    expect(readsInsteadOf(hint)).toBe(true);
  });

  it('caps the count of labels and their bytes alike', () => {
    const short = Object.fromEntries(
      Array.from({ length: MAX_POD_HINT_LABELS + 1 }, (_, i) => [`l${i}`, 'v']),
    );
    const many = podHintOf(aPod('p', { owner: ds, labels: short }));
    expect(jsonBytes(short)).toBeLessThan(MAX_POD_HINT_LABELS_BYTES);
    expect(many.capped).toBe(true);
    const long = podHintOf(aPod('p', { owner: ds, labels: manyLabels(60) }));
    expect(long.capped).toBe(true);
    expect(long.labels).toBeUndefined();
  });

  it("drops everynode's annotations past their cap, marked capped; a pod within the caps goes whole", () => {
    const big = aPod('p', { owner: ds, annotations: { 'everynode.dev/note': 'x'.repeat(200_000) } });
    const hint = podHintOf(big);
    expect(hint.annotations).toBeUndefined();
    expect(hint.capped).toBe(true);
    const small = aPod('p', {
      owner: ds,
      labels: manyLabels(20),
      annotations: { 'everynode.dev/failure-backoff': '1/2' },
    });
    const whole = podHintOf(small);
    expect(whole.capped).toBeUndefined();
    expect(whole.labels).toEqual(small.metadata?.labels);
    expect(whole.annotations).toEqual({ 'everynode.dev/failure-backoff': '1/2' });
    expect(readsInsteadOf(whole)).toBe(false);
  });

  it('pair hints are bounded like node hints', () => {
    expect(MAX_PAIR_HINTS_BYTES).toBeLessThan(64 * 1024);
  });
});
