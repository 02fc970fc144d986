import { describe, expect, it } from 'vitest';
import { RequestCounters } from '../../lib/sim/counters.ts';

describe('RequestCounters', () => {
  const counters = new RequestCounters();
  const requests = [
    { verb: 'list', resource: 'pods', subresource: '', userAgent: 'everynode/relay' },
    { verb: 'list', resource: 'pods', subresource: '', userAgent: 'everynode/relay' },
    { verb: 'update', resource: 'apps/daemonsets', subresource: 'status', userAgent: 'everynode/reconcile' },
    { verb: 'get', resource: '/version', subresource: '', userAgent: 'kubectl/v1.33.1' },
  ];
  for (const r of requests) counters.record(r);

  it.each([
    { name: 'all', filter: {}, total: 4 },
    { name: 'by verb and resource', filter: { verb: 'list', resource: 'pods' }, total: 2 },
    { name: 'by subresource', filter: { subresource: 'status' }, total: 1 },
    { name: 'by user agent pattern', filter: { userAgent: /^everynode\// }, total: 3 },
    { name: 'by exact user agent', filter: { userAgent: 'kubectl/v1.33.1' }, total: 1 },
  ])('totals $name', ({ filter, total }) => {
    expect(counters.total(filter)).toBe(total);
  });

  it('snapshots one line per verb, resource, subresource and user agent, and resets', () => {
    const copy = new RequestCounters();
    for (const r of requests) copy.record(r);
    expect(copy.snapshot().find((e) => e.verb === 'list')?.count).toBe(2);
    expect(copy.snapshot()).toHaveLength(3);
    copy.reset();
    expect(copy.total()).toBe(0);
  });
});
