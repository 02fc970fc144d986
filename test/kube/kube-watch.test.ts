import { describe, expect, it } from 'vitest';
import { GoneError } from '../../lib/kube/errors/kube-api-errors.ts';
import type { WatchEvent } from '../../lib/kube/kube-port.ts';
import { aNode, aPod } from '../support/builders.ts';
import { lastRequestOf, statusBody, useTinyApiServer } from './tiny-api-server.ts';
import { tinyKubePort } from './tiny-kube-port.ts';

const server = useTinyApiServer();

const lastRequest = () => lastRequestOf(server);

describe('watch', () => {
  async function collect<T>(
    events: AsyncIterable<WatchEvent<T>>,
  ): Promise<{ seen: WatchEvent<T>[]; error?: unknown }> {
    const seen: WatchEvent<T>[] = [];
    try {
      for await (const event of events) seen.push(event);
      return { seen };
    } catch (error) {
      return { seen, error };
    }
  }

  it('yields changes and bookmarks until the server ends the watch', async () => {
    server.answer = {
      status: 200,
      lines: [
        { type: 'ADDED', object: aNode('n1') },
        { type: 'BOOKMARK', object: { kind: 'Node', apiVersion: 'v1', metadata: { resourceVersion: '12' } } },
        { type: 'DELETED', object: { ...aNode('n2'), metadata: { name: 'n2', resourceVersion: '13' } } },
      ],
    };
    const { port, counter } = tinyKubePort(server.url);
    const { seen, error } = await collect(port.watch('nodes', { resourceVersion: '10', timeoutSeconds: 60 }));
    expect(error).toBeUndefined();
    expect(seen.map((e) => [e.type, e.resourceVersion])).toEqual([
      ['ADDED', '1'],
      ['BOOKMARK', '12'],
      ['DELETED', '13'],
    ]);
    const first = seen[0];
    expect(first?.type === 'ADDED' && first.object.metadata?.creationTimestamp).toBeInstanceOf(Date);
    expect(lastRequest().path).toBe('/api/v1/nodes');
    expect(Object.fromEntries(lastRequest().query)).toEqual({
      watch: 'true',
      allowWatchBookmarks: 'true',
      resourceVersion: '10',
      timeoutSeconds: '60',
    });
    expect(counter.snapshot().watch).toBe(1);
  });

  it('ends with GoneError when the resourceVersion is too old', async () => {
    server.answer = {
      status: 200,
      lines: [
        { type: 'ADDED', object: aPod('p1') },
        { type: 'ERROR', object: statusBody(410, 'Expired', 'too old resource version: 1 (5)') },
      ],
    };
    const { port } = tinyKubePort(server.url, { managedKind: 'apps/v1' });
    const { seen, error } = await collect(port.watch('pods', { resourceVersion: '1', namespace: 'ns' }));
    expect(seen).toHaveLength(1);
    expect(error).toBeInstanceOf(GoneError);
    expect((error as Error).message).toMatch(
      /^watching pods in namespace ns from resourceVersion 1: too old/,
    );
    expect(lastRequest().path).toBe('/api/v1/namespaces/ns/pods');
  });

  it('fails with the typed error of a refused watch', async () => {
    server.answer = { status: 403, body: statusBody(403, 'Forbidden', 'daemonsets is forbidden') };
    const { port } = tinyKubePort(server.url, { managedKind: 'everynode.dev/v1' });
    const { error } = await collect(port.watch('daemonsets', { resourceVersion: '1' }));
    expect(error).toMatchObject({ status: 403, retryable: false });
    expect(lastRequest().path).toBe('/apis/everynode.dev/v1/daemonsets');
  });
});
