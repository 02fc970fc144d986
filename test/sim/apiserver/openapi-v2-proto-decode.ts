/**
 * A minimal protobuf reader for tests: splits a message into its fields by number, so tests can
 * read back what lib/sim/apiserver/protobuf-encode.ts wrote (gnostic Document fields by the numbers of
 * openapiv2/OpenAPIv2.proto) without a protobuf dependency.
 */

/** One decoded field value: a varint, the 8 raw bytes of a fixed64, or the bytes of a length-delimited field. */
export type FieldValue =
  | { readonly wire: 0; readonly value: bigint }
  | { readonly wire: 1; readonly bytes: Uint8Array }
  | { readonly wire: 2; readonly bytes: Uint8Array };

/** A decoded message: every value of each field number, in order. */
export type Fields = ReadonlyMap<number, readonly FieldValue[]>;

function readVarint(bytes: Uint8Array, start: number): [bigint, number] {
  let value = 0n;
  let shift = 0n;
  let offset = start;
  for (;;) {
    const byte = bytes[offset];
    if (byte === undefined) throw new Error(`truncated varint at ${start}`);
    offset += 1;
    value |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [value, offset];
    shift += 7n;
  }
}

/** The fields of `bytes`; throws on a truncated message or an unsupported wire type. */
export function decodeFields(bytes: Uint8Array): Fields {
  const fields = new Map<number, FieldValue[]>();
  let offset = 0;
  while (offset < bytes.length) {
    const [tag, afterTag] = readVarint(bytes, offset);
    const field = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    let value: FieldValue;
    if (wire === 0) {
      const [v, next] = readVarint(bytes, afterTag);
      value = { wire: 0, value: v };
      offset = next;
    } else if (wire === 1) {
      value = { wire: 1, bytes: bytes.subarray(afterTag, afterTag + 8) };
      offset = afterTag + 8;
    } else if (wire === 2) {
      const [length, start] = readVarint(bytes, afterTag);
      offset = start + Number(length);
      if (offset > bytes.length) throw new Error(`field ${field} runs past the end`);
      value = { wire: 2, bytes: bytes.subarray(start, offset) };
    } else throw new Error(`unsupported wire type ${wire} for field ${field}`);
    fields.set(field, [...(fields.get(field) ?? []), value]);
  }
  return fields;
}

function lengthDelimited(fields: Fields, field: number): Uint8Array[] {
  return (fields.get(field) ?? []).map((v) => {
    if (v.wire !== 2) throw new Error(`field ${field} is not length-delimited`);
    return v.bytes;
  });
}

/** Every value of string field `field`. */
export function strings(fields: Fields, field: number): string[] {
  return lengthDelimited(fields, field).map((b) => new TextDecoder().decode(b));
}

/** The last value of string field `field` ('' when absent, as proto3 reads it). */
export function string(fields: Fields, field: number): string {
  return strings(fields, field).at(-1) ?? '';
}

/** Every value of message field `field`, decoded. */
export function messages(fields: Fields, field: number): Fields[] {
  return lengthDelimited(fields, field).map(decodeFields);
}

/** The last value of message field `field`, or undefined when absent. */
export function message(fields: Fields, field: number): Fields | undefined {
  return messages(fields, field).at(-1);
}

/** Named entries (`NamedSchema`, `NamedAny`, `NamedPathItem`…: name = 1, value = 2) of field `field`, by name. */
export function named(fields: Fields, field: number): Map<string, Fields> {
  return new Map(messages(fields, field).map((entry) => [string(entry, 1), message(entry, 2) ?? new Map()]));
}
