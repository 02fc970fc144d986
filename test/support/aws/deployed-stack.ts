/**
 * A synthesized CloudFormation template as if deployed into one account and region: every resource
 * gets the physical id (`Ref`) and attributes (`Fn::GetAtt`) CloudFormation would give it, named
 * deterministically (`<stack>-<logicalId>`; CloudFormation adds a random suffix, which nothing here
 * relies on), and `resolve` evaluates the intrinsic functions the template uses (`Ref`,
 * `Fn::GetAtt`, `Fn::Join`, `Fn::Sub`, `Fn::Select`, `Fn::Split`, the pseudo parameters). A
 * reference to a resource type or attribute this file does not know throws, so a template change the
 * harness cannot honour fails loudly instead of wiring a wrong value.
 *
 * Queue URLs point at the local AWS endpoint (`endpoint`), so SDK calls with a queue URL reach it
 * whatever endpoint logic the SDK applies. Custom resources (CDK's AwsCustomResource) answer with
 * the attributes the harness supplies for them (`customResources`).
 */

/** One resource of a template. */
export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly Metadata?: Record<string, unknown>;
  readonly DependsOn?: string | string[];
}

/** The parts of a template the harness reads. */
export interface CfnTemplate {
  readonly Resources: Record<string, CfnResource>;
  readonly Parameters?: Record<string, { Type: string; Default?: string }>;
}

/**
 * The logical id of the resource at construct path `path` below the `Everynode` construct of stack
 * `stackName` (its `aws:cdk:path` metadata, e.g. `Queues/Work/Resource`), whose id is `constructId`
 * (`Default` in the repository's app, infra/app.ts); throws when there is none.
 */
export function logicalIdAt(
  template: CfnTemplate,
  path: string,
  stackName = 'Everynode',
  constructId = 'Default',
): string {
  const found = Object.entries(template.Resources).find(
    ([, r]) => r.Metadata?.['aws:cdk:path'] === `${stackName}/${constructId}/${path}`,
  );
  if (!found) throw new Error(`the template has no resource at ${path}`);
  return found[0];
}

/** Where and how the template is "deployed". */
export interface DeploymentTarget {
  readonly account: string;
  readonly region: string;
  readonly stackName: string;
  /** Base URL of the local AWS endpoint, e.g. `https://127.0.0.1:4566` (queue URLs point here). */
  readonly endpoint: string;
  /** Attributes of custom resources by logical id (e.g. `cluster.endpoint` of DescribeCluster). */
  readonly customResources?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/** The physical identity of one resource. */
interface Physical {
  readonly ref: string;
  readonly attributes: Readonly<Record<string, string>>;
}

/** A template resolved against a deployment target. */
export class DeployedStack {
  readonly template: CfnTemplate;
  readonly target: DeploymentTarget;
  private readonly physical = new Map<string, Physical>();

  constructor(template: CfnTemplate, target: DeploymentTarget) {
    this.template = template;
    this.target = target;
  }

  get account(): string {
    return this.target.account;
  }

  get region(): string {
    return this.target.region;
  }

  /** The resource `logicalId`; throws when the template has none. */
  resource(logicalId: string): CfnResource {
    const resource = this.template.Resources[logicalId];
    if (!resource) throw new Error(`the template has no resource ${logicalId}`);
    return resource;
  }

  /** `[logicalId, resource]` of every resource of `type`, in template order. */
  resourcesOfType(type: string): Array<[string, CfnResource]> {
    return Object.entries(this.template.Resources).filter(([, r]) => r.Type === type);
  }

  /** What `{ Ref: logicalId }` resolves to. */
  ref(logicalId: string): string {
    return this.physicalOf(logicalId).ref;
  }

  /** What `{ 'Fn::GetAtt': [logicalId, attribute] }` resolves to. */
  attribute(logicalId: string, attribute: string): string {
    const value = this.physicalOf(logicalId).attributes[attribute];
    if (value === undefined) {
      throw new Error(`${logicalId} (${this.resource(logicalId).Type}) has no attribute ${attribute} here`);
    }
    return value;
  }

  /** The logical id whose `Ref` or `Arn` attribute is `value`, if any. */
  logicalIdOf(value: string): string | undefined {
    for (const logicalId of Object.keys(this.template.Resources)) {
      const physical = this.tryPhysical(logicalId);
      if (physical && (physical.ref === value || Object.values(physical.attributes).includes(value))) {
        return logicalId;
      }
    }
    return undefined;
  }

  /** `value` with every intrinsic function evaluated. */
  resolve<T = unknown>(value: unknown): T {
    return this.evaluate(value) as T;
  }

  /** The resolved `Properties` of `logicalId`. */
  properties<T = Record<string, unknown>>(logicalId: string): T {
    return this.resolve<T>(this.resource(logicalId).Properties ?? {});
  }

  private evaluate(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((v) => this.evaluate(v));
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value as Record<string, unknown>);
    const [first] = entries;
    if (entries.length === 1 && first && (first[0] === 'Ref' || first[0].startsWith('Fn::'))) {
      return this.intrinsic(first[0], first[1]);
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, this.evaluate(v)]));
  }

  private intrinsic(name: string, argument: unknown): unknown {
    switch (name) {
      case 'Ref':
        return this.refOf(String(argument));
      case 'Fn::GetAtt': {
        const [logicalId, attribute] = (
          Array.isArray(argument) ? argument : String(argument).split(/\.(.*)/s)
        ) as [string, string];
        return this.attribute(logicalId, String(this.evaluate(attribute)));
      }
      case 'Fn::Join': {
        const [separator, parts] = argument as [string, unknown[]];
        return (this.evaluate(parts) as unknown[]).map(String).join(separator);
      }
      case 'Fn::Select': {
        const [index, list] = argument as [unknown, unknown];
        return (this.evaluate(list) as unknown[])[Number(this.evaluate(index))];
      }
      case 'Fn::Split': {
        const [separator, source] = argument as [string, unknown];
        return String(this.evaluate(source)).split(separator);
      }
      case 'Fn::Sub':
        return this.substitute(argument);
      default:
        throw new Error(`the harness does not evaluate ${name}`);
    }
  }

  private substitute(argument: unknown): string {
    const [text, variables] = (Array.isArray(argument) ? argument : [argument, {}]) as [
      string,
      Record<string, unknown>,
    ];
    return text.replace(/\$\{([^}!][^}]*)\}/g, (_, name: string) => {
      if (name in variables) return String(this.evaluate(variables[name]));
      const [logicalId, attribute] = name.split(/\.(.*)/s) as [string, string | undefined];
      return attribute ? this.attribute(logicalId, attribute) : this.refOf(logicalId);
    });
  }

  private refOf(name: string): string {
    const pseudo: Record<string, string> = {
      'AWS::AccountId': this.target.account,
      'AWS::Region': this.target.region,
      'AWS::Partition': 'aws',
      'AWS::URLSuffix': 'amazonaws.com',
      'AWS::StackName': this.target.stackName,
      'AWS::StackId': `arn:aws:cloudformation:${this.target.region}:${this.target.account}:stack/${this.target.stackName}/00000000-0000-0000-0000-000000000000`,
      'AWS::NoValue': '',
    };
    const value = pseudo[name];
    if (value !== undefined) return value;
    const parameter = this.template.Parameters?.[name];
    if (parameter?.Default !== undefined) return parameter.Default;
    return this.ref(name);
  }

  private physicalOf(logicalId: string): Physical {
    const physical = this.tryPhysical(logicalId);
    if (!physical) {
      throw new Error(`the harness cannot deploy ${logicalId} (${this.resource(logicalId).Type})`);
    }
    return physical;
  }

  private tryPhysical(logicalId: string): Physical | undefined {
    const cached = this.physical.get(logicalId);
    if (cached) return cached;
    const made = this.makePhysical(logicalId, this.resource(logicalId));
    if (made) this.physical.set(logicalId, made);
    return made;
  }

  private makePhysical(logicalId: string, resource: CfnResource): Physical | undefined {
    const { account, region, stackName, endpoint } = this.target;
    const props = resource.Properties ?? {};
    const named = (key: string) =>
      props[key] === undefined ? `${stackName}-${logicalId}` : String(this.evaluate(props[key]));
    const arn = (service: string, rest: string) => `arn:aws:${service}:${region}:${account}:${rest}`;
    switch (resource.Type) {
      case 'AWS::SQS::Queue': {
        const base = named('QueueName');
        const name = props.FifoQueue === true && !base.endsWith('.fifo') ? `${base}.fifo` : base;
        return {
          ref: `${endpoint}/${account}/${name}`,
          attributes: { Arn: arn('sqs', name), QueueName: name, QueueUrl: `${endpoint}/${account}/${name}` },
        };
      }
      case 'AWS::IAM::Role': {
        const name = named('RoleName');
        return {
          ref: name,
          attributes: { Arn: `arn:aws:iam::${account}:role/${name}`, RoleId: `AROA${name}` },
        };
      }
      case 'AWS::Lambda::Function': {
        const name = named('FunctionName');
        return { ref: name, attributes: { Arn: arn('lambda', `function:${name}`) } };
      }
      case 'AWS::Events::EventBus': {
        const name = named('Name');
        return { ref: name, attributes: { Arn: arn('events', `event-bus/${name}`), Name: name } };
      }
      case 'AWS::Events::Rule': {
        const name = named('Name');
        const bus = props.EventBusName === undefined ? 'default' : String(this.evaluate(props.EventBusName));
        const path = bus === 'default' ? name : `${bus}/${name}`;
        return { ref: name, attributes: { Arn: arn('events', `rule/${path}`) } };
      }
      case 'AWS::Events::Archive': {
        const name = named('ArchiveName');
        return { ref: name, attributes: { Arn: arn('events', `archive/${name}`) } };
      }
      case 'AWS::SSM::Parameter': {
        const name = props.Name === undefined ? `CFN-${logicalId}` : String(this.evaluate(props.Name));
        return {
          ref: name,
          attributes: { Type: String(props.Type ?? 'String'), Value: String(props.Value) },
        };
      }
      case 'AWS::Logs::LogGroup': {
        const name = named('LogGroupName');
        return { ref: name, attributes: { Arn: arn('logs', `log-group:${name}:*`) } };
      }
      case 'AWS::IAM::Policy':
      case 'AWS::SQS::QueuePolicy':
      case 'AWS::Lambda::Permission':
      case 'AWS::Lambda::EventSourceMapping':
      case 'AWS::EKS::AccessEntry':
      case 'AWS::CloudWatch::Alarm':
      case 'AWS::CloudWatch::Dashboard':
        return { ref: `${stackName}-${logicalId}`, attributes: {} };
      default: {
        const custom = this.target.customResources?.[logicalId];
        if (
          custom &&
          (resource.Type.startsWith('Custom::') || resource.Type === 'AWS::CloudFormation::CustomResource')
        ) {
          return { ref: `${stackName}-${logicalId}`, attributes: custom };
        }
        return undefined;
      }
    }
  }
}
