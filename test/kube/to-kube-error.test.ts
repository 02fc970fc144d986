import { beforeAll, describe, expect, it } from 'vitest';
import {
  AlreadyExistsError,
  BadRequestError,
  ConflictError,
  ForbiddenError,
  GoneError,
  InvalidError,
  KubeApiError,
  KubeConnectionError,
  NotFoundError,
  ServerError,
  TooLargeResourceVersionError,
  TooManyRequestsError,
  UnauthorizedError,
} from '../../lib/kube/errors/kube-api-errors.ts';
import type { KubePort } from '../../lib/kube/kube-port.ts';
import { aPod } from '../support/builders.ts';
import { type Answer, startTinyApiServer, statusBody, useTinyApiServer } from './tiny-api-server.ts';
import { tinyKubePort } from './tiny-kube-port.ts';

const server = useTinyApiServer();
let port: KubePort;

beforeAll(() => {
  port = tinyKubePort(server.url).port;
});

const deleteTarget = { namespace: 'kube-system', name: 'fluentd-n1', uid: 'uid-1', resourceVersion: '5' };
const revision = { metadata: { name: 'fluentd-abc', namespace: 'kube-system' }, revision: 1 };

interface ErrorCase {
  name: string;
  answer: Answer;
  call: (port: KubePort) => Promise<unknown>;
  type: new (...args: never[]) => Error;
  retryable: boolean;
  message: RegExp;
  check?: (error: KubeApiError) => void;
}

const cases: ErrorCase[] = [
  {
    name: '409 AlreadyExists on create',
    answer: { status: 409, body: statusBody(409, 'AlreadyExists', 'pods "fluentd-n1" already exists') },
    call: (p) => p.createPod(aPod('fluentd-n1', { namespace: 'kube-system', nodeName: 'n1' })),
    type: AlreadyExistsError,
    retryable: false,
    message:
      /^creating pod kube-system\/fluentd-n1 for node n1: pods "fluentd-n1" already exists \(HTTP 409 AlreadyExists\)$/,
  },
  {
    name: '409 Conflict on a failed precondition',
    answer: {
      status: 409,
      body: statusBody(
        409,
        'Conflict',
        'Precondition failed: UID in precondition: uid-1, UID in object meta: uid-2',
      ),
    },
    call: (p) => p.deletePod(deleteTarget),
    type: ConflictError,
    retryable: true,
    message: /^deleting pod kube-system\/fluentd-n1 \(uid uid-1, resourceVersion 5\): Precondition failed/,
  },
  {
    name: '404 NotFound on delete',
    answer: { status: 404, body: statusBody(404, 'NotFound', 'pods "fluentd-n1" not found') },
    call: (p) => p.deletePod(deleteTarget),
    type: NotFoundError,
    retryable: false,
    message: /^deleting pod kube-system\/fluentd-n1 .*not found \(HTTP 404 NotFound\)$/,
  },
  {
    name: '422 Invalid with its causes',
    answer: {
      status: 422,
      body: statusBody(422, 'Invalid', 'ControllerRevision "fluentd-abc" is invalid', {
        causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'data' }],
      }),
    },
    call: (p) => p.createControllerRevision(revision),
    type: InvalidError,
    retryable: false,
    message:
      /^creating controller revision kube-system\/fluentd-abc \(revision 1\): .* is invalid \(HTTP 422 Invalid\)$/,
    check: (error) =>
      expect(error.causes).toEqual([
        { reason: 'FieldValueRequired', message: 'Required value', field: 'data' },
      ]),
  },
  {
    name: '429 with Retry-After: 7',
    answer: {
      status: 429,
      headers: { 'Retry-After': '7' },
      body: statusBody(429, 'TooManyRequests', 'too many requests, please try again later'),
    },
    call: (p) => p.listNodes(),
    type: TooManyRequestsError,
    retryable: true,
    message: /^listing nodes: too many requests/,
    check: (error) => expect((error as TooManyRequestsError).retryAfterSeconds).toBe(7),
  },
  {
    name: '429 without header takes the Status details',
    answer: { status: 429, body: statusBody(429, 'TooManyRequests', 'slow down', { retryAfterSeconds: 3 }) },
    call: (p) => p.listNodes(),
    type: TooManyRequestsError,
    retryable: true,
    message: /^listing nodes: slow down/,
    check: (error) => expect((error as TooManyRequestsError).retryAfterSeconds).toBe(3),
  },
  {
    name: '500 InternalError',
    answer: { status: 500, body: statusBody(500, 'InternalError', 'etcdserver: request timed out') },
    call: (p) => p.listPods({ namespace: 'kube-system', labelSelector: 'app=fluentd' }),
    type: ServerError,
    retryable: true,
    message:
      /^listing pods in namespace kube-system matching app=fluentd: etcdserver: request timed out \(HTTP 500 InternalError\)$/,
  },
  {
    name: '504 Too large resource version, by its cause type',
    answer: {
      status: 504,
      body: statusBody(504, 'Timeout', 'Timeout: Too large resource version: 90, current: 12', {
        causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
        retryAfterSeconds: 1,
      }),
    },
    call: (p) => p.listNodes({ notOlderThan: '90', limit: 1 }),
    type: TooLargeResourceVersionError,
    retryable: true,
    message: /^listing nodes: Timeout: Too large resource version: 90, current: 12 \(HTTP 504 Timeout\)$/,
    check: (error) => expect(error).toBeInstanceOf(ServerError),
  },
  {
    name: '504 Too large resource version from a server before 1.17 (no cause, only the message)',
    answer: {
      status: 504,
      body: statusBody(504, 'Timeout', 'Timeout: Too large resource version: 90, current: 12'),
    },
    call: (p) => p.listNodes({ notOlderThan: '90', limit: 1 }),
    type: TooLargeResourceVersionError,
    retryable: true,
    message: /Too large resource version/,
  },
  {
    name: '504 Timeout of another kind stays a ServerError',
    answer: { status: 504, body: statusBody(504, 'Timeout', 'Timeout: request did not complete within 60s') },
    call: (p) => p.listNodes(),
    type: ServerError,
    retryable: true,
    message: /^listing nodes: Timeout: request did not complete/,
    check: (error) => expect(error).not.toBeInstanceOf(TooLargeResourceVersionError),
  },
  {
    name: '503 without a Status body',
    answer: { status: 503, body: 'upstream connect error' },
    call: (p) => p.listNodes(),
    type: ServerError,
    retryable: true,
    message: /^listing nodes: upstream connect error \(HTTP 503\)$/,
  },
  {
    name: '403 Forbidden',
    answer: { status: 403, body: statusBody(403, 'Forbidden', 'nodes is forbidden: User "x" cannot list') },
    call: (p) => p.listNodes(),
    type: ForbiddenError,
    retryable: false,
    message: /^listing nodes: nodes is forbidden/,
  },
  {
    name: '401 Unauthorized',
    answer: { status: 401, body: statusBody(401, 'Unauthorized', 'Unauthorized') },
    call: (p) => p.listNodes(),
    type: UnauthorizedError,
    retryable: true,
    message: /^listing nodes: /,
  },
  {
    name: '410 Gone on a list continue',
    answer: { status: 410, body: statusBody(410, 'Expired', 'The provided continue parameter is too old') },
    call: (p) => p.listPods({ continue: 'old' }),
    type: GoneError,
    retryable: true,
    message: /too old \(HTTP 410 Expired\)$/,
  },
  {
    name: '400 BadRequest',
    answer: { status: 400, body: statusBody(400, 'BadRequest', 'unable to parse requirement') },
    call: (p) => p.listPods({ labelSelector: '!!' }),
    type: BadRequestError,
    retryable: false,
    message: /unable to parse requirement/,
  },
];

describe('API errors through the adapter', () => {
  it.each(cases)('$name', async ({ answer, call, type, retryable, message, check }) => {
    server.answer = answer;
    const error = await call(port).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(type);
    expect(error).toBeInstanceOf(KubeApiError);
    const apiError = error as KubeApiError;
    expect(apiError.status).toBe(answer.status);
    expect(apiError.retryable).toBe(retryable);
    expect(apiError.message).toMatch(message);
    expect(apiError.cause).toBeInstanceOf(Error);
    check?.(apiError);
  });

  it('reads a missing node as undefined, not an error', async () => {
    server.answer = { status: 404, body: statusBody(404, 'NotFound', 'nodes "n9" not found') };
    await expect(port.getNode('n9')).resolves.toBeUndefined();
  });

  it('turns a refused connection into a retryable KubeConnectionError', async () => {
    const closed = await startTinyApiServer();
    const { port: orphan } = tinyKubePort(closed.url);
    await closed.close();
    const error = await orphan.listNodes().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeConnectionError);
    expect(error).toMatchObject({ retryable: true });
    expect((error as Error).message).toMatch(/^listing nodes: no answer from the API server/);
  });
});
