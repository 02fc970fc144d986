/**
 * Reading a work message off the queue, with a reason for every message that can never be
 * processed (which goes to the DLQ at once as a `PoisonMessageError`).
 */
import * as z from 'zod';
import { type ParseResult, parseJsonObject } from './parse-json-object.ts';
import {
  WORK_MESSAGE_VERSION,
  type WorkMessage,
  workMessageKinds,
  workMessageSchema,
} from './work-message.ts';

/**
 * The work message in the SQS body `body`, or the reason it is not one: the body is not a JSON
 * object, its `v` is not a version this code reads, its `kind` is unknown, or its fields do not
 * match the schema of its kind (the reason names each bad field).
 */
export function parseWorkMessage(body: string): ParseResult<'message', WorkMessage> {
  const json = parseJsonObject(body);
  if (!json.ok) return json;
  const { v, kind } = json.value;
  if (v !== WORK_MESSAGE_VERSION) {
    return {
      ok: false,
      reason: `unknown message version ${JSON.stringify(v) ?? 'undefined'} (this reconciler reads v ${WORK_MESSAGE_VERSION})`,
    };
  }
  if (typeof kind !== 'string' || !(workMessageKinds as readonly string[]).includes(kind)) {
    return {
      ok: false,
      reason: `unknown message kind ${JSON.stringify(kind) ?? 'undefined'} (expected one of ${workMessageKinds.join(', ')})`,
    };
  }
  const parsed = workMessageSchema.safeParse(json.value);
  if (!parsed.success) {
    return {
      ok: false,
      reason: `invalid ${kind} message: ${z.prettifyError(parsed.error).replaceAll('\n', ' ')}`,
    };
  }
  return { ok: true, message: parsed.data };
}
