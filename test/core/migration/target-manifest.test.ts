import { describe, expect, it } from 'vitest';
import {
  LAST_APPLIED_ANNOTATION,
  MIGRATED_FROM_ANNOTATION,
  migratedFrom,
  targetManifest,
} from '../../../lib/core/migration/target-manifest.ts';

const spec = {
  selector: { matchLabels: { app: 'agent' } },
  template: {
    metadata: { labels: { app: 'agent' } },
    spec: { containers: [{ name: 'a', image: 'busybox' }] },
  },
};

describe('targetManifest', () => {
  it('keeps name, labels, annotations and spec; drops the source kind’s bookkeeping; names the source', () => {
    const source = {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: {
        name: 'agent',
        namespace: 'ns',
        uid: 'u1',
        resourceVersion: '9',
        labels: { team: 'x' },
        annotations: {
          note: 'kept',
          'everynode.dev/partition': '2',
          [LAST_APPLIED_ANNOTATION]: '{}',
          'deprecated.daemonset.template.generation': '4',
        },
      },
      spec,
      status: { numberReady: 3 },
    };
    const { manifest, changes } = targetManifest(source, 'everynode.dev/v1', 'u1');
    expect(manifest).toEqual({
      apiVersion: 'everynode.dev/v1',
      kind: 'DaemonSet',
      metadata: {
        name: 'agent',
        namespace: 'ns',
        labels: { team: 'x' },
        annotations: {
          note: 'kept',
          'everynode.dev/partition': '2',
          [MIGRATED_FROM_ANNOTATION]: '{"apiVersion":"apps/v1","uid":"u1"}',
        },
      },
      spec,
    });
    expect(changes).toHaveLength(2);
    expect(migratedFrom(manifest)).toEqual({ apiVersion: 'apps/v1', uid: 'u1' });
  });

  it('on the way to apps/v1 turns everynode-only fields into the annotations that carry them', () => {
    const source = {
      metadata: { name: 'agent', namespace: 'ns', annotations: { [MIGRATED_FROM_ANNOTATION]: 'old' } },
      spec: {
        ...spec,
        updateStrategy: {
          type: 'RollingUpdate',
          rollingUpdate: {
            maxUnavailable: 1,
            partition: 2,
            paused: true,
            selector: { matchLabels: { z: 'a' } },
            steps: [{ nodes: 1 }, { pause: {} }],
            inPlace: 'IfPossible',
          },
        },
        progressDeadlineSeconds: 600,
        nodeReadiness: { mode: 'Continuous', effect: 'NoSchedule' },
      },
    };
    const { manifest, changes } = targetManifest(source, 'apps/v1', 'u2');
    expect(manifest.spec).toEqual({
      ...spec,
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
    });
    expect((manifest.metadata as { annotations: unknown }).annotations).toEqual({
      'everynode.dev/partition': '2',
      'everynode.dev/paused': 'true',
      'everynode.dev/rollout-selector': '{"matchLabels":{"z":"a"}}',
      'everynode.dev/progress-deadline-seconds': '600',
      'everynode.dev/node-readiness': 'Continuous',
      'everynode.dev/rollout-steps': '[{"nodes":1},{"pause":{}}]',
      'everynode.dev/in-place': 'IfPossible',
      [MIGRATED_FROM_ANNOTATION]: '{"apiVersion":"everynode.dev/v1","uid":"u2"}',
    });
    expect(changes).toHaveLength(7);
    expect(source.spec.progressDeadlineSeconds).toBe(600);
  });

  it('reads no source from an annotation that is not its JSON', () => {
    expect(migratedFrom({ metadata: { annotations: { [MIGRATED_FROM_ANNOTATION]: 'x' } } })).toBeUndefined();
  });
});
