/**
 * What the local AWS endpoint's services share: the shape of a decoded call, the IAM questions it
 * asks, and errors written in the wire protocol of the service that answers them, so the SDK raises
 * the error AWS would (SQS's JSON protocol with its `x-amzn-query-error` code, the JSON 1.1
 * `__type` of SSM and EventBridge, EC2's XML `<Response><Errors>`, the REST JSON of Lambda with its
 * `x-amzn-ErrorType` header).
 */
import { randomUUID } from 'node:crypto';
import type { AwsPrincipal } from './authorization.ts';
import type { ReceivedRequest } from './sigv4-verifier.ts';

/** The wire protocol a service answers in. */
export type AwsProtocol = 'sqs-json' | 'json-1.1' | 'ec2-query' | 'rest-json';

/** One SDK call as the gateway decoded it. */
export interface GatewayCall {
  /** The operation, e.g. `SendMessage` (from `X-Amz-Target`, the query `Action` or a REST route). */
  readonly operation: string;
  /** The JSON body (JSON protocols), the form fields (query protocol) or what a REST route carries. */
  readonly input: Readonly<Record<string, unknown>>;
  /** The form body as sent (query protocol), for repeated fields (`InstanceId.1`…). */
  readonly form?: URLSearchParams;
  /** Who signed the call. */
  readonly principal: AwsPrincipal;
  /** The region of the signature's credential scope. */
  readonly region: string;
  /** The headers as received (lower case). */
  readonly headers: Readonly<Record<string, string>>;
}

/** One IAM question a call asks. */
export interface IamRequirement {
  readonly action: string;
  readonly resource: string;
  readonly context?: Readonly<Record<string, string>>;
}

/** A response to write. */
export interface GatewayResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** What a REST service reads from its request line, headers and body. */
export interface DecodedRequest {
  /** The operation the route names, or '' when no route matches. */
  readonly operation: string;
  readonly input: Record<string, unknown>;
}

/** One AWS service behind the gateway. */
export interface AwsService {
  readonly protocol: AwsProtocol;
  /** Reads the operation and input of a REST request (`rest-json`), which carry no `X-Amz-Target`. */
  decode?(request: ReceivedRequest): DecodedRequest;
  /** The operations it answers; any other is UnsupportedOperation. */
  supports(operation: string): boolean;
  /** The IAM questions `call` asks (one per resource it touches). */
  requirements(call: GatewayCall): readonly IamRequirement[];
  /** Answers an authorized `call`; throws AwsServiceError for the service's own errors. */
  handle(call: GatewayCall): Promise<GatewayResponse>;
}

/** An error answered in the service's protocol: `code` is the name the SDK gives the error. */
export class AwsServiceError extends Error {
  readonly code: string;
  readonly status: number;
  constructor(code: string, message: string, status = 400) {
    super(message);
    this.name = 'AwsServiceError';
    this.code = code;
    this.status = status;
  }
}

/** Why the signature check refused a call. */
export type AuthenticationFailure = 'missing' | 'unknown-key' | 'bad-signature' | 'expired';

const INVALID_TOKEN = 'The security token included in the request is invalid.';
const SIGNATURE_MISMATCH =
  'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.';

/** The error each protocol's service answers an authentication failure with. */
export function authenticationError(
  protocol: AwsProtocol,
  failure: AuthenticationFailure,
  detail = '',
): AwsServiceError {
  if (protocol === 'rest-json') return restAuthenticationError(failure, detail);
  const json = protocol === 'json-1.1';
  switch (failure) {
    case 'missing':
      return json
        ? new AwsServiceError('MissingAuthenticationTokenException', 'Missing Authentication Token', 400)
        : new AwsServiceError('MissingAuthenticationToken', 'Request is missing Authentication Token', 403);
    case 'unknown-key':
      if (protocol === 'ec2-query')
        return new AwsServiceError(
          'AuthFailure',
          'AWS was not able to validate the provided access credentials',
          401,
        );
      return json
        ? new AwsServiceError('UnrecognizedClientException', INVALID_TOKEN, 400)
        : new AwsServiceError('InvalidClientTokenId', INVALID_TOKEN, 403);
    case 'bad-signature':
    case 'expired': {
      const message = failure === 'expired' ? `Signature expired: ${detail}` : SIGNATURE_MISMATCH;
      return json
        ? new AwsServiceError('InvalidSignatureException', message, 400)
        : new AwsServiceError('SignatureDoesNotMatch', message, 403);
    }
  }
}

/** A REST JSON service's (Lambda's) answer to a failed authentication: JSON codes, status 403. */
function restAuthenticationError(failure: AuthenticationFailure, detail: string): AwsServiceError {
  switch (failure) {
    case 'missing':
      return new AwsServiceError('MissingAuthenticationTokenException', 'Missing Authentication Token', 403);
    case 'unknown-key':
      return new AwsServiceError('UnrecognizedClientException', INVALID_TOKEN, 403);
    case 'bad-signature':
      return new AwsServiceError('InvalidSignatureException', SIGNATURE_MISMATCH, 403);
    case 'expired':
      return new AwsServiceError('InvalidSignatureException', `Signature expired: ${detail}`, 403);
  }
}

/** The error a denied call is answered with, carrying the evaluator's message. */
export function accessDeniedError(protocol: AwsProtocol, message: string): AwsServiceError {
  switch (protocol) {
    case 'sqs-json':
      return new AwsServiceError('AccessDenied', message, 403);
    case 'json-1.1':
      return new AwsServiceError('AccessDeniedException', message, 400);
    case 'rest-json':
      return new AwsServiceError('AccessDeniedException', message, 403);
    case 'ec2-query':
      return new AwsServiceError(
        'UnauthorizedOperation',
        `You are not authorized to perform this operation. ${message}`,
        403,
      );
  }
}

/** The answer to an operation the gateway does not implement: names it so a new call shows up. */
export function unsupportedOperation(service: string, operation: string): AwsServiceError {
  return new AwsServiceError(
    'UnsupportedOperation',
    `the local AWS endpoint does not implement ${service}:${operation}; add it to test/support/aws/ if the deployment now calls it`,
    400,
  );
}

/** `text` safe inside an XML element. */
export function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Lambda errors whose shape names the text `Message` (the others, and undeclared ones, `message`). */
const CAPITALIZED_MESSAGE = new Set([
  'RecursiveInvocationException',
  'ResourceNotFoundException',
  'ServiceException',
]);

/** `error` written as `protocol` writes it. */
export function errorResponse(protocol: AwsProtocol, error: AwsServiceError): GatewayResponse {
  const requestId = randomUUID();
  switch (protocol) {
    case 'sqs-json': {
      const type =
        error.code === 'AccessDenied'
          ? 'com.amazon.coral.service#AccessDeniedException'
          : `com.amazonaws.sqs#${error.code}`;
      const fault = error.status >= 500 ? 'Receiver' : 'Sender';
      return {
        status: error.status,
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amzn-query-error': `${error.code};${fault}`,
          'x-amzn-requestid': requestId,
        },
        body: JSON.stringify({ __type: type, message: error.message }),
      };
    }
    case 'json-1.1':
      return {
        status: error.status,
        headers: {
          'content-type': 'application/x-amz-json-1.1',
          'x-amzn-errortype': error.code,
          'x-amzn-requestid': requestId,
        },
        body: JSON.stringify({ __type: error.code, message: error.message }),
      };
    case 'rest-json':
      return {
        status: error.status,
        headers: {
          'content-type': 'application/json',
          'x-amzn-errortype': error.code,
          'x-amzn-requestid': requestId,
        },
        body: JSON.stringify({
          Type: error.status >= 500 ? 'Service' : 'User',
          [CAPITALIZED_MESSAGE.has(error.code) ? 'Message' : 'message']: error.message,
        }),
      };
    case 'ec2-query':
      return {
        status: error.status,
        headers: { 'content-type': 'text/xml;charset=UTF-8' },
        body:
          '<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error>' +
          `<Code>${escapeXml(error.code)}</Code><Message>${escapeXml(error.message)}</Message>` +
          `</Error></Errors><RequestID>${requestId}</RequestID></Response>`,
      };
  }
}

/** A JSON answer of a JSON-protocol service. */
export function jsonResponse(protocol: 'sqs-json' | 'json-1.1', body: unknown): GatewayResponse {
  const type = protocol === 'sqs-json' ? 'application/x-amz-json-1.0' : 'application/x-amz-json-1.1';
  return {
    status: 200,
    headers: { 'content-type': type, 'x-amzn-requestid': randomUUID() },
    body: JSON.stringify(body),
  };
}
