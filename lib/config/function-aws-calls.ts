/**
 * The shape of the tables that list, next to the code that makes them, the AWS API calls each
 * function makes: the CDK stack must grant exactly these, and test/infra checks the synthesized
 * template against them. A resource is named by the environment variable through which the stack
 * hands the function its URL, name or ARN, so the table and the template meet on one name.
 */
import type { EnvironmentName } from './environment-names.ts';

/** Which resources an IAM statement must name for one call. */
export type AwsCallResource =
  /** The one resource whose URL, name or ARN the function reads from this environment variable. */
  | { readonly kind: 'named-by'; readonly variable: EnvironmentName }
  /** Every resource (`*`): the action has no resource-level permissions in IAM. */
  | { readonly kind: 'any' }
  /**
   * The function itself, whose ARN the code takes from its invocation's context: the relay invoking
   * its successor. Granted in a policy of its own, attached after the function exists (the
   * function's ARN in its role's default policy would make the function depend on itself).
   */
  | { readonly kind: 'own-function' }
  /**
   * No IAM statement: the call is a presigned URL that EKS sends to STS (GetCallerIdentity needs
   * no permission); what EKS then requires is an access entry for the function's role.
   */
  | { readonly kind: 'eks-access-entry' };

/** One AWS API call a function's code makes. */
export interface AwsCall {
  /**
   * The API operation as the code names it: the AWS SDK v3 command it sends without the `Command`
   * suffix (`SendMessageBatch`), or the `Action` of a query it presigns.
   */
  readonly operation: string;
  /** The IAM action that authorizes it (SQS authorizes SendMessageBatch as `sqs:SendMessage`). */
  readonly action: string;
  readonly resource: AwsCallResource;
  /** What the function needs the call for. */
  readonly purpose: string;
}

/** Everything a function does on AWS with its own role. */
export interface FunctionAwsCalls {
  /**
   * The queue that Lambda's event source mapping polls for the function, named by its variable:
   * Lambda receives, deletes and reads its attributes with the function's role, not the code.
   */
  readonly consumes?: EnvironmentName;
  /** The calls the function's code makes. */
  readonly calls: readonly AwsCall[];
}
