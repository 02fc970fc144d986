import { describe, expect, it } from 'vitest';
import {
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
} from '../../../lib/sim/apiserver/discovery.ts';
import { aggregatedDiscovery } from '../../../lib/sim/apiserver/discovery-aggregated.ts';

const allVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

describe('legacy discovery', () => {
  it('serves the core group version at /api', () => {
    expect(apiVersions('127.0.0.1:6443')).toEqual({
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1:6443' }],
    });
  });

  it('lists the built-in groups, then everynode.dev, at /apis', () => {
    expect(apiGroupList().groups.map((g) => [g.name, g.preferredVersion.groupVersion])).toEqual([
      ['apps', 'apps/v1'],
      ['authorization.k8s.io', 'authorization.k8s.io/v1'],
      ['rbac.authorization.k8s.io', 'rbac.authorization.k8s.io/v1'],
      ['apiextensions.k8s.io', 'apiextensions.k8s.io/v1'],
      ['everynode.dev', 'everynode.dev/v1'],
    ]);
    expect(apiGroup('apps')?.versions).toEqual([{ groupVersion: 'apps/v1', version: 'v1' }]);
    expect(apiGroup('batch')).toBeUndefined();
  });

  it.each([
    ['', 'pods', 'po', 'Pod', true],
    ['', 'nodes', 'no', 'Node', false],
    ['apps', 'daemonsets', 'ds', 'DaemonSet', true],
    ['everynode.dev', 'daemonsets', 'eds', 'DaemonSet', true],
  ])('lists %s %s with short name %s', (group, plural, shortName, kind, namespaced) => {
    const list = apiResourceList(group, 'v1');
    const resource = list?.resources.find((r) => r.name === plural);
    expect(resource).toMatchObject({
      kind,
      namespaced,
      shortNames: [shortName],
      verbs: allVerbs,
      singularName: plural.slice(0, -1),
    });
    expect(resource?.storageVersionHash).toMatch(/^[A-Za-z0-9+/]{11}=$/);
    expect(list?.resources.find((r) => r.name === `${plural}/status`)).toEqual({
      name: `${plural}/status`,
      singularName: '',
      namespaced,
      kind,
      verbs: ['get', 'patch', 'update'],
    });
  });

  it('names the group version and 404s unknown ones', () => {
    expect(apiResourceList('', 'v1')?.groupVersion).toBe('v1');
    expect(apiResourceList('apps', 'v1')?.groupVersion).toBe('apps/v1');
    expect(apiResourceList('apps', 'v1beta2')).toBeUndefined();
    expect(apiResourceList('apps', 'v1')?.resources.find((r) => r.name === 'daemonsets')?.categories).toEqual(
      ['all'],
    );
  });
});

describe('aggregated discovery', () => {
  it('lists the core resources unnamed at /api', () => {
    const doc = aggregatedDiscovery('api');
    expect(doc.items).toHaveLength(1);
    expect(doc.items[0]?.metadata.name).toBeUndefined();
    const pods = doc.items[0]?.versions[0]?.resources.find((r) => r.resource === 'pods');
    expect(pods).toMatchObject({
      scope: 'Namespaced',
      singularResource: 'pod',
      shortNames: ['po'],
      responseKind: { group: '', version: 'v1', kind: 'Pod' },
      subresources: [
        { subresource: 'resize', verbs: ['get', 'patch', 'update'] },
        { subresource: 'status', verbs: ['get', 'patch', 'update'] },
      ],
    });
  });

  it('lists the named groups at /apis', () => {
    const doc = aggregatedDiscovery('apis');
    expect(doc.items.map((g) => g.metadata.name)).toEqual([
      'apps',
      'authorization.k8s.io',
      'rbac.authorization.k8s.io',
      'apiextensions.k8s.io',
      'everynode.dev',
    ]);
    const eds = doc.items[4]?.versions[0]?.resources[0];
    expect(eds).toMatchObject({ resource: 'daemonsets', shortNames: ['eds'], scope: 'Namespaced' });
  });
});
