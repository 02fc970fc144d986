/**
 * The IAM policies a synthesized template puts in force once deployed: for a role, every identity
 * policy IAM attaches to it (`AWS::IAM::Policy` and `AWS::IAM::ManagedPolicy` naming it in `Roles`,
 * the role's inline `Policies`, its `ManagedPolicyArns`); for a resource, the resource policy its
 * service stores (`AWS::SQS::QueuePolicy` on a queue, the statements `AWS::Lambda::Permission`
 * adds to a function's policy). IAM users the harness adds (the operator running the CLI) are
 * registered with their policies. A template construct this file cannot honour (an AWS managed
 * policy it has no document for, a resource policy type it does not read, two policies on one
 * queue) throws, so the evaluator never silently answers from a partial picture.
 */
import type { DeployedStack } from './deployed-stack.ts';

/** One statement of an IAM policy document, as written in a template. */
export type PolicyStatement = Readonly<Record<string, unknown>>;

/** An IAM policy document. */
export interface PolicyDocument {
  readonly Version?: string;
  readonly Statement: readonly PolicyStatement[] | PolicyStatement;
}

/** An identity policy and the name it is known by (the explanation of a decision names it). */
export interface NamedPolicy {
  readonly name: string;
  readonly document: PolicyDocument;
}

/**
 * AWS managed policies the harness knows the document of (as AWS publishes them); a role attached
 * to any other throws, since evaluating it without its statements would be wrong.
 */
const AWS_MANAGED_POLICIES: Readonly<Record<string, PolicyDocument>> = {
  'arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole': {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Action: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: '*',
      },
    ],
  },
};

/** Resource types that carry a resource policy this file does not read: their presence throws. */
const UNREAD_RESOURCE_POLICIES = new Set([
  'AWS::SQS::QueueInlinePolicy',
  'AWS::Events::EventBusPolicy',
  'AWS::SNS::TopicPolicy',
  'AWS::S3::BucketPolicy',
  'AWS::KMS::Key',
  'AWS::SecretsManager::ResourcePolicy',
]);

/** The template's policies, read once; registered users added as the harness creates them. */
export class StackPolicies {
  readonly stack: DeployedStack;
  private readonly roles = new Map<string, NamedPolicy[]>();
  private readonly users = new Map<string, NamedPolicy[]>();
  private readonly resources = new Map<string, PolicyStatement[]>();

  constructor(stack: DeployedStack) {
    this.stack = stack;
    for (const [logicalId, resource] of Object.entries(stack.template.Resources)) {
      if (UNREAD_RESOURCE_POLICIES.has(resource.Type)) {
        throw new Error(
          `the harness does not evaluate the resource policy of ${logicalId} (${resource.Type})`,
        );
      }
      if (resource.Type === 'AWS::Events::EventBus' && resource.Properties?.Policy !== undefined) {
        throw new Error(`the harness does not evaluate the Policy of the event bus ${logicalId}`);
      }
    }
    for (const [logicalId] of stack.resourcesOfType('AWS::IAM::Role')) {
      this.roles.set(stack.attribute(logicalId, 'Arn'), this.rolePolicies(logicalId));
    }
    this.readQueuePolicies();
    this.readLambdaPermissions();
  }

  /** Whether `roleArn` is a role of the template. */
  hasRole(roleArn: string): boolean {
    return this.roles.has(roleArn);
  }

  /** The identity policies of a role of the template or a registered user; throws for others. */
  identityPolicies(principalArn: string): readonly NamedPolicy[] {
    const policies = this.roles.get(principalArn) ?? this.users.get(principalArn);
    if (!policies) throw new Error(`no role or registered user ${principalArn} in the deployed stack`);
    return policies;
  }

  /** The resource policy stored on `resourceArn`, if it has one. */
  resourcePolicy(resourceArn: string): PolicyDocument | undefined {
    const statements = this.resources.get(resourceArn);
    return statements ? { Version: '2012-10-17', Statement: statements } : undefined;
  }

  /** Adds an IAM user (e.g. `arn:aws:iam::<account>:user/operator`) with its identity policies. */
  registerUser(userArn: string, policies: PolicyDocument | readonly NamedPolicy[]): void {
    if (!/^arn:aws:iam::\d{12}:user\/.+/.test(userArn)) throw new Error(`not an IAM user ARN: ${userArn}`);
    const named = 'Statement' in policies ? [{ name: 'inline', document: policies }] : [...policies];
    this.users.set(userArn, named);
  }

  private rolePolicies(roleLogicalId: string): NamedPolicy[] {
    const { stack } = this;
    const roleName = stack.ref(roleLogicalId);
    const role = stack.resource(roleLogicalId);
    const policies: NamedPolicy[] = [];
    const inline = (role.Properties?.Policies ?? []) as unknown[];
    for (const entry of inline) {
      const { PolicyName, PolicyDocument } = stack.resolve<{
        PolicyName: string;
        PolicyDocument: PolicyDocument;
      }>(entry);
      policies.push({ name: PolicyName, document: PolicyDocument });
    }
    for (const type of ['AWS::IAM::Policy', 'AWS::IAM::ManagedPolicy']) {
      for (const [logicalId, resource] of stack.resourcesOfType(type)) {
        const roles = stack.resolve<string[]>(resource.Properties?.Roles ?? []);
        if (!roles.includes(roleName)) continue;
        const document = stack.resolve<PolicyDocument>(resource.Properties?.PolicyDocument);
        policies.push({ name: String(resource.Properties?.PolicyName ?? logicalId), document });
      }
    }
    for (const arn of (role.Properties?.ManagedPolicyArns ?? []) as unknown[]) {
      policies.push(this.managedPolicy(arn, roleLogicalId));
    }
    return policies;
  }

  /** A `ManagedPolicyArns` entry: a template `AWS::IAM::ManagedPolicy` or a known AWS managed policy. */
  private managedPolicy(arn: unknown, roleLogicalId: string): NamedPolicy {
    const { stack } = this;
    const ref = typeof arn === 'object' && arn !== null ? (arn as { Ref?: unknown }).Ref : undefined;
    if (typeof ref === 'string' && stack.template.Resources[ref]?.Type === 'AWS::IAM::ManagedPolicy') {
      return {
        name: ref,
        document: stack.resolve<PolicyDocument>(stack.resource(ref).Properties?.PolicyDocument),
      };
    }
    const resolved = stack.resolve<string>(arn);
    const document = AWS_MANAGED_POLICIES[resolved];
    if (!document)
      throw new Error(`${roleLogicalId} attaches ${resolved}, whose document the harness does not have`);
    return { name: resolved.split('/').pop() ?? resolved, document };
  }

  private readQueuePolicies(): void {
    const { stack } = this;
    for (const [logicalId] of stack.resourcesOfType('AWS::SQS::QueuePolicy')) {
      const { Queues, PolicyDocument } = stack.properties<{
        Queues: string[];
        PolicyDocument: PolicyDocument;
      }>(logicalId);
      for (const url of Queues) {
        const queueId = stack.logicalIdOf(url);
        if (!queueId) throw new Error(`${logicalId} names ${url}, which is no queue of the template`);
        const arn = stack.attribute(queueId, 'Arn');
        if (this.resources.has(arn)) {
          throw new Error(`two queue policies set the policy of ${arn}; the last deployed would win`);
        }
        this.resources.set(arn, statementsOf(PolicyDocument));
      }
    }
  }

  private readLambdaPermissions(): void {
    const { stack } = this;
    for (const [logicalId] of stack.resourcesOfType('AWS::Lambda::Permission')) {
      const permission = stack.properties<LambdaPermission>(logicalId);
      const functionArn = permission.FunctionName.startsWith('arn:')
        ? permission.FunctionName
        : `arn:aws:lambda:${stack.region}:${stack.account}:function:${permission.FunctionName}`;
      const statements = this.resources.get(functionArn) ?? [];
      statements.push(lambdaPermissionStatement(logicalId, functionArn, permission));
      this.resources.set(functionArn, statements);
    }
  }
}

/** The resolved properties of an `AWS::Lambda::Permission`. */
interface LambdaPermission {
  readonly Action: string;
  readonly FunctionName: string;
  readonly Principal: string;
  readonly SourceArn?: string;
  readonly SourceAccount?: string;
  readonly PrincipalOrgID?: string;
  readonly FunctionUrlAuthType?: string;
}

/**
 * The statement Lambda's AddPermission stores for `permission`: a service principal as `Service`,
 * an account id as its root ARN, the conditions under the keys Lambda writes them with.
 */
function lambdaPermissionStatement(
  sid: string,
  functionArn: string,
  permission: LambdaPermission,
): PolicyStatement {
  const { Principal: principal } = permission;
  const principalElement =
    principal === '*'
      ? '*'
      : principal.endsWith('.amazonaws.com')
        ? { Service: principal }
        : { AWS: /^\d{12}$/.test(principal) ? `arn:aws:iam::${principal}:root` : principal };
  const condition: Record<string, Record<string, string>> = {};
  const add = (operator: string, key: string, value: string | undefined) => {
    if (value) condition[operator] = { ...condition[operator], [key]: value };
  };
  add('ArnLike', 'AWS:SourceArn', permission.SourceArn);
  add('StringEquals', 'AWS:SourceAccount', permission.SourceAccount);
  add('StringEquals', 'aws:PrincipalOrgID', permission.PrincipalOrgID);
  add('StringEquals', 'lambda:FunctionUrlAuthType', permission.FunctionUrlAuthType);
  return {
    Sid: sid,
    Effect: 'Allow',
    Principal: principalElement,
    Action: permission.Action,
    Resource: functionArn,
    ...(Object.keys(condition).length > 0 ? { Condition: condition } : {}),
  };
}

function statementsOf(document: PolicyDocument): PolicyStatement[] {
  return Array.isArray(document.Statement)
    ? [...(document.Statement as PolicyStatement[])]
    : [document.Statement as PolicyStatement];
}
