import { describe, expect, it } from 'vitest';
import { RequestCounter, requestVerb } from '../../lib/kube/requests/request-counter.ts';

describe('requestVerb', () => {
  it.each([
    { method: 'GET', url: '/api/v1/nodes', verb: 'list' },
    { method: 'GET', url: '/api/v1/nodes/n1', verb: 'get' },
    { method: 'GET', url: '/api/v1/namespaces/ns/pods?labelSelector=a%3Db', verb: 'list' },
    { method: 'GET', url: '/api/v1/namespaces/ns/pods/p1', verb: 'get' },
    { method: 'GET', url: '/api/v1/namespaces/ns', verb: 'get' },
    { method: 'GET', url: '/api/v1/namespaces', verb: 'list' },
    { method: 'GET', url: '/api/v1/pods?watch=true&resourceVersion=5', verb: 'watch' },
    { method: 'GET', url: 'https://h:6443/apis/apps/v1/namespaces/ns/daemonsets/ds/status', verb: 'get' },
    { method: 'GET', url: '/apis/everynode.dev/v1/daemonsets', verb: 'list' },
    { method: 'POST', url: '/api/v1/namespaces/ns/pods', verb: 'create' },
    { method: 'PUT', url: '/apis/apps/v1/namespaces/ns/daemonsets/ds/status', verb: 'update' },
    { method: 'PATCH', url: '/api/v1/namespaces/ns/pods/p1', verb: 'patch' },
    { method: 'DELETE', url: '/api/v1/namespaces/ns/pods/p1', verb: 'delete' },
    { method: 'DELETE', url: '/api/v1/namespaces/ns/pods', verb: 'deletecollection' },
  ])('$method $url is $verb', ({ method, url, verb }) => {
    expect(requestVerb(method, url)).toBe(verb);
  });
});

describe('RequestCounter', () => {
  it('counts by verb, totals, and drains', () => {
    const counter = new RequestCounter();
    counter.count('get');
    counter.count('get');
    counter.count('create');
    expect(counter.snapshot()).toMatchObject({ get: 2, create: 1, list: 0 });
    expect(counter.total()).toBe(3);
    expect(counter.drain()).toMatchObject({ get: 2, create: 1 });
    expect(counter.total()).toBe(0);
  });

  it('measures the requests of overlapping work apart, nested work counting for both', async () => {
    const counter = new RequestCounter();
    const tick = () => new Promise((resolve) => setTimeout(resolve, 1));
    const requests = async (n: number) => {
      for (let i = 0; i < n; i++) {
        await tick();
        counter.count('get');
      }
      return n;
    };
    counter.count('list');
    const [a, b, outer] = await Promise.all([
      counter.measure(() => requests(3)),
      counter.measure(() => requests(5)),
      counter.measure(async () => (await requests(2)) + (await counter.measure(() => requests(4))).requests),
    ]);
    counter.count('list');
    expect([a, b, outer]).toEqual([
      { value: 3, requests: 3 },
      { value: 5, requests: 5 },
      { value: 6, requests: 6 },
    ]);
    expect(counter.total()).toBe(16);
  });
});
