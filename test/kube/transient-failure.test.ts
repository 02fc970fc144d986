import { describe, expect, it } from 'vitest';
import { EverynodeError } from '../../lib/errors/everynode-error.ts';
import { KubeConnectionError } from '../../lib/kube/errors/kube-api-errors.ts';
import { apiErrorOf, toKubeError } from '../../lib/kube/errors/to-kube-error.ts';
import {
  classifyFailure,
  MAX_TRANSIENT_BACKOFF_SECONDS,
  transientBackoffSeconds,
} from '../../lib/kube/errors/transient-failure.ts';
import { PoisonMessageError } from '../../lib/messages/poison-message-error.ts';

/** The typed error of an API answer with HTTP `code` (and `reason`, `headers`). */
const answer = (code: number, reason = '', headers: Record<string, string> = {}) =>
  apiErrorOf({ code, body: { reason, message: `answered ${code}` }, headers }, 'creating pod x');

/** A socket or DNS error as Node raises it. */
const nodeError = (code: string, message = `connect ${code} 10.0.0.1:443`) =>
  Object.assign(new Error(message), { code });

describe('classifyFailure', () => {
  it.each([
    // No answer at all: the API server unreachable.
    { name: 'connection refused', error: toKubeError(nodeError('ECONNREFUSED'), 'listing pods') },
    { name: 'connection reset', error: toKubeError(nodeError('ECONNRESET'), 'listing pods') },
    { name: 'DNS not found', error: toKubeError(nodeError('ENOTFOUND'), 'listing pods') },
    { name: 'DNS try again', error: toKubeError(nodeError('EAI_AGAIN'), 'listing pods') },
    { name: 'socket timeout', error: toKubeError(nodeError('ETIMEDOUT'), 'listing pods') },
    { name: 'a bare connection error', error: new KubeConnectionError('no answer') },
    // Answers that say "later".
    { name: '500 InternalError', error: answer(500, 'InternalError') },
    { name: '502 Bad Gateway', error: answer(502) },
    { name: '503 ServiceUnavailable', error: answer(503, 'ServiceUnavailable') },
    { name: '504 Timeout', error: answer(504, 'Timeout') },
    { name: '408 Request Timeout', error: answer(408) },
    // Errors of no everynode class, raw or wrapped (an SQS send while the queue is down).
    { name: 'a raw ECONNREFUSED', error: nodeError('ECONNREFUSED') },
    {
      name: 'a wrapped ECONNRESET',
      error: new Error('sending the fan-out failed', { cause: nodeError('ECONNRESET') }),
    },
    {
      name: 'an undici connect timeout',
      error: nodeError('UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error'),
    },
    {
      name: 'a timeout',
      error: Object.assign(new Error('The operation timed out'), { name: 'TimeoutError' }),
    },
    {
      name: 'an AWS SDK 503',
      error: Object.assign(new Error('Service Unavailable'), { $metadata: { httpStatusCode: 503 } }),
    },
    {
      name: 'an AWS SDK throttle',
      error: Object.assign(new Error('Rate exceeded'), { $retryable: { throttling: true } }),
    },
  ])('$name is transient, without a wait of its own', ({ error }) => {
    expect(classifyFailure(error)).toEqual({ type: 'transient' });
  });

  it.each([
    {
      name: 'a 429 with Retry-After 7',
      error: answer(429, 'TooManyRequests', { 'Retry-After': '7' }),
      wait: 7,
    },
    {
      name: 'a 429 with Retry-After 0',
      error: answer(429, 'TooManyRequests', { 'retry-after': '0' }),
      wait: 1,
    },
    { name: 'a 429 without Retry-After', error: answer(429, 'TooManyRequests'), wait: 1 },
  ])('$name is transient after its Retry-After (at least 1 s)', ({ error, wait }) => {
    expect(classifyFailure(error)).toEqual({ type: 'transient', retryAfterSeconds: wait });
  });

  it.each([
    { name: '409 Conflict', error: answer(409, 'Conflict') },
    { name: '410 Gone', error: answer(410, 'Expired') },
    { name: '401 Unauthorized', error: answer(401, 'Unauthorized') },
    { name: 'a retryable everynode error', error: new EverynodeError('try again', true) },
    {
      name: 'an unexpected exception',
      error: new TypeError("Cannot read properties of undefined (reading 'x')"),
    },
    { name: 'a thrown string', error: 'boom' },
    { name: 'undefined', error: undefined },
  ])('$name is retryable a few times, not transient', ({ error }) => {
    expect(classifyFailure(error)).toEqual({ type: 'retryable' });
  });

  it.each([
    { name: '422 Invalid', error: answer(422, 'Invalid') },
    { name: '400 BadRequest', error: answer(400, 'BadRequest') },
    { name: '403 Forbidden', error: answer(403, 'Forbidden') },
    { name: '404 NotFound', error: answer(404, 'NotFound') },
    { name: '409 AlreadyExists', error: answer(409, 'AlreadyExists') },
    { name: 'a poison message', error: new PoisonMessageError('message for the other managed kind') },
    { name: 'a terminal everynode error', error: new EverynodeError('never', false) },
  ])('$name is permanent', ({ error }) => {
    expect(classifyFailure(error)).toEqual({ type: 'permanent' });
  });

  it('follows a cause chain that loops without hanging', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(classifyFailure(a)).toEqual({ type: 'retryable' });
  });
});

describe('transientBackoffSeconds', () => {
  it.each([
    { failures: 0, seconds: 1 },
    { failures: 1, seconds: 2 },
    { failures: 2, seconds: 4 },
    { failures: 3, seconds: 8 },
    { failures: 7, seconds: 128 },
    { failures: 8, seconds: 256 },
    { failures: 9, seconds: MAX_TRANSIENT_BACKOFF_SECONDS },
    { failures: 50, seconds: MAX_TRANSIENT_BACKOFF_SECONDS },
    { failures: 10_000, seconds: MAX_TRANSIENT_BACKOFF_SECONDS },
    { failures: -3, seconds: 1 },
  ])('after $failures failures waits $seconds s', ({ failures, seconds }) => {
    expect(transientBackoffSeconds(failures)).toBe(seconds);
  });

  it('is capped at a few minutes', () => {
    expect(MAX_TRANSIENT_BACKOFF_SECONDS).toBeGreaterThanOrEqual(60);
    expect(MAX_TRANSIENT_BACKOFF_SECONDS).toBeLessThanOrEqual(600);
  });
});
