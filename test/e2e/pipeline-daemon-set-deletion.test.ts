import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlBinary, type PipelineWorld, startPipelineWorld } from '../support/pipeline-harness.ts';
import { getAsAdmin } from '../support/secured-sim.ts';

/** A pod ADDED on a watch, and when the test saw it. */
interface Added {
  readonly name: string;
  readonly at: number;
}

/** Watches the pods of `namespace` over HTTP(S) from `resourceVersion`, as any client would. */
function watchPods(world: PipelineWorld, namespace: string, resourceVersion: string) {
  const added: Added[] = [];
  const abort = new AbortController();
  const path = `/api/v1/namespaces/${namespace}/pods?watch=1&resourceVersion=${resourceVersion}`;
  const done = (async () => {
    const response = await getAsAdmin(world.sim, path, abort.signal);
    const decoder = new TextDecoder();
    let buffered = '';
    for await (const chunk of response as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true });
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines.filter((l) => l.trim() !== '')) {
        const event = JSON.parse(line) as { type: string; object: { metadata: { name: string } } };
        if (event.type === 'ADDED') added.push({ name: event.object.metadata.name, at: Date.now() });
      }
    }
  })().catch((error: unknown) => {
    if (!abort.signal.aborted) throw error;
  });
  return {
    added,
    stop: async () => {
      abort.abort();
      await done;
    },
  };
}

function agent(namespace: string) {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent', namespace },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      template: {
        metadata: { labels: { app: 'agent' } },
        spec: { tolerations: [{ operator: 'Exists' }], containers: [{ name: 'agent', image: 'agent:1' }] },
      },
    },
  };
}

describe.runIf(kubectlBinary)('a deleted DaemonSet gets no new pods (apps/v1)', () => {
  let world: PipelineWorld;

  beforeAll(async () => {
    world = await startPipelineWorld({ managedKind: 'apps/v1', secured: true, nodes: 4 });
  });
  afterAll(async () => world.stop());

  it.each([
    { cascade: 'background', podsLeft: 0 },
    { cascade: 'foreground', podsLeft: 0 },
    { cascade: 'orphan', podsLeft: 4 },
  ])(
    'kubectl delete --cascade=$cascade: no pod created a second after it returned',
    async ({ cascade, podsLeft }) => {
      const namespace = `delete-${cascade}`;
      await world.kubectl(['create', 'namespace', namespace]);
      await world.kubectl(['apply', '-f', '-'], JSON.stringify(agent(namespace)));
      await world.until('the agent runs on every node', () => world.pods(namespace).length === 4);
      await world.quiet();
      const listed = JSON.parse(await world.kubectl(['get', 'pods', '-n', namespace, '-o', 'json'])) as {
        metadata: { resourceVersion: string };
      };
      const watch = watchPods(world, namespace, listed.metadata.resourceVersion);

      await world.kubectl(['delete', 'daemonset', 'agent', '-n', namespace, `--cascade=${cascade}`]);
      const returned = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      await world.quiet();
      await watch.stop();

      expect(watch.added.filter((pod) => pod.at > returned + 1_000)).toEqual([]);
      // Orphaned pods keep running without an owner; the others are collected with the DaemonSet.
      const live = () =>
        world.sim.store.list('pods', { namespace }).filter((pod) => !pod.metadata.deletionTimestamp);
      await world.until(`${podsLeft} agent pods are left`, () => live().length === podsLeft);
      expect(live().map((pod) => pod.metadata.ownerReferences ?? [])).toEqual(Array(podsLeft).fill([]));
    },
  );
});
