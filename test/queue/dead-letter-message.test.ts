import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  deadLetterBytes,
  deadLetterMessage,
  MAX_DEAD_LETTER_REASON_BYTES,
} from '../../lib/queue/dead-letter-message.ts';
import { SEND_MESSAGE_MAX_BYTES } from '../../lib/queue/send-messages.ts';

const LIMIT = SEND_MESSAGE_MAX_BYTES;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** The bytes the `reason` attribute of `reason` takes: name, data type and value. */
const reasonBytes = (reason: string) =>
  deadLetterBytes('', { reason: { DataType: 'String', StringValue: reason } });

describe('deadLetterMessage', () => {
  it.each([
    { name: 'a small body', body: '{"v":1,"kind":"pod"}', reason: 'poison message: unknown kind' },
    { name: 'an empty body', body: '', reason: 'poison message: not JSON' },
    {
      name: 'a body that fills the limit exactly beside its reason',
      body: 'x'.repeat(LIMIT - reasonBytes('r')),
      reason: 'r',
    },
  ])('keeps $name whole, with only its reason', ({ body, reason }) => {
    const letter = deadLetterMessage(body, reason);
    expect(letter.body).toBe(body === '' ? '(empty body)' : body);
    expect(letter.attributes).toEqual({ reason: { DataType: 'String', StringValue: reason } });
    expect(letter.bodySha256).toBe(sha256(body));
    expect(deadLetterBytes(letter.body, letter.attributes)).toBeLessThanOrEqual(LIMIT);
  });

  it.each([
    {
      name: 'a body one byte over the limit beside its reason',
      body: 'x'.repeat(LIMIT - reasonBytes('r') + 1),
    },
    { name: 'a body of exactly the limit', body: 'x'.repeat(LIMIT) },
    { name: 'a body of two-byte characters at the limit', body: 'é'.repeat(LIMIT / 2) },
    { name: 'a body of four-byte characters at the limit', body: '😀'.repeat(LIMIT / 4) },
    { name: 'a body of mixed widths at the limit', body: `a${'€😀é'.repeat((LIMIT - 1) / 9)}` },
  ])('cuts $name to a prefix of whole characters, recording its size and hash', ({ body }) => {
    const letter = deadLetterMessage(body, 'r');
    expect(letter.attributes).toEqual({
      reason: { DataType: 'String', StringValue: 'r' },
      truncated: { DataType: 'String', StringValue: 'true' },
      bodyBytes: { DataType: 'Number', StringValue: String(Buffer.byteLength(body, 'utf8')) },
      bodySha256: { DataType: 'String', StringValue: sha256(body) },
    });
    expect(body.startsWith(letter.body)).toBe(true);
    // Whole characters: the prefix re-encodes to itself and ends on no lone surrogate.
    expect(Buffer.from(letter.body, 'utf8').toString('utf8')).toBe(letter.body);
    expect(/[\uD800-\uDFFF]/u.test(letter.body)).toBe(false);
    const size = deadLetterBytes(letter.body, letter.attributes);
    expect(size).toBeLessThanOrEqual(LIMIT);
    // As long a prefix as fits: the next character would not.
    const next = body.slice(letter.body.length).codePointAt(0) ?? 0;
    expect(size + Buffer.byteLength(String.fromCodePoint(next), 'utf8')).toBeGreaterThan(LIMIT);
  });

  it.each([
    {
      name: 'a reason longer than the bound, cut between characters',
      reason: `${'é'.repeat(MAX_DEAD_LETTER_REASON_BYTES / 2 - 1)}x€`,
      expected: `${'é'.repeat(MAX_DEAD_LETTER_REASON_BYTES / 2 - 1)}x`,
    },
    {
      name: 'control characters SQS refuses',
      reason: 'failed: \u0000bad\u001b[31m\ud800',
      expected: 'failed: \uFFFDbad\uFFFD[31m\uFFFD',
    },
    { name: 'tabs and new lines, which SQS takes', reason: 'a\tb\nc\r', expected: 'a\tb\nc\r' },
    { name: 'no reason', reason: '', expected: 'unknown' },
  ])('sends $name as SQS takes it', ({ reason, expected }) => {
    const letter = deadLetterMessage('x'.repeat(LIMIT), reason);
    expect(letter.attributes.reason?.StringValue).toBe(expected);
    expect(deadLetterBytes(letter.body, letter.attributes)).toBeLessThanOrEqual(LIMIT);
  });
});
