/**
 * The one question every AWS call in the offline deployment asks: may this principal perform this
 * action on this resource? Answered by the IAM evaluator over the synthesized template's policies
 * (iam-authorizer.ts); asked by the local AWS endpoint for SDK calls and by the local EventBridge for
 * deliveries to its targets.
 */

/** Who makes a call. */
export type AwsPrincipal =
  /** An IAM role's session (a Lambda function's execution role, an EventBridge rule's role). */
  | { readonly type: 'role'; readonly roleArn: string; readonly sessionName: string }
  /** An IAM user (the operator running the CLI). */
  | { readonly type: 'user'; readonly userArn: string }
  /** An AWS service acting on its own (EventBridge delivering to a queue or a function). */
  | { readonly type: 'service'; readonly service: string };

/** One authorization question. */
export interface AuthorizationRequest {
  readonly principal: AwsPrincipal;
  /** `service:Action`, e.g. `sqs:SendMessage`. */
  readonly action: string;
  /** The resource's ARN, or `*` for actions without resource-level permissions. */
  readonly resource: string;
  /**
   * Condition context beyond what the evaluator derives (aws:SecureTransport, aws:SourceArn…),
   * e.g. `{ 'aws:SourceArn': ruleArn }` for a delivery by EventBridge.
   */
  readonly context?: Readonly<Record<string, string | readonly string[]>>;
}

/** The answer, with the evaluator's reason when denied. */
export interface AuthorizationDecision {
  readonly allowed: boolean;
  /** AWS's wording: `User: … is not authorized to perform: … on resource: … because …`. */
  readonly message: string;
}

/** Answers authorization questions. */
export type Authorize = (request: AuthorizationRequest) => Promise<AuthorizationDecision>;

/** The ARN a principal is known by in policies' `aws:PrincipalArn` and in error messages. */
export function principalArnOf(principal: AwsPrincipal, account: string): string {
  switch (principal.type) {
    case 'role': {
      const roleName = principal.roleArn.split('/').pop() ?? '';
      return `arn:aws:sts::${account}:assumed-role/${roleName}/${principal.sessionName}`;
    }
    case 'user':
      return principal.userArn;
    case 'service':
      return principal.service;
  }
}
