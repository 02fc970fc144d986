/**
 * SSM Parameter Store behind the local AWS endpoint: an in-memory store seeded with the template's
 * `AWS::SSM::Parameter` resources (version 1 each, as CloudFormation creates them), answering
 * GetParameter and PutParameter as the SSM API reference documents them — `Overwrite` to replace a
 * value, the version counting up, ParameterNotFound, ParameterAlreadyExists, the 4 KB limit of a
 * standard parameter. The IAM resource of a call is the parameter's ARN
 * (`arn:aws:ssm:<region>:<account>:parameter/<name without its leading slash>`).
 */
import { type AwsService, AwsServiceError, jsonResponse } from './aws-gateway-protocol.ts';
import type { DeployedStack } from './deployed-stack.ts';

/** One stored parameter. */
export interface StoredParameter {
  readonly name: string;
  readonly type: string;
  readonly value: string;
  readonly version: number;
  readonly lastModified: Date;
  readonly description?: string;
}

const TYPES = new Set(['String', 'StringList', 'SecureString']);
const STANDARD_VALUE_LIMIT = 4096;

/** The parameters of a deployment, by name. */
export class SsmParameters {
  private readonly parameters = new Map<string, StoredParameter>();

  constructor(
    private readonly account: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** A store holding `stack`'s `AWS::SSM::Parameter` resources. */
  static fromStack(stack: DeployedStack, now?: () => Date): SsmParameters {
    const store = new SsmParameters(stack.account, now);
    for (const [logicalId] of stack.resourcesOfType('AWS::SSM::Parameter')) {
      const props = stack.properties<{ Type?: string; Value: string; Description?: string }>(logicalId);
      store.put({
        Name: stack.ref(logicalId),
        Type: props.Type ?? 'String',
        Value: props.Value,
        Description: props.Description,
      });
    }
    return store;
  }

  /** The parameter `name`, if stored. */
  get(name: string): StoredParameter | undefined {
    return this.parameters.get(name);
  }

  /** The name a request's `Name` (a name or a parameter ARN) designates. */
  nameOf(name: unknown): string {
    const text = String(name ?? '');
    const arn = /^arn:aws:ssm:[^:]*:\d{12}:parameter(\/.*)$/.exec(text);
    if (!arn) return text;
    const path = arn[1] ?? '';
    return path.split('/').length > 2 ? path : path.slice(1);
  }

  /** The ARN of parameter `name` in `region`. */
  arnOf(name: string, region: string): string {
    return `arn:aws:ssm:${region}:${this.account}:parameter/${name.replace(/^\//, '')}`;
  }

  /** PutParameter: the new version; throws AwsServiceError as SSM answers. */
  put(input: Readonly<Record<string, unknown>>): { version: number } {
    const name = this.nameOf(input.Name);
    const value = input.Value;
    if (!name) throw new AwsServiceError('ValidationException', 'Parameter name must not be empty.');
    if (typeof value !== 'string')
      throw new AwsServiceError('ValidationException', 'Parameter value must not be empty.');
    if (value.length > STANDARD_VALUE_LIMIT) {
      throw new AwsServiceError(
        'ValidationException',
        `Standard tier parameters support a maximum parameter value of ${STANDARD_VALUE_LIMIT} characters.`,
      );
    }
    const existing = this.parameters.get(name);
    if (existing && input.Overwrite !== true) {
      throw new AwsServiceError(
        'ParameterAlreadyExists',
        'The parameter already exists. To overwrite this value, set the overwrite option in the request to true.',
      );
    }
    const type = input.Type === undefined ? existing?.type : String(input.Type);
    if (!type)
      throw new AwsServiceError(
        'ValidationException',
        'A parameter type is required when you create a parameter.',
      );
    if (!TYPES.has(type))
      throw new AwsServiceError('ValidationException', `Parameter type ${type} is not valid.`);
    const version = (existing?.version ?? 0) + 1;
    const description = input.Description === undefined ? existing?.description : String(input.Description);
    this.parameters.set(name, {
      name,
      type,
      value,
      version,
      lastModified: this.now(),
      ...(description === undefined ? {} : { description }),
    });
    return { version };
  }
}

/** The SSM service of the gateway over `parameters`. */
export function ssmService(parameters: SsmParameters): AwsService {
  return {
    protocol: 'json-1.1',
    supports: (operation) => operation === 'GetParameter' || operation === 'PutParameter',
    requirements: (call) => [
      {
        action: `ssm:${call.operation}`,
        resource: parameters.arnOf(parameters.nameOf(call.input.Name), call.region),
      },
    ],
    async handle(call) {
      if (call.operation === 'PutParameter') {
        const { version } = parameters.put(call.input);
        return jsonResponse('json-1.1', { Version: version, Tier: 'Standard' });
      }
      const name = parameters.nameOf(call.input.Name);
      const parameter = parameters.get(name);
      if (!parameter) throw new AwsServiceError('ParameterNotFound', `Parameter ${name} not found.`);
      return jsonResponse('json-1.1', {
        Parameter: {
          Name: parameter.name,
          Type: parameter.type,
          Value: parameter.value,
          Version: parameter.version,
          LastModifiedDate: parameter.lastModified.getTime() / 1000,
          ARN: parameters.arnOf(parameter.name, call.region),
          DataType: 'text',
        },
      });
    },
  };
}
