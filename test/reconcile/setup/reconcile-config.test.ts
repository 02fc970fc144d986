import { describe, expect, it } from 'vitest';
import { FunctionConfigError } from '../../../lib/config/function-config-error.ts';
import { reconcileConfigFromEnvironment } from '../../../lib/reconcile/setup/reconcile-config.ts';

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
    {
      name: 'the smallest node LIST worth planning on again',
      env: { ...queues, KUBECONFIG: '/tmp/kc', EVERYNODE_NODE_LIST_REUSE_MIN_NODES: '5000' },
      expected: { nodeListReuseMinNodes: 5000 },
    },
  ])('reads $name', ({ env, expected }) => {
    expect(reconcileConfigFromEnvironment(env)).toMatchObject(expected);
  });

  it.each([
    { name: 'missing queue URLs', env: {}, message: /EVERYNODE_WORK_QUEUE_URL/ },
    {
      name: 'a negative node count',
      env: { ...queues, KUBECONFIG: '/tmp/kc', EVERYNODE_NODE_LIST_REUSE_MIN_NODES: '-1' },
      message: /EVERYNODE_NODE_LIST_REUSE_MIN_NODES/,
    },
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
