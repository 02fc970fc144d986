/**
 * The first step of parsing any queue body: JSON, and an object.
 */

/** The outcome of a parse: the value, or why the body can never be processed. */
export type ParseResult<K extends string, T> =
  | ({ ok: true } & { [key in K]: T })
  | { ok: false; reason: string };

/**
 * The JSON object `body` holds, or the reason it holds none (not JSON, or JSON that is not an
 * object — an array, a string, null).
 */
export function parseJsonObject(body: string): ParseResult<'value', Record<string, unknown>> {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    return {
      ok: false,
      reason: `body is not JSON (${error instanceof Error ? error.message : String(error)})`,
    };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const what = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    return { ok: false, reason: `body is JSON ${what}, not an object` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}
