/**
 * EC2 DescribeInstances behind the local AWS endpoint, answered in EC2's XML from the instances the
 * harness says exist: `InstanceId.N` (an unknown id is InvalidInstanceID.NotFound, a malformed one
 * InvalidInstanceID.Malformed, as EC2 answers) and the filters `instance-id` and `private-dns-name`
 * (no match is an empty reservation set). DescribeInstances has no resource-level permissions:
 * IAM is asked about `*`.
 */
import { randomUUID } from 'node:crypto';
import { type AwsService, AwsServiceError, escapeXml, type GatewayResponse } from './aws-gateway-protocol.ts';

/** An instance the harness reports. */
export interface Ec2Instance {
  readonly instanceId: string;
  readonly privateDnsName: string;
  /** `pending`, `running`, `shutting-down`, `terminated`, `stopping` or `stopped`. */
  readonly state: string;
}

const STATE_CODES: Readonly<Record<string, number>> = {
  pending: 0,
  running: 16,
  'shutting-down': 32,
  terminated: 48,
  stopping: 64,
  stopped: 80,
};
const INSTANCE_ID = /^i-([0-9a-f]{8}|[0-9a-f]{17})$/;

/** The numbered members `<prefix>.1`, `<prefix>.2`… of a query-protocol form. */
function members(form: URLSearchParams, prefix: string): string[] {
  const values: string[] = [];
  for (let i = 1; form.has(`${prefix}.${i}`); i++) values.push(form.get(`${prefix}.${i}`) ?? '');
  return values;
}

/** Whether `value` matches an EC2 filter value (`*` and `?` wildcards). */
function matchesFilterValue(value: string, pattern: string): boolean {
  const regex = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${regex}$`).test(value);
}

/** The instances `form` selects out of `instances`; throws AwsServiceError as EC2 answers. */
function selectInstances(form: URLSearchParams, instances: readonly Ec2Instance[]): Ec2Instance[] {
  const ids = members(form, 'InstanceId');
  for (const id of ids) {
    if (!INSTANCE_ID.test(id))
      throw new AwsServiceError('InvalidInstanceID.Malformed', `Invalid id: "${id}"`);
  }
  const unknown = ids.filter((id) => !instances.some((instance) => instance.instanceId === id));
  if (unknown.length > 0) {
    const quoted = unknown.map((id) => `'${id}'`).join(', ');
    throw new AwsServiceError(
      'InvalidInstanceID.NotFound',
      `The instance ID${unknown.length > 1 ? 's' : ''} ${quoted} ${unknown.length > 1 ? 'do' : 'does'} not exist`,
    );
  }
  let selected =
    ids.length > 0 ? instances.filter((instance) => ids.includes(instance.instanceId)) : [...instances];
  for (let i = 1; form.has(`Filter.${i}.Name`); i++) {
    const name = form.get(`Filter.${i}.Name`);
    const values = members(form, `Filter.${i}.Value`);
    const field: Record<string, (instance: Ec2Instance) => string> = {
      'instance-id': (instance) => instance.instanceId,
      'private-dns-name': (instance) => instance.privateDnsName,
      'instance-state-name': (instance) => instance.state,
    };
    const of = field[name ?? ''];
    if (!of) throw new AwsServiceError('InvalidParameterValue', `The filter '${name}' is invalid`);
    selected = selected.filter((instance) => values.some((value) => matchesFilterValue(of(instance), value)));
  }
  return selected;
}

function instanceXml(instance: Ec2Instance): string {
  return (
    `<item><instanceId>${escapeXml(instance.instanceId)}</instanceId>` +
    `<instanceState><code>${STATE_CODES[instance.state] ?? 16}</code><name>${escapeXml(instance.state)}</name></instanceState>` +
    `<privateDnsName>${escapeXml(instance.privateDnsName)}</privateDnsName></item>`
  );
}

/** The DescribeInstances answer: one reservation per instance, as instances launched one by one. */
function describeInstancesXml(account: string, instances: readonly Ec2Instance[]): GatewayResponse {
  const reservations = instances
    .map(
      (instance) =>
        `<item><reservationId>r-${instance.instanceId.slice(2)}</reservationId><ownerId>${account}</ownerId>` +
        `<groupSet/><instancesSet>${instanceXml(instance)}</instancesSet></item>`,
    )
    .join('');
  return {
    status: 200,
    headers: { 'content-type': 'text/xml;charset=UTF-8' },
    body:
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
      '<DescribeInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">' +
      `<requestId>${randomUUID()}</requestId><reservationSet>${reservations}</reservationSet>` +
      '</DescribeInstancesResponse>',
  };
}

/** The EC2 service of the gateway: DescribeInstances over `instances()`. */
export function ec2Service(account: string, instances: () => readonly Ec2Instance[]): AwsService {
  return {
    protocol: 'ec2-query',
    supports: (operation) => operation === 'DescribeInstances',
    requirements: (call) => [{ action: `ec2:${call.operation}`, resource: '*' }],
    async handle(call) {
      return describeInstancesXml(account, selectInstances(call.form ?? new URLSearchParams(), instances()));
    },
  };
}
