import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  IN_PLACE_STATE_ANNOTATION,
  imagesState,
  inPlaceStateOf,
  pendingInPlaceUpdate,
  resizeState,
} from '../../../lib/core/in-place/in-place-state.ts';
import { isPodReady } from '../../../lib/core/pod-availability.ts';

/** A ready pod of revision `hash` whose `agent` container runs as `containerID`, with `state` annotated. */
function pod(options: {
  hash?: string;
  containerID?: string;
  containerReady?: boolean;
  state?: unknown;
  conditions?: readonly { type: string; status: string; reason?: string; message?: string }[];
}): V1Pod {
  const { hash = 'new', containerID = 'sim://b', containerReady = true, state } = options;
  return {
    metadata: {
      name: 'agent-x',
      labels: { 'controller-revision-hash': hash },
      ...(state === undefined
        ? {}
        : {
            annotations: {
              [IN_PLACE_STATE_ANNOTATION]: typeof state === 'string' ? state : JSON.stringify(state),
            },
          }),
    },
    spec: { containers: [{ name: 'agent', image: 'agent:2', resources: { requests: { cpu: '100m' } } }] },
    status: {
      conditions: [{ type: 'Ready', status: 'True' }, ...(options.conditions ?? [])],
      containerStatuses: [
        {
          name: 'agent',
          containerID,
          ready: containerReady,
          image: 'agent:2',
          imageID: '',
          restartCount: 1,
          resources: { requests: { cpu: '100m' } },
        },
      ],
    },
  } as V1Pod;
}

describe('in-place update state', () => {
  it.each([
    ['no update', {}, undefined],
    [
      'the container restarted under another ID and is ready',
      { state: { revision: 'new', containers: { agent: 'sim://a' } } },
      undefined,
    ],
    [
      'the container has not restarted yet',
      { containerID: 'sim://a', state: { revision: 'new', containers: { agent: 'sim://a' } } },
      'container agent has not restarted with its new image yet',
    ],
    [
      'the restarted container is not ready yet',
      { containerReady: false, state: { revision: 'new', containers: { agent: 'sim://a' } } },
      'container agent is not ready after its restart',
    ],
    [
      'a state of another revision than the pod now has',
      { hash: 'newer', containerID: 'sim://a', state: { revision: 'new', containers: { agent: 'sim://a' } } },
      undefined,
    ],
    ['a malformed state', { containerID: 'sim://a', state: 'not json' }, undefined],
    ['a resize the kubelet applied', { state: { revision: 'new', resize: true } }, undefined],
    [
      'a resize still in progress',
      {
        state: { revision: 'new', resize: true },
        conditions: [{ type: 'PodResizeInProgress', status: 'True' }],
      },
      'resize in-progress: the kubelet is applying the resize',
    ],
  ] as const)('%s', (_name, options, pending) => {
    const subject = pod(options);
    expect(pendingInPlaceUpdate(subject)).toBe(pending);
    // A pending update makes the pod not ready, whatever its Ready condition says.
    expect(isPodReady(subject)).toBe(pending === undefined);
  });

  it('records the container IDs an images update replaces, or the resize', () => {
    const before = pod({ containerID: 'sim://a' });
    expect(imagesState(before, ['agent', 'absent'], 'new')).toEqual({
      revision: 'new',
      containers: { agent: 'sim://a', absent: '' },
    });
    expect(resizeState('new')).toEqual({ revision: 'new', resize: true });
    expect(inPlaceStateOf(pod({ state: { revision: 'new', resize: true, extra: 1 } }))).toEqual({
      revision: 'new',
      resize: true,
    });
  });
});
