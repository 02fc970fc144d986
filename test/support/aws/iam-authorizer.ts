/**
 * The IAM evaluator of the offline deployment: every authorization question is answered by
 * `@cloud-copilot/iam-simulate` over the policies the synthesized template deploys
 * (iam-policies.ts) — the identity policies of the calling role or user and the resource policy of
 * the resource — with the request context AWS would supply. A service principal (EventBridge
 * delivering to a queue or invoking a function) has no identity policies: the resource policy
 * alone decides, as on AWS. Denials carry AWS's wording, so a log or an SDK error reads as it would
 * in CloudTrail or from the real service.
 */
import {
  getDenialReasons,
  type RequestAnalysis,
  type RunSimulationResults,
  runSimulation,
} from '@cloud-copilot/iam-simulate';
import {
  type AuthorizationDecision,
  type AuthorizationRequest,
  type Authorize,
  type AwsPrincipal,
  principalArnOf,
} from './authorization.ts';
import type { DeployedStack } from './deployed-stack.ts';
import { StackPolicies } from './iam-policies.ts';

/** Options of createIamAuthorizer. */
export interface IamAuthorizerOptions {
  /** The policies to evaluate; default read from `stack` (pass one to share registered users). */
  readonly policies?: StackPolicies;
  /** The clock behind `aws:CurrentTime`; default the system clock. */
  readonly now?: () => Date;
}

/** The simulation could not run (an action IAM does not know, a malformed policy): a harness bug. */
export class IamSimulationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IamSimulationError';
  }
}

/** The context keys IAM derives from who calls, beyond what the request passes. */
function principalContext(principal: AwsPrincipal, account: string): Record<string, string> {
  switch (principal.type) {
    case 'role': {
      const roleName = principal.roleArn.split('/').pop() ?? '';
      return {
        'aws:PrincipalArn': principal.roleArn,
        'aws:PrincipalAccount': account,
        'aws:PrincipalType': 'AssumedRole',
        'aws:userid': `AROA${roleName}:${principal.sessionName}`,
      };
    }
    case 'user':
      return {
        'aws:PrincipalArn': principal.userArn,
        'aws:PrincipalAccount': account,
        'aws:PrincipalType': 'User',
        'aws:username': principal.userArn.split('/').pop() ?? '',
      };
    case 'service':
      return { 'aws:PrincipalServiceName': principal.service, 'aws:PrincipalIsAWSService': 'true' };
  }
}

/** The account of an ARN, or `fallback` for `*` and ARNs without one. */
function accountOf(resource: string, fallback: string): string {
  return resource.split(':')[4] || fallback;
}

/** `…because no identity-based policy allows…` / `…with an explicit deny in a resource-based policy`. */
function denialReason(
  action: string,
  principal: AwsPrincipal,
  analysis: RequestAnalysis | undefined,
): string {
  const denials = analysis ? getDenialReasons(analysis) : [];
  const explicit = denials.find((denial) => denial.denialType === 'Explicit');
  if (explicit) {
    const where: Record<string, string> = {
      identity: 'an identity-based policy',
      resource: 'a resource-based policy',
      scp: 'a service control policy',
      rcp: 'a resource control policy',
      pb: 'a permissions boundary',
      vpce: 'a VPC endpoint policy',
    };
    return `with an explicit deny in ${where[explicit.policyType] ?? `a ${explicit.policyType} policy`}`;
  }
  const side = principal.type === 'service' ? 'resource-based' : 'identity-based';
  return `because no ${side} policy allows the ${action} action`;
}

/** The analysis of a simulation's (first) result. */
function analysisOf(
  result: Exclude<RunSimulationResults, { resultType: 'error' }>,
): RequestAnalysis | undefined {
  return result.resultType === 'single' ? result.result.analysis : result.results[0]?.analysis;
}

/**
 * An Authorize over `stack`'s policies. The context carries `aws:SecureTransport` true unless the
 * request says otherwise (every caller reaches the gateway over TLS, and AWS's own deliveries are
 * internal), `aws:CurrentTime`, `aws:PrincipalArn` (the role's ARN for a session, as IAM sets it)
 * and `aws:PrincipalAccount`, then whatever the request passes (`aws:SourceArn`…).
 */
export function createIamAuthorizer(
  stack: DeployedStack,
  options: Readonly<IamAuthorizerOptions> = {},
): Authorize {
  const policies = options.policies ?? new StackPolicies(stack);
  const now = options.now ?? (() => new Date());
  return async (request: AuthorizationRequest): Promise<AuthorizationDecision> => {
    const { principal, action, resource } = request;
    const principalArn = principalArnOf(principal, stack.account);
    const identityPolicies =
      principal.type === 'service'
        ? []
        : policies.identityPolicies(principal.type === 'role' ? principal.roleArn : principal.userArn);
    const resourcePolicy = resource === '*' ? undefined : policies.resourcePolicy(resource);
    const contextVariables: Record<string, string | string[]> = {
      'aws:SecureTransport': 'true',
      'aws:CurrentTime': now().toISOString(),
      'aws:EpochTime': String(Math.floor(now().getTime() / 1000)),
      ...principalContext(principal, stack.account),
      ...Object.fromEntries(
        Object.entries(request.context ?? {}).map(([key, value]) => [
          key,
          typeof value === 'string' ? value : [...value],
        ]),
      ),
    };
    const result = await runSimulation(
      {
        request: {
          principal: principalArn,
          action,
          resource: { resource, accountId: accountOf(resource, stack.account) },
          contextVariables,
        },
        identityPolicies: identityPolicies.map((policy) => ({ name: policy.name, policy: policy.document })),
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        ...(resourcePolicy ? { resourcePolicy } : {}),
      },
      {},
    );
    if (result.resultType === 'error') {
      throw new IamSimulationError(
        `evaluating ${action} on ${resource} for ${principalArn}: ${JSON.stringify(result.errors)}`,
      );
    }
    const onResource = resource === '*' ? '' : ` on resource: ${resource}`;
    if (result.overallResult === 'Allowed') {
      return {
        allowed: true,
        message: `User: ${principalArn} is authorized to perform: ${action}${onResource}`,
      };
    }
    const reason = denialReason(action, principal, analysisOf(result));
    return {
      allowed: false,
      message: `User: ${principalArn} is not authorized to perform: ${action}${onResource} ${reason}`,
    };
  };
}
