import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { toTable } from '../../../lib/sim/apiserver/table.ts';
import { humanDuration } from '../../../lib/sim/apiserver/table-format.ts';
import type { KubeObject } from '../../../lib/sim/schema/store-types.ts';

const now = new Date('2026-03-01T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

function fluentd(): KubeObject {
  const ds = parse(
    readFileSync(new URL('../../fixtures/fluentd-elasticsearch.yaml', import.meta.url), 'utf8'),
  );
  ds.metadata.creationTimestamp = ago(3 * H + 2 * M);
  ds.status = {
    desiredNumberScheduled: 3,
    currentNumberScheduled: 3,
    numberReady: 2,
    updatedNumberScheduled: 1,
    numberAvailable: 2,
  };
  return ds;
}

const names = (key: Parameters<typeof toTable>[0], wide = true) =>
  toTable(key, [], { now, wide }).columnDefinitions.map((c) => c.name);

describe('humanDuration (duration.HumanDuration)', () => {
  it.each([
    [59 * S, '59s'],
    [119 * S, '119s'],
    [5 * M, '5m'],
    [5 * M + 3 * S, '5m3s'],
    [42 * M, '42m'],
    [3 * H + 2 * M, '3h2m'],
    [20 * H, '20h'],
    [2 * D, '2d'],
    [3 * D + 4 * H, '3d4h'],
    [400 * D, '400d'],
    [3 * 365 * D + 5 * D, '3y5d'],
    [-1500, '0s'],
    [-5 * S, '<invalid>'],
  ])('%i ms is %s', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });
});

describe('toTable columns', () => {
  it.each([
    [
      'apps/daemonsets',
      ['Name', 'Desired', 'Current', 'Ready', 'Up-to-date', 'Available', 'Node Selector', 'Age'],
    ],
    ['pods', ['Name', 'Ready', 'Status', 'Restarts', 'Age']],
    ['nodes', ['Name', 'Status', 'Roles', 'Age', 'Version']],
    ['namespaces', ['Name', 'Status', 'Age']],
    ['events', ['Last Seen', 'Type', 'Reason', 'Object', 'Message']],
    ['apps/controllerrevisions', ['Name', 'Controller', 'Revision', 'Age']],
    [
      'everynode.dev/daemonsets',
      ['Name', 'Desired', 'Current', 'Ready', 'Up-to-date', 'Available', 'Node Selector', 'Age'],
    ],
  ] as const)('%s shows %j by default', (key, expected) => {
    expect(names(key, false)).toEqual(expected);
  });

  it('adds the -o wide columns at priority 1, which the server always sends', () => {
    const table = toTable('apps/daemonsets', [], { now });
    expect(table.columnDefinitions.filter((c) => c.priority === 1).map((c) => c.name)).toEqual([
      'Containers',
      'Images',
      'Selector',
    ]);
    expect(names('pods').slice(5)).toEqual(['IP', 'Node', 'Nominated Node', 'Readiness Gates']);
  });
});

describe('toTable rows', () => {
  it('prints the fluentd DaemonSet as kubectl get ds -o wide does', () => {
    const table = toTable('apps/daemonsets', [fluentd()], { now, listMeta: { resourceVersion: '7' } });
    expect(table.kind).toBe('Table');
    expect(table.metadata.resourceVersion).toBe('7');
    expect(table.rows[0]?.cells).toEqual([
      'fluentd-elasticsearch',
      3,
      3,
      2,
      1,
      2,
      '<none>',
      '3h2m',
      'fluentd-elasticsearch',
      'quay.io/fluentd_elasticsearch/fluentd:v2.5.2',
      'name=fluentd-elasticsearch',
    ]);
    expect(table.rows[0]?.object).toEqual({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: fluentd().metadata,
    });
  });

  it('embeds the object as includeObject asks', () => {
    expect(toTable('apps/daemonsets', [fluentd()], { now, includeObject: 'Object' }).rows[0]?.object).toEqual(
      fluentd(),
    );
    expect(
      toTable('apps/daemonsets', [fluentd()], { now, includeObject: 'None' }).rows[0],
    ).not.toHaveProperty('object');
  });

  it('prints node selectors and set-based selectors sorted', () => {
    const ds = fluentd();
    const spec = ds.spec as { selector: unknown; template: { spec: Record<string, unknown> } };
    spec.template.spec.nodeSelector = { zone: 'a', disk: 'ssd' };
    spec.selector = {
      matchLabels: { b: '1' },
      matchExpressions: [{ key: 'a', operator: 'In', values: ['y', 'x'] }],
    };
    const cells = toTable('apps/daemonsets', [ds], { now }).rows[0]?.cells;
    expect(cells?.[6]).toBe('disk=ssd,zone=a');
    expect(cells?.[10]).toBe('a in (x,y),b=1');
  });
});
