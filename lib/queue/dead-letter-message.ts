/**
 * The DLQ copy of a poison message, kept within SQS's message size limit. SQS counts message
 * attributes (name, data type and value bytes) in that limit, so a body at the limit plus its
 * `reason` would be refused; the message, never dead-lettered, would then hold its FIFO group for
 * maxReceiveCount visibility timeouts before the queue's own redrive moved it, reason lost. A body
 * that does not fit beside its attributes is cut to a prefix, and the whole body's SHA-256 and size
 * are recorded in attributes instead.
 */
import { createHash } from 'node:crypto';
import type { MessageAttributeValue } from '@aws-sdk/client-sqs';
import { SEND_MESSAGE_MAX_BYTES } from './send-messages.ts';

/** The message attribute naming why a message was dead-lettered. */
export const DEAD_LETTER_REASON_ATTRIBUTE = 'reason';

/** The attributes a dead letter whose body was cut carries: `true`, the whole body's bytes and SHA-256. */
export const DEAD_LETTER_TRUNCATED_ATTRIBUTES = {
  truncated: 'truncated',
  bodyBytes: 'bodyBytes',
  bodySha256: 'bodySha256',
} as const;

/** The most UTF-8 bytes of a reason kept on a dead letter: enough for an error and its causes. */
export const MAX_DEAD_LETTER_REASON_BYTES = 4096;

/** The body sent for an empty poison message: SQS refuses an empty body. */
export const EMPTY_BODY_PLACEHOLDER = '(empty body)';

/**
 * A dead letter as sent: its body, attributes and the SHA-256 (hex) of the original body. The hash
 * identifies a cut body; it is no de-duplication id — two dead-letterings of one body are two
 * letters (`deadLetterDeduplicationId` in sqs-senders.ts).
 */
export interface DeadLetterMessage {
  readonly body: string;
  readonly attributes: Readonly<Record<string, MessageAttributeValue>>;
  readonly bodySha256: string;
}

/**
 * The dead letter of `body` for `reason`, at most `maxBytes` as SQS counts them (body plus every
 * attribute's name, data type and value; {@link deadLetterBytes}). The reason is cut to
 * {@link MAX_DEAD_LETTER_REASON_BYTES} and characters SQS refuses are replaced by U+FFFD; the body
 * is kept whole when it fits beside the reason, else cut to the longest prefix of whole characters
 * that fits beside the reason and the {@link DEAD_LETTER_TRUNCATED_ATTRIBUTES}.
 */
export function deadLetterMessage(
  body: string,
  reason: string,
  maxBytes: number = SEND_MESSAGE_MAX_BYTES,
): DeadLetterMessage {
  const bodySha256 = createHash('sha256').update(body).digest('hex');
  const kept = utf8Prefix(sqsSafeText(reason), MAX_DEAD_LETTER_REASON_BYTES);
  const reasonOnly = { [DEAD_LETTER_REASON_ATTRIBUTE]: stringAttribute(kept || 'unknown') };
  const whole = body === '' ? EMPTY_BODY_PLACEHOLDER : body;
  if (deadLetterBytes(whole, reasonOnly) <= maxBytes)
    return { body: whole, attributes: reasonOnly, bodySha256 };
  const attributes = {
    ...reasonOnly,
    [DEAD_LETTER_TRUNCATED_ATTRIBUTES.truncated]: stringAttribute('true'),
    [DEAD_LETTER_TRUNCATED_ATTRIBUTES.bodyBytes]: {
      DataType: 'Number',
      StringValue: String(Buffer.byteLength(body, 'utf8')),
    },
    [DEAD_LETTER_TRUNCATED_ATTRIBUTES.bodySha256]: stringAttribute(bodySha256),
  };
  return { body: utf8Prefix(body, maxBytes - deadLetterBytes('', attributes)), attributes, bodySha256 };
}

/**
 * The size SQS gives a message: the body's UTF-8 bytes plus, for each attribute, the bytes of its
 * name, data type and value.
 */
export function deadLetterBytes(
  body: string,
  attributes: Readonly<Record<string, MessageAttributeValue>>,
): number {
  let bytes = Buffer.byteLength(body, 'utf8');
  for (const [name, value] of Object.entries(attributes)) {
    bytes += Buffer.byteLength(name, 'utf8') + Buffer.byteLength(value.DataType ?? '', 'utf8');
    bytes += Buffer.byteLength(value.StringValue ?? '', 'utf8') + (value.BinaryValue?.byteLength ?? 0);
  }
  return bytes;
}

function stringAttribute(value: string): MessageAttributeValue {
  return { DataType: 'String', StringValue: value };
}

/**
 * The longest prefix of `text` of whole characters within `maxBytes` UTF-8 bytes: a cut inside a
 * multi-byte character backs off to its first byte, so the prefix never ends in a broken character.
 */
function utf8Prefix(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = Math.max(0, maxBytes);
  // UTF-8 continuation bytes are 10xxxxxx: the cut falls inside a character while it points at one.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

/**
 * `text` with the characters SQS refuses in messages (outside #x9 | #xA | #xD | #x20-#xD7FF |
 * #xE000-#xFFFD | #x10000-#x10FFFF, lone surrogates included) replaced by U+FFFD: a reason quotes
 * error messages, which may carry control characters.
 */
function sqsSafeText(text: string): string {
  return text.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD');
}
