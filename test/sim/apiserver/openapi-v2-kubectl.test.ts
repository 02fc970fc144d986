import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiV2Protobuf } from '../../../lib/sim/apiserver/openapi-v2.ts';
import { type SimCluster, startSimCluster } from '../../../lib/sim/start-sim-cluster.ts';
import { findKubectl, useKubectlSim } from '../../support/kubectl-harness.ts';

const binary = findKubectl();

/** A `kind: List` whose items each break the schema one way. */
const badList = JSON.stringify({
  apiVersion: 'v1',
  kind: 'List',
  items: [
    { apiVersion: 'v1', kind: 'Node', metadata: { name: 'bad-1' }, spec: { unschedulabel: true } },
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'd1', namespace: 'default' },
      spec: {
        selector: { matchLabels: { app: 'd1' } },
        template: {
          metadata: { labels: { app: 'd1' } },
          spec: { containers: [{ name: 'c', image: 'busybox', ports: [{ containerPort: 'x' }] }] },
        },
      },
    },
    {
      apiVersion: 'everynode.dev/v1',
      kind: 'DaemonSet',
      metadata: { name: 'e1', namespace: 'default' },
      spec: {
        selector: { matchLabels: { app: 'e1' } },
        bogus: 1,
        template: { metadata: { labels: { app: 'e1' } }, spec: { containers: [{ name: 'c', image: 'b' }] } },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p1', namespace: 'default' },
      spec: { containers: [{ image: 'busybox' }] },
    },
  ],
});

describe('GET /openapi/v2 over HTTP', () => {
  let cluster: SimCluster;
  beforeAll(async () => {
    cluster = await startSimCluster({ nodes: 0, timing: { timeScale: 0.01 } });
  });
  afterAll(() => cluster.stop());
  const get = (headers: Record<string, string>) => fetch(`${cluster.url}/openapi/v2`, { headers });

  it('serves protobuf to client-go, JSON on request, 406 otherwise, 304 for a matching ETag', async () => {
    const proto = await get({ Accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' });
    expect(proto.status).toBe(200);
    expect(proto.headers.get('content-type')).toBe(
      'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
    );
    expect(proto.headers.get('content-encoding')).toBe('gzip');
    expect(Buffer.from(await proto.arrayBuffer()).equals(Buffer.from(openApiV2Protobuf()))).toBe(true);
    const json = await get({ Accept: 'application/json' });
    expect(json.headers.get('content-type')).toBe('application/json');
    expect(json.headers.get('vary')).toBe('Accept');
    expect(((await json.json()) as { swagger: string }).swagger).toBe('2.0');
    const etag = json.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[0-9A-F]{128}"$/);
    expect((await get({ Accept: 'application/json', 'If-None-Match': etag })).status).toBe(304);
    expect((await get({ Accept: 'text/html' })).status).toBe(406);
  });
});

describe.runIf(binary)('kubectl validating with the OpenAPI v2 document', () => {
  const sim = useKubectlSim(binary, { nodes: 0, timing: { timeScale: 0.01 } });
  const { kubectl } = sim;

  it('refuses a List on the client, naming each unknown, mistyped and missing field, and creates nothing', async () => {
    const result = await kubectl(['apply', '-f', '-'], badList);
    expect(result.code).toBe(1);
    for (const expected of [
      'unknown field "unschedulabel" in io.k8s.api.core.v1.NodeSpec',
      'invalid type for io.k8s.api.core.v1.ContainerPort.containerPort: got "string", expected "integer"',
      'unknown field "bogus" in dev.everynode.v1.DaemonSet.spec',
      'missing required field "name" in io.k8s.api.core.v1.Container',
    ])
      expect(result.stderr).toContain(expected);
    expect(sim.cluster.store.list('nodes')).toEqual([]);
  });

  it('explains fields from the v2 document (--output=plaintext-openapiv2)', async () => {
    const result = await kubectl(['explain', 'ds.spec', '--output=plaintext-openapiv2']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/selector\t<Object> -required-/);
    const custom = await kubectl([
      'explain',
      'eds.spec.updateStrategy.rollingUpdate',
      '--output=plaintext-openapiv2',
    ]);
    expect(custom.stdout).toMatch(/partition\t<integer>/);
  });
});
