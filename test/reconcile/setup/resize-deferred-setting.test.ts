/**
 * The deadline of a Deferred in-place resize is a setting of the reconcile function:
 * `EVERYNODE_RESIZE_DEFERRED_SECONDS`, read with the rest of its configuration and carried to the
 * steps in the deps (the e2e test of the fallback runs on a short one); unset, the steps use
 * RESIZE_DEFERRED_DEADLINE_SECONDS.
 */
import { describe, expect, it } from 'vitest';
import { FunctionConfigError } from '../../../lib/config/function-config-error.ts';
import { reconcileConfigFromEnvironment } from '../../../lib/reconcile/setup/reconcile-config.ts';

const env = {
  EVERYNODE_WORK_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/1/everynode-work.fifo',
  EVERYNODE_WORK_DLQ_URL: 'https://sqs.eu-west-1.amazonaws.com/1/everynode-work-dlq.fifo',
  EVERYNODE_INGRESS_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/1/everynode-ingress',
  EVERYNODE_KUBECONFIG: '/dev/null',
};

describe('EVERYNODE_RESIZE_DEFERRED_SECONDS', () => {
  it('is read as a number of seconds, and absent when unset', () => {
    expect(reconcileConfigFromEnvironment({ ...env, EVERYNODE_RESIZE_DEFERRED_SECONDS: '90' })).toMatchObject(
      {
        resizeDeferredSeconds: 90,
      },
    );
    expect(reconcileConfigFromEnvironment(env)).not.toHaveProperty('resizeDeferredSeconds');
  });

  it('refuses a wait that is not positive', () => {
    for (const value of ['0', '-5', 'soon'])
      expect(() =>
        reconcileConfigFromEnvironment({ ...env, EVERYNODE_RESIZE_DEFERRED_SECONDS: value }),
      ).toThrow(FunctionConfigError);
  });
});
