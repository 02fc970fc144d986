import type { V1Container, V1PodSpec, V1PodTemplateSpec } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { type InPlaceChange, inPlaceChange } from '../../../lib/core/in-place/in-place-change.ts';

const agent: V1Container = {
  name: 'agent',
  image: 'agent:1',
  env: [{ name: 'LEVEL', value: 'info' }],
  resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { memory: '128Mi' } },
};
const sidecar: V1Container = { name: 'sidecar', image: 'sidecar:1' };
const init: V1Container = { name: 'init', image: 'init:1', command: ['setup'] };

interface TemplateOptions {
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
  readonly agent?: Partial<V1Container>;
  readonly containers?: V1Container[];
  readonly spec?: Partial<V1PodSpec>;
}

/** The template of revision 1, changed by `options`: app=agent, containers agent and sidecar, one init container. */
function aTemplate(options: TemplateOptions = {}): V1PodTemplateSpec {
  return {
    metadata: {
      labels: { app: 'agent', ...options.labels },
      ...(options.annotations ? { annotations: options.annotations } : {}),
    },
    spec: {
      initContainers: [init],
      containers: options.containers ?? [{ ...agent, ...options.agent }, sidecar],
      ...options.spec,
    },
  };
}

const noMetadata = { labels: { set: {}, remove: [] }, annotations: { set: {}, remove: [] } };
const recreate = (reason: string): InPlaceChange => ({ type: 'recreate', reason });
const guaranteed = { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } };

describe('inPlaceChange', () => {
  const base = aTemplate();
  const cases: [string, V1PodTemplateSpec, V1PodTemplateSpec, InPlaceChange][] = [
    [
      'an image change',
      base,
      aTemplate({ agent: { image: 'agent:2' } }),
      { type: 'images', containers: [{ name: 'agent', image: 'agent:2' }], ...noMetadata },
    ],
    [
      'two images and a label',
      base,
      aTemplate({
        labels: { version: '2' },
        containers: [
          { ...agent, image: 'agent:2' },
          { ...sidecar, image: 'sidecar:2' },
        ],
      }),
      {
        type: 'images',
        containers: [
          { name: 'agent', image: 'agent:2' },
          { name: 'sidecar', image: 'sidecar:2' },
        ],
        labels: { set: { version: '2' }, remove: [] },
        annotations: { set: {}, remove: [] },
      },
    ],
    [
      'a cpu request change',
      base,
      aTemplate({ agent: { resources: { ...agent.resources, requests: { cpu: '250m', memory: '64Mi' } } } }),
      {
        type: 'resources',
        containers: [
          {
            name: 'agent',
            resources: { requests: { cpu: '250m', memory: '64Mi' }, limits: { memory: '128Mi' } },
          },
        ],
        ...noMetadata,
      },
    ],
    [
      'a resources change with a label',
      base,
      aTemplate({
        labels: { tier: 'node' },
        agent: { resources: { ...agent.resources, requests: { cpu: '1', memory: '64Mi' } } },
      }),
      {
        type: 'resources',
        containers: [
          {
            name: 'agent',
            resources: { requests: { cpu: '1', memory: '64Mi' }, limits: { memory: '128Mi' } },
          },
        ],
        labels: { set: { tier: 'node' }, remove: [] },
        annotations: { set: {}, remove: [] },
      },
    ],
    [
      'an image and resources',
      base,
      aTemplate({ agent: { image: 'agent:2', resources: { requests: { cpu: '1' } } } }),
      recreate('images and resources changed together'),
    ],
    [
      'an env change',
      base,
      aTemplate({ agent: { env: [{ name: 'LEVEL', value: 'debug' }] } }),
      recreate('spec.containers[agent].env changed'),
    ],
    [
      'an env change with an image change',
      base,
      aTemplate({ agent: { image: 'agent:2', env: [] } }),
      recreate('spec.containers[agent].env changed'),
    ],
    [
      "an init container's image",
      base,
      { ...base, spec: { ...base.spec, initContainers: [{ ...init, image: 'init:2' }] } as V1PodSpec },
      recreate('init container image changed'),
    ],
    [
      "an init container's command",
      base,
      { ...base, spec: { ...base.spec, initContainers: [{ ...init, command: ['other'] }] } as V1PodSpec },
      recreate('spec.initContainers[init].command changed'),
    ],
    [
      'a container added',
      base,
      aTemplate({ containers: [agent, sidecar, { name: 'more', image: 'more:1' }] }),
      recreate('container added or removed'),
    ],
    ['a container removed', base, aTemplate({ containers: [agent] }), recreate('container added or removed')],
    [
      'containers reordered',
      base,
      aTemplate({ containers: [sidecar, agent] }),
      recreate('containers reordered'),
    ],
    [
      'a label only',
      base,
      aTemplate({ labels: { app: 'agent', version: '2' } }),
      {
        type: 'images',
        containers: [],
        labels: { set: { version: '2' }, remove: [] },
        annotations: noMetadata.annotations,
      },
    ],
    [
      'a label removed',
      aTemplate({ labels: { version: '1' } }),
      base,
      {
        type: 'images',
        containers: [],
        labels: { set: {}, remove: ['version'] },
        annotations: noMetadata.annotations,
      },
    ],
    [
      'an annotation only, one added and one changed',
      aTemplate({ annotations: { owner: 'a' } }),
      aTemplate({ annotations: { owner: 'b', 'example.com/note': 'x' } }),
      {
        type: 'images',
        containers: [],
        labels: noMetadata.labels,
        annotations: { set: { owner: 'b', 'example.com/note': 'x' }, remove: [] },
      },
    ],
    [
      'a resizePolicy change',
      base,
      aTemplate({ agent: { resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'RestartContainer' }] } }),
      recreate('spec.containers[agent].resizePolicy changed'),
    ],
    ['a pod field', base, aTemplate({ spec: { hostNetwork: true } }), recreate('spec.hostNetwork changed')],
    [
      'template metadata other than labels and annotations',
      base,
      { ...base, metadata: { ...base.metadata, finalizers: ['example.com/keep'] } },
      recreate('metadata.finalizers changed'),
    ],
    [
      'an AppArmor annotation',
      base,
      aTemplate({
        annotations: { 'container.apparmor.security.beta.kubernetes.io/agent': 'runtime/default' },
      }),
      recreate('metadata.annotations[container.apparmor.security.beta.kubernetes.io/agent] changed'),
    ],
    [
      'a label a running container reads through its env',
      aTemplate({ labels: { zone: 'a' }, containers: [agent, { ...sidecar, env: [labelEnv('zone')] }] }),
      aTemplate({ labels: { zone: 'b' }, containers: [agent, { ...sidecar, env: [labelEnv('zone')] }] }),
      recreate('metadata.labels[zone] changed and spec.containers[sidecar].env reads it'),
    ],
    [
      'a label read by a container whose image changes (it restarts and reads it again)',
      aTemplate({ labels: { zone: 'a' }, containers: [agent, { ...sidecar, env: [labelEnv('zone')] }] }),
      aTemplate({
        labels: { zone: 'b' },
        containers: [agent, { ...sidecar, image: 'sidecar:2', env: [labelEnv('zone')] }],
      }),
      {
        type: 'images',
        containers: [{ name: 'sidecar', image: 'sidecar:2' }],
        labels: { set: { zone: 'b' }, remove: [] },
        annotations: noMetadata.annotations,
      },
    ],
  ];
  it.each(cases)('%s', (_, old, next, expected) => {
    expect(inPlaceChange(old, next)).toEqual(expected);
  });

  it.each<[string, V1PodTemplateSpec]>([
    [
      'keys in another order',
      {
        spec: {
          containers: [
            {
              resources: { limits: { memory: '128Mi' }, requests: { memory: '64Mi', cpu: '100m' } },
              env: agent.env,
              image: 'agent:1',
              name: 'agent',
            },
            { image: 'sidecar:1', name: 'sidecar' },
          ],
          initContainers: [{ command: ['setup'], image: 'init:1', name: 'init' }],
        },
        metadata: { labels: { app: 'agent' } },
      },
    ],
    [
      'nulls, empty lists and empty maps for unset members (a revision written by the API server)',
      {
        metadata: { labels: { app: 'agent' }, annotations: {}, creationTimestamp: null as never },
        spec: {
          initContainers: [{ ...init, env: [] }],
          containers: [
            { ...agent, volumeMounts: [], ports: undefined },
            { ...sidecar, resources: {} },
          ],
          tolerations: [],
          nodeSelector: {},
        },
      },
    ],
    [
      'quantities written another way',
      aTemplate({
        agent: {
          resources: { requests: { cpu: '0.1', memory: '65536Ki' }, limits: { memory: '134217728' } },
        },
      }),
    ],
  ])('sees no change across %s: only the revision label moves', (_, same) => {
    expect(inPlaceChange(base, same)).toEqual({ type: 'images', containers: [], ...noMetadata });
  });

  it.each<[string, V1PodTemplateSpec, V1PodTemplateSpec, string]>([
    [
      'a QoS class change',
      aTemplate({ containers: [{ ...agent, resources: guaranteed }], spec: { initContainers: [] } }),
      aTemplate({
        containers: [{ ...agent, resources: { ...guaranteed, requests: { cpu: '500m', memory: '1Gi' } } }],
        spec: { initContainers: [] },
      }),
      'the QoS class would change (Guaranteed to Burstable)',
    ],
    [
      'a lower memory limit',
      base,
      aTemplate({ agent: { resources: { ...agent.resources, limits: { memory: '96Mi' } } } }),
      'spec.containers[agent]: a memory limit cannot be lowered unless its resizePolicy is RestartContainer',
    ],
    [
      'a new memory limit',
      aTemplate({ agent: { resources: { requests: { cpu: '1' } } } }),
      aTemplate({ agent: { resources: { requests: { cpu: '1' }, limits: { memory: '1Gi' } } } }),
      'spec.containers[agent]: a memory limit cannot be added unless its resizePolicy is RestartContainer',
    ],
    [
      'a limit removed',
      base,
      aTemplate({ agent: { resources: { requests: { cpu: '100m', memory: '64Mi' } } } }),
      'spec.containers[agent]: resource limits cannot be removed',
    ],
    [
      'ephemeral storage',
      base,
      aTemplate({
        agent: { resources: { ...agent.resources, limits: { memory: '128Mi', 'ephemeral-storage': '1Gi' } } },
      }),
      'spec.containers[agent]: only cpu and memory can be resized (limits.ephemeral-storage changed)',
    ],
    [
      'pod-level resources',
      aTemplate({ spec: { resources: { limits: { cpu: '2' } } } }),
      aTemplate({
        spec: { resources: { limits: { cpu: '2' } } },
        agent: { resources: { requests: { cpu: '1' } } },
      }),
      'pods with pod-level resources cannot be resized',
    ],
  ])('recreates for resources pods/resize refuses: %s', (_, old, next, why) => {
    expect(inPlaceChange(old, next)).toEqual(recreate(`resources cannot be resized: ${why}`));
  });

  it('resizes a lower memory limit when the memory resizePolicy restarts the container', () => {
    const policy = [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }];
    const lower = { ...agent.resources, limits: { memory: '96Mi' } };
    const change = inPlaceChange(
      aTemplate({ agent: { resizePolicy: policy } }),
      aTemplate({ agent: { resizePolicy: policy, resources: lower } }),
    );
    expect(change).toEqual({
      type: 'resources',
      containers: [{ name: 'agent', resources: lower }],
      ...noMetadata,
    });
  });
});

function labelEnv(key: string) {
  return { name: 'ZONE', valueFrom: { fieldRef: { fieldPath: `metadata.labels['${key}']` } } };
}
