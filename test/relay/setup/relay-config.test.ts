/**
 * The relay function's configuration from its environment (`relayConfigFromEnvironment`): the
 * defaults, what each variable sets, and one FunctionConfigError naming every bad variable.
 */
import { describe, expect, it } from 'vitest';
import { FunctionConfigError } from '../../../lib/config/function-config-error.ts';
import { relayConfigFromEnvironment } from '../../../lib/relay/setup/relay-config.ts';

/** The two variables the relay cannot do without. */
const required = {
  EVERYNODE_EVENT_BUS_NAME: 'everynode-bus',
  EVERYNODE_RELAY_CHECKPOINT_PARAMETER: '/everynode/relay/checkpoint',
};

const eks = {
  EVERYNODE_CLUSTER_ENDPOINT: 'https://ABC.gr7.eu-west-1.eks.amazonaws.com',
  EVERYNODE_CLUSTER_NAME: 'prod',
  EVERYNODE_CLUSTER_CA: 'Q0E=',
};

describe('relayConfigFromEnvironment', () => {
  it('defaults: everynode.dev/v1, 50 requests/s, 300 s runs, the default kubeconfig', () => {
    expect(relayConfigFromEnvironment(required)).toEqual({
      managedKind: 'everynode.dev/v1',
      cluster: { type: 'kubeconfig' },
      apiQps: 50,
      eventBusName: 'everynode-bus',
      checkpointParameter: '/everynode/relay/checkpoint',
      runSeconds: 300,
    });
  });

  it.each<{ name: string; env: Record<string, string>; expected: Record<string, unknown> }>([
    {
      name: 'EVERYNODE_MANAGED_KIND',
      env: { EVERYNODE_MANAGED_KIND: 'apps/v1' },
      expected: { managedKind: 'apps/v1' },
    },
    {
      name: 'EVERYNODE_API_QPS (a fraction too)',
      env: { EVERYNODE_API_QPS: '2.5' },
      expected: { apiQps: 2.5 },
    },
    {
      name: 'the bus and parameter names, trimmed',
      env: { EVERYNODE_EVENT_BUS_NAME: ' bus \n', EVERYNODE_RELAY_CHECKPOINT_PARAMETER: '  /p  ' },
      expected: { eventBusName: 'bus', checkpointParameter: '/p' },
    },
    {
      name: 'KUBECONFIG',
      env: { KUBECONFIG: '/home/me/.kube/config' },
      expected: { cluster: { type: 'kubeconfig', path: '/home/me/.kube/config' } },
    },
    {
      name: 'EVERYNODE_KUBECONFIG, before KUBECONFIG',
      env: { EVERYNODE_KUBECONFIG: '/etc/everynode/kubeconfig', KUBECONFIG: '/home/me/.kube/config' },
      expected: { cluster: { type: 'kubeconfig', path: '/etc/everynode/kubeconfig' } },
    },
    {
      name: 'an EKS endpoint with its name, CA and AWS_REGION (a kubeconfig set aside)',
      env: { ...eks, AWS_REGION: 'eu-west-1', AWS_DEFAULT_REGION: 'us-east-1', KUBECONFIG: '/k' },
      expected: { cluster: { type: 'eks', ...eksCluster('eu-west-1') } },
    },
    {
      name: 'an EKS endpoint with AWS_DEFAULT_REGION only',
      env: { ...eks, AWS_DEFAULT_REGION: 'us-east-1' },
      expected: { cluster: { type: 'eks', ...eksCluster('us-east-1') } },
    },
  ])('reads $name', ({ env, expected }) => {
    const config = relayConfigFromEnvironment({ ...required, ...env });
    expect(config).toMatchObject(expected);
    // Whatever else the environment holds is not read.
    expect(relayConfigFromEnvironment({ ...required, ...env, EVERYNODE_UNKNOWN: 'x', PATH: '/bin' })).toEqual(
      config,
    );
  });

  it.each([10, 120, 840])('reads EVERYNODE_RELAY_RUN_SECONDS of %i (10 to 840)', (seconds) => {
    const env = { ...required, EVERYNODE_RELAY_RUN_SECONDS: String(seconds) };
    expect(relayConfigFromEnvironment(env).runSeconds).toBe(seconds);
  });

  it.each<{ name: string; env: Record<string, string | undefined>; names: RegExp[] }>([
    { name: 'no bus', env: { EVERYNODE_EVENT_BUS_NAME: undefined }, names: [/EVERYNODE_EVENT_BUS_NAME/] },
    { name: 'a blank bus', env: { EVERYNODE_EVENT_BUS_NAME: '   ' }, names: [/EVERYNODE_EVENT_BUS_NAME/] },
    {
      name: 'no checkpoint parameter',
      env: { EVERYNODE_RELAY_CHECKPOINT_PARAMETER: undefined },
      names: [/EVERYNODE_RELAY_CHECKPOINT_PARAMETER/],
    },
    {
      name: 'an unknown managed kind',
      env: { EVERYNODE_MANAGED_KIND: 'v1' },
      names: [/EVERYNODE_MANAGED_KIND/],
    },
    { name: 'a QPS of 0', env: { EVERYNODE_API_QPS: '0' }, names: [/EVERYNODE_API_QPS/] },
    { name: 'a negative QPS', env: { EVERYNODE_API_QPS: '-5' }, names: [/EVERYNODE_API_QPS/] },
    { name: 'a QPS that is no number', env: { EVERYNODE_API_QPS: 'fast' }, names: [/EVERYNODE_API_QPS/] },
    {
      name: 'a run under 10 s',
      env: { EVERYNODE_RELAY_RUN_SECONDS: '9' },
      names: [/EVERYNODE_RELAY_RUN_SECONDS/],
    },
    {
      name: 'a run past 840 s (the Lambda maximum less the overlap)',
      env: { EVERYNODE_RELAY_RUN_SECONDS: '841' },
      names: [/EVERYNODE_RELAY_RUN_SECONDS/],
    },
    {
      name: 'a run of a fraction of a second',
      env: { EVERYNODE_RELAY_RUN_SECONDS: '60.5' },
      names: [/EVERYNODE_RELAY_RUN_SECONDS/],
    },
    {
      name: 'several bad variables at once: each named',
      env: {
        EVERYNODE_EVENT_BUS_NAME: undefined,
        EVERYNODE_RELAY_CHECKPOINT_PARAMETER: '',
        EVERYNODE_API_QPS: '0',
      },
      names: [/EVERYNODE_EVENT_BUS_NAME/, /EVERYNODE_RELAY_CHECKPOINT_PARAMETER/, /EVERYNODE_API_QPS/],
    },
  ])('rejects $name', ({ env, names }) => {
    const error = refusal({ ...required, ...env });
    expect(error.message).toMatch(/^reading the relay configuration from the environment: /);
    expect(error.message).not.toContain('\n');
    for (const name of names) expect(error.message).toMatch(name);
  });

  it.each([
    { name: 'its cluster name', drop: 'EVERYNODE_CLUSTER_NAME' },
    { name: 'its CA', drop: 'EVERYNODE_CLUSTER_CA' },
    { name: 'a region', drop: 'AWS_REGION' },
  ])('rejects an EKS endpoint without $name, naming what it needs', ({ drop }) => {
    const env: Record<string, string | undefined> = {
      ...required,
      ...eks,
      AWS_REGION: 'eu-west-1',
      [drop]: undefined,
    };
    expect(refusal(env).message).toBe(
      'reading the relay configuration: EVERYNODE_CLUSTER_ENDPOINT needs EVERYNODE_CLUSTER_NAME, EVERYNODE_CLUSTER_CA and AWS_REGION',
    );
  });
});

function eksCluster(region: string) {
  return { name: 'prod', endpoint: eks.EVERYNODE_CLUSTER_ENDPOINT, ca: 'Q0E=', region };
}

/** The FunctionConfigError `env` is refused with (fails the test when it is accepted or fails otherwise). */
function refusal(env: Readonly<Record<string, string | undefined>>): FunctionConfigError {
  try {
    relayConfigFromEnvironment(env);
  } catch (error) {
    expect(error).toBeInstanceOf(FunctionConfigError);
    return error as FunctionConfigError;
  }
  throw new Error('the configuration was accepted');
}
