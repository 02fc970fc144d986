import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { FunctionConfigError } from '../../lib/kube/cluster-config.ts';
import {
  daemonSetRequeueSlot,
  delaySecondsUntil,
  formatRequeueEnvelope,
  parseRequeueEnvelope,
  withRequeueCause,
} from '../../lib/messages/requeue-envelope.ts';
import { formatWorkMessage, type WorkMessage } from '../../lib/messages/work-message.ts';
import { EventSpamFilter, SPAM_BURST } from '../../lib/reconcile/event-spam-filter.ts';
import { reconcileConfigFromEnvironment } from '../../lib/reconcile/reconcile-config.ts';
import { recordsByGroup } from '../../lib/reconcile/reconcile-handler.ts';
import { planBatch, workKey } from '../../lib/reconcile/reconcile-record.ts';
import { labelSelectorQuery, pairPodsQuery, violationQueries } from '../../lib/reconcile/selector-query.ts';

const at = '2026-01-01T00:00:00.000Z';
const pair: WorkMessage = {
  v: 1,
  kind: 'pair',
  cause: { type: 'resync', at },
  daemonSet: { namespace: 'kube-system', name: 'agent', uid: 'u1' },
  node: { name: 'n1' },
  hints: {
    observedAt: at,
    daemonSet: { resourceVersion: '5', generation: 1, revisionHash: 'h' },
    node: null,
    pods: [],
  },
};

describe('EventSpamFilter', () => {
  it('lets a burst of 25 events per key through, then one per five minutes', () => {
    const filter = new EventSpamFilter();
    const allowed = Array.from({ length: 30 }, () => filter.allow('ds/SuccessfulCreate', 0)).filter(Boolean);
    expect(allowed).toHaveLength(SPAM_BURST);
    expect(filter.dropped).toBe(5);
    expect(filter.allow('ds/SuccessfulCreate', 299_000)).toBe(false);
    expect(filter.allow('ds/SuccessfulCreate', 301_000)).toBe(true);
    expect(filter.allow('ds/FailedCreate', 301_000)).toBe(true);
  });
});

describe('reconcileConfigFromEnvironment', () => {
  const queues = {
    EVERYNODE_WORK_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/1/everynode-work.fifo',
    EVERYNODE_WORK_DLQ_URL: 'https://sqs.eu-west-1.amazonaws.com/1/everynode-work-dlq.fifo',
    EVERYNODE_INGRESS_QUEUE_URL: 'http://sqs.us-east-1.127.0.0.1:4566/1/everynode-ingress',
  };
  it.each([
    {
      name: 'EKS from the stack variables',
      env: {
        ...queues,
        EVERYNODE_CLUSTER_ENDPOINT: 'https://x.eks.amazonaws.com',
        EVERYNODE_CLUSTER_NAME: 'c',
        EVERYNODE_CLUSTER_CA: 'Q0E=',
        AWS_REGION: 'eu-west-1',
        EVERYNODE_API_QPS: '20',
      },
      expected: {
        managedKind: 'everynode.dev/v1',
        apiQps: 20,
        apiBurst: 20,
        cluster: { type: 'eks', name: 'c', region: 'eu-west-1' },
      },
    },
    {
      name: 'a local kubeconfig and kind apps/v1',
      env: { ...queues, KUBECONFIG: '/tmp/kc', EVERYNODE_MANAGED_KIND: 'apps/v1', EVERYNODE_API_BURST: '7' },
      expected: {
        managedKind: 'apps/v1',
        apiQps: 50,
        apiBurst: 7,
        cluster: { type: 'kubeconfig', path: '/tmp/kc' },
      },
    },
  ])('reads $name', ({ env, expected }) => {
    expect(reconcileConfigFromEnvironment(env)).toMatchObject(expected);
  });

  it.each([
    { name: 'missing queue URLs', env: {}, message: /EVERYNODE_WORK_QUEUE_URL/ },
    {
      name: 'an unknown managed kind',
      env: { ...queues, EVERYNODE_MANAGED_KIND: 'v1' },
      message: /EVERYNODE_MANAGED_KIND/,
    },
    {
      name: 'an endpoint without CA',
      env: { ...queues, EVERYNODE_CLUSTER_ENDPOINT: 'https://x', AWS_REGION: 'r' },
      message: /CLUSTER_CA/,
    },
    { name: 'a QPS of 0', env: { ...queues, EVERYNODE_API_QPS: '0' }, message: /EVERYNODE_API_QPS/ },
  ])('refuses $name', ({ env, message }) => {
    expect(() => reconcileConfigFromEnvironment(env)).toThrow(FunctionConfigError);
    expect(() => reconcileConfigFromEnvironment(env)).toThrow(message);
  });
});

describe('requeue envelopes', () => {
  it('puts a DaemonSet requeue at the end of its status window, with the router refresh id', () => {
    const now = new Date(10_500);
    expect(daemonSetRequeueSlot('u1', 1, now)).toEqual({ afterSeconds: 1.5, deduplicationId: 'status:u1:5' });
    expect(daemonSetRequeueSlot('u1', 0, now)).toEqual({ afterSeconds: 1.5, deduplicationId: 'status:u1:5' });
    expect(daemonSetRequeueSlot('u1', 2, now)).toEqual({ afterSeconds: 3.5, deduplicationId: 'status:u1:6' });
  });

  it('round-trips a work message with its due time', () => {
    const body = formatRequeueEnvelope(pair, new Date('2026-01-01T00:10:00Z'));
    const parsed = parseRequeueEnvelope(body);
    expect(parsed.ok && parsed.envelope).toMatchObject({
      kind: 'requeue',
      notBefore: '2026-01-01T00:10:00.000Z',
      message: pair,
    });
  });

  it.each([
    { name: 'a due envelope', notBefore: 0, expected: 0 },
    { name: 'a wait rounded down', notBefore: 1500, expected: 1 },
    { name: 'a wait under a second', notBefore: 999, expected: 0 },
    { name: 'a wait beyond 15 minutes', notBefore: 3600_000, expected: 900 },
  ])('delays $name by $expected s', ({ notBefore, expected }) => {
    expect(delaySecondsUntil(new Date(notBefore), new Date(0))).toBe(expected);
  });

  it('makes the requeued message new work without hints, counting attempts', () => {
    const once = withRequeueCause(pair, 'backoff', new Date(at));
    expect(once).not.toHaveProperty('hints');
    expect(once.cause).toEqual({ type: 'requeue', reason: 'backoff', attempt: 0, requestedAt: at });
    expect(withRequeueCause(once, 'again', new Date(at)).cause).toMatchObject({ attempt: 1 });
    const node: WorkMessage = {
      v: 1,
      kind: 'node',
      cause: { type: 'resync', at },
      node: { name: 'n1' },
      hints: { observedAt: at, node: { name: 'n1', resourceVersion: '1' }, daemonSets: [], pods: [] },
    };
    expect(withRequeueCause(node, 'failed', new Date(at))).not.toHaveProperty('hints');
  });
});

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
});

describe('batch planning', () => {
  const record = (messageId: string, message: WorkMessage | string): SQSRecord =>
    ({ messageId, body: typeof message === 'string' ? message : formatWorkMessage(message) }) as SQSRecord;

  it('splits a batch by message group, keeping each group in order', () => {
    const inGroup = (messageId: string, group: string) =>
      ({ messageId, attributes: { MessageGroupId: group } }) as unknown as SQSRecord;
    const groups = recordsByGroup([
      inGroup('1', 'a'),
      inGroup('2', 'b'),
      inGroup('3', 'a'),
      inGroup('4', 'c'),
    ]);
    expect(groups.map((g) => g.map((r) => r.messageId))).toEqual([['1', '3'], ['2'], ['4']]);
  });
  it('runs the first record of each work key and marks repeated keys', () => {
    const later = { ...pair, cause: { type: 'resync' as const, at: '2026-01-01T00:00:01.000Z' } };
    const other = { ...pair, node: { name: 'n2' } };
    const plan = planBatch([
      record('a', pair),
      record('b', 'garbage'),
      record('c', later),
      record('d', other),
    ]);
    expect(plan.runner.get(workKey(pair))).toBe('a');
    expect(plan.runner.get(workKey(other))).toBe('d');
    expect([...plan.repeated]).toEqual([workKey(pair)]);
  });

  it.each([
    {
      name: 'a recreated DaemonSet is other work',
      a: pair,
      b: { ...pair, daemonSet: { ...pair.daemonSet, uid: 'u2' } },
      same: false,
    },
    {
      name: 'another cause is the same work',
      a: pair,
      b: { ...pair, cause: { type: 'resync' as const, at: 'x' } },
      same: true,
    },
  ])('$name', ({ a, b, same }) => {
    expect(workKey(a) === workKey(b as WorkMessage)).toBe(same);
  });
});
