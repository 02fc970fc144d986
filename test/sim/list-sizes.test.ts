import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type SimCluster, startSimCluster } from '../../lib/sim/start-sim-cluster.ts';

const NODES = 8;
const AGENT = 'list-size-test/1.0';
let cluster: SimCluster;
let core: CoreV1Api;

beforeAll(async () => {
  cluster = await startSimCluster({ nodes: NODES, timing: { timeScale: 0.001 } });
  const config = new KubeConfig();
  config.loadFromString(cluster.kubeconfig);
  core = config.makeApiClient(CoreV1Api);
});
afterAll(() => cluster.stop());
beforeEach(() => cluster.counters.reset());

/** GETs `path` as {@link AGENT}; resolves to the body's size in bytes. */
async function listBytes(path: string, accept = 'application/json'): Promise<number> {
  const answer = await fetch(`${cluster.url}${path}`, { headers: { 'User-Agent': AGENT, Accept: accept } });
  expect(answer.status).toBe(200);
  return (await answer.arrayBuffer()).byteLength;
}

describe('the simulated API server notes the size of every LIST it answers', () => {
  it('records the items and bytes of a client-node LIST', async () => {
    const list = await core.listNode();
    expect(list.items).toHaveLength(NODES);
    const largest = cluster.counters.largestList({ verb: 'list', resource: 'nodes' });
    expect(largest).toMatchObject({ resource: 'nodes', items: NODES, lists: 1, totalItems: NODES });
    expect(largest?.bytes).toBeGreaterThan(NODES * 100);
  });

  it('records the exact response bytes by user agent, and the largest of several LISTs', async () => {
    const whole = await listBytes('/api/v1/nodes');
    const page = await listBytes('/api/v1/nodes?limit=3');
    const selected = await listBytes('/api/v1/nodes?fieldSelector=metadata.name%3Dnode-00001');
    expect(cluster.counters.largestLists({ userAgent: AGENT })).toEqual([
      {
        verb: 'list',
        resource: 'nodes',
        subresource: '',
        userAgent: AGENT,
        lists: 3,
        items: NODES,
        bytes: whole,
        totalItems: NODES + 3 + 1,
        totalBytes: whole + page + selected,
      },
    ]);
    expect(cluster.counters.largestList({ userAgent: 'someone-else' })).toBeUndefined();
  });

  it('records one line per resource, largest first, and LISTs of kubectl renderings too', async () => {
    const table = await listBytes('/api/v1/nodes', 'application/json;as=Table;v=v1;g=meta.k8s.io');
    const metadata = await listBytes(
      '/api/v1/namespaces',
      'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
    );
    await listBytes('/api/v1/nodes/node-00001');
    const lines = cluster.counters.largestLists({ userAgent: AGENT });
    expect(lines.map((l) => [l.resource, l.bytes, l.lists])).toEqual(
      [
        ['nodes', table, 1],
        ['namespaces', metadata, 1],
      ].sort((a, b) => Number(b[1]) - Number(a[1])),
    );
    expect(cluster.counters.total({ userAgent: AGENT })).toBe(3);
  });

  it('forgets the sizes on reset', async () => {
    await listBytes('/api/v1/pods');
    expect(cluster.counters.largestList({ resource: 'pods' })?.lists).toBe(1);
    cluster.counters.reset();
    expect(cluster.counters.largestLists()).toEqual([]);
  });
});
