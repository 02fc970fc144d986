/**
 * The local AWS endpoint of the offline deployment: one HTTPS server on 127.0.0.1 (a CA made at
 * start) that the functions reach through `AWS_ENDPOINT_URL`, answering SQS (forwarded to fauxqs),
 * SSM parameters, EventBridge PutEvents, EC2 DescribeInstances and Lambda's asynchronous Invoke.
 * Every request is authenticated as AWS does (SigV4 recomputed with the secret of the access key it
 * names, the session token of a temporary key checked) and every call authorized by the IAM
 * evaluator over the synthesized template's policies; a denial is answered in the service's own
 * protocol with AWS's wording, so the SDK in the function raises the error it would on AWS.
 * Operations the gateway does not implement answer UnsupportedOperation naming them, so a new call
 * shows up at once.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generateServingCertificates } from '../../../lib/sim/auth/serving-certificates.ts';
import { type Authorize, type AwsPrincipal, principalArnOf } from './authorization.ts';
import { eventsService, type PutEventsHandler } from './aws-gateway-events.ts';
import { type InvokeFunctionHandler, lambdaService } from './aws-gateway-lambda.ts';
import {
  type AwsProtocol,
  type AwsService,
  AwsServiceError,
  accessDeniedError,
  authenticationError,
  errorResponse,
  type GatewayCall,
  type GatewayResponse,
  unsupportedOperation,
} from './aws-gateway-protocol.ts';
import { sqsService } from './aws-gateway-sqs.ts';
import { type CfnTemplate, DeployedStack, type DeploymentTarget } from './deployed-stack.ts';
import { type Ec2Instance, ec2Service } from './ec2-instances.ts';
import { createIamAuthorizer } from './iam-authorizer.ts';
import { type PolicyDocument, StackPolicies } from './iam-policies.ts';
import {
  parseAuthorization,
  type ReceivedRequest,
  type SigningCredential,
  SigV4Rejected,
  verifySigV4,
} from './sigv4-verifier.ts';
import { SsmParameters, ssmService } from './ssm-parameters.ts';

/** What the gateway serves. */
export interface AwsGatewayOptions {
  /** The synthesized template. */
  readonly template: CfnTemplate;
  /** Where it is deployed; the endpoint is the gateway's own URL. */
  readonly target: Omit<DeploymentTarget, 'endpoint'>;
  /** fauxqs's base URL; the template's queues must be created there (deployQueues) before use. */
  readonly sqsEndpoint: string;
  /** The bus PutEvents hands accepted entries to; without it PutEvents is UnsupportedOperation. */
  readonly putEvents?: PutEventsHandler;
  /** Where Lambda Invoke (`Event`) hands invocations; without it Invoke is UnsupportedOperation. */
  readonly invokeFunction?: InvokeFunctionHandler;
  /** The instances DescribeInstances reports; default none. */
  readonly instances?: () => readonly Ec2Instance[];
  /** The clock of signatures, `aws:CurrentTime` and parameter dates; default the system clock. */
  readonly now?: () => Date;
}

/** Credentials as the SDK's environment variables carry them. */
export interface IssuedCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

/** One authorization decision the gateway (or a user of `authorize`) made. */
export interface AuthorizedCall {
  readonly principalArn: string;
  readonly action: string;
  readonly resource: string;
  readonly allowed: boolean;
  readonly message: string;
}

/** A running gateway. */
export interface AwsGateway {
  /** `https://127.0.0.1:<port>`: AWS_ENDPOINT_URL, and the origin of the queue URLs. */
  readonly url: string;
  /** The CA to trust (NODE_EXTRA_CA_CERTS). */
  readonly caPem: string;
  /** The template deployed behind `url`. */
  readonly stack: DeployedStack;
  /** The policies evaluated (registered users included). */
  readonly policies: StackPolicies;
  /** The parameters SSM holds. */
  readonly parameters: SsmParameters;
  /** The evaluator the gateway uses, logging into `calls`: for the harness's own deliveries. */
  readonly authorize: Authorize;
  /** Every decision so far, in order. */
  readonly calls: readonly AuthorizedCall[];
  /**
   * Errors of the gateway itself (a harness bug, an IAM simulation that could not run), each also
   * answered as a 500 InternalFailure: a test can assert there are none.
   */
  readonly failures: readonly Error[];
  /**
   * Starts an outage of the calls `matches` picks: each is answered 503 ServiceUnavailable, as AWS
   * answers a service that is down, until the returned function ends it.
   */
  outage(matches: (call: Readonly<GatewayCall>) => boolean): () => void;
  /** Temporary credentials (ASIA…) of a session of a template role. */
  issueRoleCredentials(roleArn: string, sessionName: string): IssuedCredentials;
  /** Adds an IAM user with `policy` and answers its long-term key (AKIA…). */
  registerUser(userArn: string, policy: PolicyDocument): IssuedCredentials;
  stop(): Promise<void>;
}

/** A key id as IAM makes them: a 4-letter prefix and 16 base-32 characters. */
function keyId(prefix: 'ASIA' | 'AKIA'): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  return prefix + [...randomBytes(16)].map((byte) => alphabet[byte % 32]).join('');
}

/** The service a request is for: its credential scope's, else its shape's. */
function serviceOf(headers: Readonly<Record<string, string>>, url: string): string {
  const scoped = parseAuthorization(headers.authorization)?.service;
  if (scoped) return scoped;
  if (url.startsWith('/2015-03-31/functions/')) return 'lambda';
  const target = headers['x-amz-target'] ?? '';
  if (target.startsWith('AmazonSQS.')) return 'sqs';
  if (target.startsWith('AmazonSSM.')) return 'ssm';
  if (target.startsWith('AWSEvents.')) return 'events';
  return 'ec2';
}

/** The operation and input of a request in `service`'s protocol. */
function decode(
  service: AwsService | undefined,
  protocol: AwsProtocol,
  request: ReceivedRequest,
): { operation: string; input: Record<string, unknown>; form?: URLSearchParams } {
  if (service?.decode) return service.decode(request);
  const { headers, body } = request;
  if (protocol === 'ec2-query') {
    const form = new URLSearchParams(body.toString('utf8'));
    return { operation: form.get('Action') ?? '', input: Object.fromEntries(form), form };
  }
  const operation = (headers['x-amz-target'] ?? '').split('.').pop() ?? '';
  const text = body.toString('utf8');
  return { operation, input: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function headersOf(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  return headers;
}

/** Starts the gateway on a free loopback port. */
export async function startAwsGateway(options: Readonly<AwsGatewayOptions>): Promise<AwsGateway> {
  const now = options.now ?? (() => new Date());
  const tls = await generateServingCertificates({ now });
  const credentials = new Map<string, SigningCredential & { readonly principal: AwsPrincipal }>();
  const calls: AuthorizedCall[] = [];
  const failures: Error[] = [];
  const outages = new Set<(call: Readonly<GatewayCall>) => boolean>();
  let services: Record<string, AwsService> = {};
  let authorize: Authorize = async () => {
    throw new Error('the gateway is not started');
  };

  const server = createServer({ key: tls.privateKey, cert: tls.certificate }, (request, response) => {
    serve(request, response).catch((error: unknown) => {
      response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
    });
  });

  /** The principal of a correctly signed request; throws the protocol's error otherwise. */
  async function authenticate(request: ReceivedRequest, protocol: AwsProtocol) {
    try {
      const { credential, authorization } = await verifySigV4(request, (id) => credentials.get(id), now());
      const principal = credentials.get(credential.accessKeyId)?.principal as AwsPrincipal;
      return { principal, region: authorization.region };
    } catch (error) {
      if (error instanceof SigV4Rejected) throw authenticationError(protocol, error.failure, error.message);
      throw error;
    }
  }

  /** Authenticates, decodes, authorizes and answers one request. */
  async function answer(
    request: ReceivedRequest,
    serviceName: string,
    protocol: AwsProtocol,
    sourceIp: string,
  ): Promise<GatewayResponse> {
    const service = services[serviceName];
    const { principal, region } = await authenticate(request, protocol);
    const { operation, input, form } = decode(service, protocol, request);
    if (!service?.supports(operation)) {
      throw unsupportedOperation(serviceName, operation || `${request.method} ${request.url}`);
    }
    const call: GatewayCall = {
      operation,
      input,
      principal,
      region,
      headers: request.headers,
      ...(form ? { form } : {}),
    };
    const context = {
      'aws:SecureTransport': 'true',
      'aws:SourceIp': sourceIp,
      'aws:RequestedRegion': region,
    };
    for (const requirement of service.requirements(call)) {
      const decision = await authorize({
        principal,
        ...requirement,
        context: { ...context, ...requirement.context },
      });
      if (!decision.allowed) throw accessDeniedError(protocol, decision.message);
    }
    if ([...outages].some((matches) => matches(call)))
      throw new AwsServiceError('ServiceUnavailable', 'Service is unavailable, try again later.', 503);
    return service.handle(call);
  }

  async function serve(incoming: IncomingMessage, response: ServerResponse): Promise<void> {
    const headers = headersOf(incoming);
    const request = {
      method: incoming.method ?? 'GET',
      url: incoming.url ?? '/',
      headers,
      body: await readBody(incoming),
    };
    const serviceName = serviceOf(headers, request.url);
    const protocol = services[serviceName]?.protocol ?? (headers['x-amz-target'] ? 'json-1.1' : 'ec2-query');
    let answered: GatewayResponse;
    try {
      answered = await answer(request, serviceName, protocol, incoming.socket.remoteAddress ?? '127.0.0.1');
    } catch (error) {
      if (!(error instanceof AwsServiceError))
        failures.push(error instanceof Error ? error : new Error(String(error)));
      const failure =
        error instanceof AwsServiceError
          ? error
          : new AwsServiceError(
              'InternalFailure',
              error instanceof Error ? error.message : String(error),
              500,
            );
      answered = errorResponse(protocol, failure);
    }
    response.writeHead(answered.status, {
      ...answered.headers,
      'content-length': Buffer.byteLength(answered.body),
    });
    response.end(answered.body);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const stop = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  const stack = new DeployedStack(options.template, { ...options.target, endpoint: url });
  let policies: StackPolicies;
  let parameters: SsmParameters;
  try {
    policies = new StackPolicies(stack);
    parameters = SsmParameters.fromStack(stack, now);
  } catch (error) {
    await stop();
    throw error;
  }
  const evaluate = createIamAuthorizer(stack, { policies, now });
  authorize = async (request) => {
    const decision = await evaluate(request);
    const principalArn = principalArnOf(request.principal, stack.account);
    calls.push({ principalArn, action: request.action, resource: request.resource, ...decision });
    return decision;
  };
  services = {
    sqs: sqsService({ fauxqsEndpoint: options.sqsEndpoint, endpoint: url, account: stack.account }),
    ssm: ssmService(parameters),
    events: eventsService(stack.account, options.putEvents),
    ec2: ec2Service(stack.account, options.instances ?? (() => [])),
    lambda: lambdaService(stack, options.invokeFunction),
  };

  return {
    url,
    caPem: tls.caCertificate,
    stack,
    policies,
    parameters,
    authorize: (request) => authorize(request),
    calls,
    issueRoleCredentials(roleArn, sessionName) {
      if (!policies.hasRole(roleArn)) throw new Error(`${roleArn} is no role of the deployed stack`);
      const issued = {
        accessKeyId: keyId('ASIA'),
        secretAccessKey: randomBytes(30).toString('base64'),
        sessionToken: randomBytes(96).toString('base64'),
      };
      credentials.set(issued.accessKeyId, { ...issued, principal: { type: 'role', roleArn, sessionName } });
      return issued;
    },
    registerUser(userArn, policy) {
      policies.registerUser(userArn, policy);
      const issued = { accessKeyId: keyId('AKIA'), secretAccessKey: randomBytes(30).toString('base64') };
      credentials.set(issued.accessKeyId, { ...issued, principal: { type: 'user', userArn } });
      return issued;
    },
    failures,
    outage(matches) {
      outages.add(matches);
      return () => outages.delete(matches);
    },
    stop,
  };
}
