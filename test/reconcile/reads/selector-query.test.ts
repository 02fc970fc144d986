import { describe, expect, it } from 'vitest';
import { daemonPodFor } from '../../../lib/core/daemon-pod.ts';
import { labelSelectorQuery } from '../../../lib/core/label-selector.ts';
import { pairPodsQuery, violationQueries } from '../../../lib/reconcile/reads/selector-query.ts';
import { aDaemonSet } from '../../support/builders.ts';

describe('label selector queries', () => {
  it.each([
    { name: 'matchLabels', selector: { matchLabels: { b: '2', a: '1' } }, expected: 'a=1,b=2' },
    {
      name: 'every operator',
      selector: {
        matchExpressions: [
          { key: 'z', operator: 'In', values: ['y', 'x'] },
          { key: 'n', operator: 'NotIn', values: ['1'] },
          { key: 'e', operator: 'Exists' },
          { key: 'd', operator: 'DoesNotExist' },
        ],
      },
      expected: '!d,e,n notin (1),z in (x,y)',
    },
    { name: 'nothing', selector: {}, expected: '' },
  ])('$name', ({ selector, expected }) => {
    expect(labelSelectorQuery(selector)).toBe(expected);
  });

  it('negates each requirement to find pods to release', () => {
    expect(
      violationQueries(
        {
          matchLabels: { app: 'a' },
          matchExpressions: [
            { key: 't', operator: 'Exists' },
            { key: 'x', operator: 'NotIn', values: ['2', '1'] },
          ],
        },
        'uid=u',
      ),
    ).toEqual(['uid=u,app notin (a)', 'uid=u,!t', 'uid=u,x in (1,2)']);
  });

  it('selects the pods of one node by the node label', () => {
    expect(pairPodsQuery('ip-10-0-0-1.ec2.internal')).toBe('everynode.dev/node=ip-10-0-0-1.ec2.internal');
  });

  it('selects the pods made for a 253-character node by the label value they carry', () => {
    const node = `${'ip-10-0-0-1.'.padEnd(244, 'x')}.internal`;
    const pod = daemonPodFor(aDaemonSet('agent'), node, 'h');
    expect(pairPodsQuery(node)).toBe(`everynode.dev/node=${pod.metadata?.labels?.['everynode.dev/node']}`);
  });
});
