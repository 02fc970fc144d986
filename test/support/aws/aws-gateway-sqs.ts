/**
 * SQS behind the local AWS endpoint: each call is authorized on the queue its `QueueUrl` names
 * (`*Batch` operations as the single action IAM knows), then forwarded to fauxqs. fauxqs keeps its
 * own account (000000000000) and URL host, so queue URLs and ARNs are rewritten on the way in
 * (the deployment's form → fauxqs's) and on the way out (back), message contents excepted.
 */
import {
  type AwsService,
  AwsServiceError,
  type GatewayCall,
  type GatewayResponse,
  type IamRequirement,
} from './aws-gateway-protocol.ts';
import { FAUXQS_ACCOUNT } from './deployed-queues.ts';

/** Where the deployment's queues live and how the gateway names them. */
export interface SqsBackend {
  /** fauxqs's base URL (`FauxqsServer.address`). */
  readonly fauxqsEndpoint: string;
  /** The gateway's base URL: deployed queue URLs are `<endpoint>/<account>/<name>`. */
  readonly endpoint: string;
  readonly account: string;
}

/** The operations fauxqs answers, each asked of IAM as `sqs:<operation without Batch>`. */
const OPERATIONS = new Set([
  'CreateQueue',
  'DeleteQueue',
  'GetQueueUrl',
  'ListQueues',
  'GetQueueAttributes',
  'SetQueueAttributes',
  'PurgeQueue',
  'SendMessage',
  'SendMessageBatch',
  'ReceiveMessage',
  'DeleteMessage',
  'DeleteMessageBatch',
  'ChangeMessageVisibility',
  'ChangeMessageVisibilityBatch',
  'TagQueue',
  'UntagQueue',
  'ListQueueTags',
]);

/** Keys whose values are the sender's data, never rewritten. */
const MESSAGE_CONTENT = new Set(['MessageBody', 'Body', 'MessageAttributes', 'MessageSystemAttributes']);

/** `value` with every string not under a message-content key passed through `rewrite`. */
function rewriteStrings(value: unknown, rewrite: (text: string) => string): unknown {
  if (typeof value === 'string') return rewrite(value);
  if (Array.isArray(value)) return value.map((item) => rewriteStrings(item, rewrite));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      MESSAGE_CONTENT.has(key) ? item : rewriteStrings(item, rewrite),
    ]),
  );
}

/** The SQS service of the gateway over fauxqs. */
export function sqsService(backend: SqsBackend): AwsService {
  const fauxqsUrls = new Map<string, string>();

  /** The queue name of a deployed queue URL (`<any origin>/<account>/<name>`). */
  const queueNameOf = (queueUrl: unknown): string => {
    const match = /^https?:\/\/[^/]+\/(\d{12})\/([\w.-]+)$/.exec(String(queueUrl ?? ''));
    if (!match || match[1] !== backend.account) {
      throw new AwsServiceError(
        'InvalidAddress',
        `The address ${String(queueUrl)} is not valid for this endpoint.`,
      );
    }
    return match[2] ?? '';
  };

  const queueArn = (region: string, name: string, account = backend.account) =>
    `arn:aws:sqs:${region}:${account}:${name}`;

  /** fauxqs's URL of queue `name` (asked once: its URLs carry its own host and port), or its error answer. */
  const fauxqsUrlOf = async (name: string, call: GatewayCall): Promise<string | GatewayResponse> => {
    const known = fauxqsUrls.get(name);
    if (known) return known;
    const answer = await forward('GetQueueUrl', { QueueName: name }, call);
    if (answer.status !== 200) return answer;
    const url = String((JSON.parse(answer.body) as { QueueUrl?: string }).QueueUrl);
    fauxqsUrls.set(name, url);
    return url;
  };

  const forward = async (operation: string, input: unknown, call: GatewayCall): Promise<GatewayResponse> => {
    const response = await fetch(backend.fauxqsEndpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': `AmazonSQS.${operation}`,
        // fauxqs reads the region of ARNs and URLs from the credential scope.
        authorization: call.headers.authorization ?? '',
      },
      body: JSON.stringify(input),
    });
    const headers: Record<string, string> = { 'content-type': 'application/x-amz-json-1.0' };
    const queryError = response.headers.get('x-amzn-query-error');
    if (queryError) headers['x-amzn-query-error'] = queryError;
    return { status: response.status, headers, body: await response.text() };
  };

  const toFauxqs = (region: string) => {
    const deployed = queueArn(region, '');
    const local = queueArn(region, '', FAUXQS_ACCOUNT);
    return (text: string) => text.replaceAll(deployed, local);
  };

  const fromFauxqs = (region: string) => {
    const deployed = queueArn(region, '');
    const local = queueArn(region, '', FAUXQS_ACCOUNT);
    const localUrl = new RegExp(`^https?://[^/]+/${FAUXQS_ACCOUNT}/([\\w.-]+)$`);
    return (text: string) => {
      const url = localUrl.exec(text);
      if (url) return `${backend.endpoint}/${backend.account}/${url[1]}`;
      return text.replaceAll(local, deployed);
    };
  };

  return {
    protocol: 'sqs-json',
    supports: (operation) => OPERATIONS.has(operation),
    requirements(call): IamRequirement[] {
      const action = `sqs:${call.operation.replace(/Batch$/, '')}`;
      const { input, region } = call;
      switch (call.operation) {
        case 'ListQueues':
          return [{ action, resource: '*' }];
        case 'CreateQueue':
          return [{ action, resource: queueArn(region, String(input.QueueName)) }];
        case 'GetQueueUrl': {
          const owner = input.QueueOwnerAWSAccountId ? String(input.QueueOwnerAWSAccountId) : backend.account;
          return [{ action, resource: queueArn(region, String(input.QueueName), owner) }];
        }
        default:
          return [{ action, resource: queueArn(region, queueNameOf(input.QueueUrl)) }];
      }
    },
    async handle(call) {
      const input: Record<string, unknown> = {
        ...(rewriteStrings(call.input, toFauxqs(call.region)) as object),
      };
      if (input.QueueOwnerAWSAccountId === backend.account) delete input.QueueOwnerAWSAccountId;
      if (input.QueueUrl !== undefined) {
        const url = await fauxqsUrlOf(queueNameOf(call.input.QueueUrl), call);
        if (typeof url !== 'string') return url;
        input.QueueUrl = url;
      }
      const answer = await forward(call.operation, input, call);
      if (call.operation === 'DeleteQueue' && answer.status === 200) fauxqsUrls.clear();
      if (!answer.body) return answer;
      const body = rewriteStrings(JSON.parse(answer.body), fromFauxqs(call.region));
      return { ...answer, body: JSON.stringify(body) };
    },
  };
}
