/**
 * The X-Ray trace header Lambda gives each invocation (`_X_AMZN_TRACE_ID` in the function,
 * `X-Amzn-Trace-Id` on the SDK calls it makes, which the SDK copies from that variable) and its
 * `Lineage`, by which Lambda's recursive loop detection counts how many times one triggering event
 * has invoked a function: `Root=1-<time>-<id>;Parent=<id>;Sampled=0;Lineage=<hash>:<count>|…`, one
 * `<hash>:<count>` entry per function the event went through (newer headers put a version first,
 * `<version>:<hash>:<count>`). Lambda's hash of a function is not public; here it is the first 8 hex
 * digits of the SHA-256 of its unqualified ARN.
 *
 * As AWS documents it ("Lambda recursive loop detection"), after an event has invoked a function
 * {@link RECURSIVE_INVOCATION_LIMIT} times Lambda stops the next invocation
 * (RecursiveInvocationException) unless the function's `RecursiveLoop` is `Allow`.
 */
import { createHash, randomBytes } from 'node:crypto';

/** The invocations of one function by one triggering event that Lambda lets run. */
export const RECURSIVE_INVOCATION_LIMIT = 16;

/** The key of `functionArn` in a `Lineage`. */
export function lineageKey(functionArn: string): string {
  return createHash('sha256').update(functionArn).digest('hex').slice(0, 8);
}

/** The header's fields (`Root`, `Parent`, `Sampled`, `Lineage`…), in order. */
function fieldsOf(header: string | undefined): Map<string, string> {
  const fields = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0) fields.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  return fields;
}

/** `Lineage` as counts by function key. */
function lineageOf(fields: ReadonlyMap<string, string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const entry of (fields.get('Lineage') ?? '').split('|')) {
    const parts = entry.split(':');
    const count = Number(parts.at(-1));
    const key = parts.at(-2);
    if (key && Number.isInteger(count) && count >= 0) counts.set(key, count);
  }
  return counts;
}

/** How many times the event `header` traces has invoked `functionArn` so far (0 without a header). */
export function invocationsOf(header: string | undefined, functionArn: string): number {
  return lineageOf(fieldsOf(header)).get(lineageKey(functionArn)) ?? 0;
}

/**
 * The trace header of an invocation of `functionArn` by the event `incoming` traces (a new trace
 * when there is none): the same root, a new parent, and the function's count one higher.
 */
export function invocationTraceHeader(incoming: string | undefined, functionArn: string): string {
  const fields = fieldsOf(incoming);
  const counts = lineageOf(fields);
  const key = lineageKey(functionArn);
  counts.set(key, (counts.get(key) ?? 0) + 1);
  const root =
    fields.get('Root') ??
    `1-${Math.floor(Date.now() / 1000).toString(16)}-${randomBytes(12).toString('hex')}`;
  const lineage = [...counts].map(([k, n]) => `${k}:${n}`).join('|');
  return `Root=${root};Parent=${randomBytes(8).toString('hex')};Sampled=0;Lineage=${lineage}`;
}
