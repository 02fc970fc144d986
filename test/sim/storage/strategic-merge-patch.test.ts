import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PatchError } from '../../../lib/sim/storage/patch-error.ts';
import {
  strategicMergePatch,
  supportsStrategicMergePatch,
} from '../../../lib/sim/storage/strategic-merge-patch.ts';

const fluentd = parse(
  readFileSync(new URL('../../fixtures/fluentd-elasticsearch.yaml', import.meta.url), 'utf8'),
);

type Json = Record<string, unknown>;
const podSpecOf = (ds: unknown) => (((ds as Json).spec as Json).template as Json).spec as Json;
const container = (name: string, extra: Json = {}) => ({ name, image: `${name}:1`, ...extra });
const pod = (spec: Json) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec });

describe('strategicMergePatch on a DaemonSet', () => {
  it('applies the patch kubectl apply sends for a new image and keeps everything else', () => {
    // Captured from kubectl 1.33 `apply` of the fixture with only the image changed.
    const patch = {
      metadata: {},
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'fluentd-elasticsearch' }],
            containers: [
              { image: 'quay.io/fluentd_elasticsearch/fluentd:v2.6.0', name: 'fluentd-elasticsearch' },
            ],
          },
        },
      },
    };
    const result = strategicMergePatch(fluentd, patch, 'apps/daemonsets');
    const expected = structuredClone(fluentd);
    podSpecOf(expected).containers = [
      {
        ...(podSpecOf(fluentd).containers as Json[])[0],
        image: 'quay.io/fluentd_elasticsearch/fluentd:v2.6.0',
      },
    ];
    expect(result).toEqual(expected);
    expect(podSpecOf(fluentd).containers).toHaveLength(1);
    expect(((podSpecOf(fluentd).containers as Json[])[0] as Json).image).toBe(
      'quay.io/fluentd_elasticsearch/fluentd:v2.5.2',
    );
  });

  it('replaces the whole template on the rollout undo patch ($patch: replace)', () => {
    // Captured from kubectl 1.33 `rollout undo daemonset`: the ControllerRevision data as the patch.
    const template = {
      $patch: 'replace',
      metadata: { labels: { name: 'fluentd-elasticsearch' } },
      spec: { containers: [{ image: 'fluentd:old', name: 'fluentd-elasticsearch' }] },
    };
    const result = strategicMergePatch(fluentd, { spec: { template } }, 'apps/daemonsets') as Json;
    expect((result.spec as Json).template).toEqual({
      metadata: { labels: { name: 'fluentd-elasticsearch' } },
      spec: { containers: [{ image: 'fluentd:old', name: 'fluentd-elasticsearch' }] },
    });
    expect((result.spec as Json).selector).toEqual({ matchLabels: { name: 'fluentd-elasticsearch' } });
    expect((result.metadata as Json).labels).toEqual({ 'k8s-app': 'fluentd-logging' });
  });
});

interface Case {
  name: string;
  spec: Json;
  patch: Json;
  expected: Json;
}

const podCases: Case[] = [
  {
    name: 'merges containers by name, appending new ones in the $setElementOrder kubectl sends',
    spec: { containers: [container('a'), container('b')] },
    patch: {
      '$setElementOrder/containers': [{ name: 'a' }, { name: 'b' }, { name: 'c' }],
      containers: [{ name: 'b', image: 'b:2' }, container('c')],
    },
    expected: { containers: [container('a'), { name: 'b', image: 'b:2' }, container('c')] },
  },
  {
    name: 'deletes a container with $patch: delete',
    spec: { containers: [container('a'), container('b')] },
    patch: { containers: [{ name: 'a', $patch: 'delete' }] },
    expected: { containers: [container('b')] },
  },
  {
    name: 'merges env by name and volumeMounts by mountPath inside a container',
    spec: {
      containers: [
        container('a', { env: [{ name: 'X', value: '1' }], volumeMounts: [{ name: 'v', mountPath: '/v' }] }),
      ],
    },
    patch: {
      containers: [
        { name: 'a', env: [{ name: 'Y', value: '2' }], volumeMounts: [{ mountPath: '/v', readOnly: true }] },
      ],
    },
    expected: {
      containers: [
        container('a', {
          // Without $setElementOrder upstream puts patch items ahead of server-only ones.
          env: [
            { name: 'Y', value: '2' },
            { name: 'X', value: '1' },
          ],
          volumeMounts: [{ name: 'v', mountPath: '/v', readOnly: true }],
        }),
      ],
    },
  },
  {
    name: 'merges ports by containerPort',
    spec: { containers: [container('a', { ports: [{ containerPort: 80, name: 'http' }] })] },
    patch: {
      containers: [{ name: 'a', ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 443 }] }],
    },
    expected: {
      containers: [
        container('a', {
          ports: [{ containerPort: 80, name: 'http', protocol: 'TCP' }, { containerPort: 443 }],
        }),
      ],
    },
  },
  {
    name: 'replaces tolerations, which have no merge key',
    spec: { tolerations: [{ key: 'a', operator: 'Exists' }] },
    patch: { tolerations: [{ key: 'b', operator: 'Exists' }] },
    expected: { tolerations: [{ key: 'b', operator: 'Exists' }] },
  },
  {
    name: 'deletes a field set to null and merges maps',
    spec: { nodeSelector: { a: '1', b: '2' }, hostNetwork: true },
    patch: { nodeSelector: { a: null, c: '3' }, hostNetwork: null },
    expected: { nodeSelector: { b: '2', c: '3' } },
  },
  {
    name: 'clears volume source keys missing from $retainKeys',
    spec: { volumes: [{ name: 'v', hostPath: { path: '/x' } }] },
    patch: { volumes: [{ name: 'v', $retainKeys: ['emptyDir', 'name'], emptyDir: {} }] },
    expected: { volumes: [{ name: 'v', emptyDir: {} }] },
  },
  {
    name: 'orders containers by $setElementOrder',
    spec: { containers: [container('a'), container('b'), container('c')] },
    patch: { '$setElementOrder/containers': [{ name: 'c' }, { name: 'a' }, { name: 'b' }] },
    expected: { containers: [container('c'), container('a'), container('b')] },
  },
  {
    name: 'replaces a list with a $patch: replace element',
    spec: { containers: [container('a'), container('b')] },
    patch: { containers: [container('z'), { $patch: 'replace' }] },
    expected: { containers: [container('z')] },
  },
  {
    name: 'replaces a map with $patch: replace',
    spec: { securityContext: { runAsUser: 1, fsGroup: 2 } },
    patch: { securityContext: { $patch: 'replace', runAsGroup: 3 } },
    expected: { securityContext: { runAsGroup: 3 } },
  },
  {
    name: 'adds a new field without its nulls or directives',
    spec: {},
    patch: { securityContext: { runAsUser: 1, fsGroup: null, $retainKeys: ['runAsUser'] } },
    expected: { securityContext: { runAsUser: 1 } },
  },
];

describe('strategicMergePatch on a Pod', () => {
  it.each(podCases)('$name', ({ spec, patch, expected }) => {
    const result = strategicMergePatch(pod(spec), { spec: patch }, 'pods') as Json;
    expect(result.spec).toEqual(expected);
  });

  it('removes finalizers with $deleteFromPrimitiveList and merges new ones', () => {
    const original = { ...pod({}), metadata: { name: 'p', finalizers: ['a', 'b'] } };
    const patch = { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'], finalizers: ['c'] } };
    const result = strategicMergePatch(original, patch, 'pods') as Json;
    // Upstream puts patch items not in the live order first (mergeSortedSlice), so 'c' leads.
    expect((result.metadata as Json).finalizers).toEqual(['c', 'b']);
  });

  it('merges status conditions by type', () => {
    const original = {
      ...pod({}),
      status: {
        conditions: [
          { type: 'Ready', status: 'False' },
          { type: 'PodScheduled', status: 'True' },
        ],
      },
    };
    const result = strategicMergePatch(
      original,
      { status: { conditions: [{ type: 'Ready', status: 'True' }] } },
      'pods',
    ) as Json;
    expect((result.status as Json).conditions).toEqual([
      { type: 'Ready', status: 'True' },
      { type: 'PodScheduled', status: 'True' },
    ]);
  });
});

const errorCases: { name: string; patch: Json; status: number }[] = [
  {
    name: 'a list element without its merge key',
    patch: { spec: { containers: [{ image: 'x' }] } },
    status: 500,
  },
  {
    name: 'an unknown $patch directive',
    patch: { spec: { securityContext: { $patch: 'bogus' } } },
    status: 500,
  },
  { name: 'a $retainKeys that is not a list', patch: { spec: { $retainKeys: 'x' } }, status: 400 },
  {
    name: 'a patched key missing from $retainKeys',
    patch: { spec: { $retainKeys: ['a'], b: 1 } },
    status: 400,
  },
];

describe('strategicMergePatch errors', () => {
  it.each(errorCases)('answers $status for $name', ({ patch, status }) => {
    const original = pod({ containers: [container('a')], securityContext: { runAsUser: 1 } });
    const attempt = () => strategicMergePatch(original, patch, 'pods');
    expect(attempt).toThrow(PatchError);
    expect(() => attempt()).toThrow(expect.objectContaining({ status }));
  });

  it('answers 422 for a list of lists under a merge strategy', () => {
    const original = { ...pod({}), metadata: { name: 'p', finalizers: [['a']] } };
    expect(() => strategicMergePatch(original, { metadata: { finalizers: [['b']] } }, 'pods')).toThrow(
      expect.objectContaining({ status: 422, reason: 'Invalid' }),
    );
  });

  it('refuses custom resources with 415, as the apiserver does for CRDs', () => {
    expect(supportsStrategicMergePatch('everynode.dev/daemonsets')).toBe(false);
    expect(supportsStrategicMergePatch('apps/daemonsets')).toBe(true);
    expect(() => strategicMergePatch({}, {}, 'everynode.dev/daemonsets')).toThrow(
      expect.objectContaining({ status: 415, reason: 'UnsupportedMediaType' }),
    );
  });
});
