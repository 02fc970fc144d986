/**
 * A minimal protocol buffers writer (https://protobuf.dev/programming-guides/encoding/): varint,
 * 64-bit and length-delimited fields, enough to serialise proto3 messages such as gnostic's
 * openapi_v2.Document without a protobuf dependency. Scalars follow proto3 presence rules (a
 * default value — '', false, 0 — is not written, as Go's proto.Marshal does), while sub-messages are
 * written whenever they are given, even empty, because a present empty message differs from an
 * absent one to the reader (kube-openapi's pkg/util/proto checks `GetProperties() != nil`).
 */

/** The wire types used here. */
const wireVarint = 0;
const wireFixed64 = 1;
const wireLengthDelimited = 2;

const utf8 = new TextEncoder();

/** The varint encoding of `value` (an unsigned 64-bit integer; negative numbers as two's complement). */
export function encodeVarint(value: bigint): Uint8Array {
  let rest = BigInt.asUintN(64, value);
  const bytes: number[] = [];
  while (rest >= 0x80n) {
    bytes.push(Number(rest & 0x7fn) | 0x80);
    rest >>= 7n;
  }
  bytes.push(Number(rest));
  return Uint8Array.from(bytes);
}

/** Builds one message's bytes field by field, in the order the fields are added. */
export class ProtoWriter {
  private readonly chunks: Uint8Array[] = [];
  private size = 0;

  private push(chunk: Uint8Array): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  private tag(field: number, wireType: number): void {
    this.push(encodeVarint(BigInt(field * 8 + wireType)));
  }

  /** Adds a length-delimited field with the raw `bytes`; returns this writer. */
  bytes(field: number, bytes: Uint8Array): this {
    this.tag(field, wireLengthDelimited);
    this.push(encodeVarint(BigInt(bytes.length)));
    this.push(bytes);
    return this;
  }

  /** Adds a string field unless `value` is empty or undefined (proto3 default); returns this writer. */
  string(field: number, value: string | undefined): this {
    return value ? this.bytes(field, utf8.encode(value)) : this;
  }

  /** Adds every string of a repeated string field, empty ones included; returns this writer. */
  strings(field: number, values: readonly string[] | undefined): this {
    for (const value of values ?? []) this.bytes(field, utf8.encode(value));
    return this;
  }

  /** Adds a bool field when `value` is true; returns this writer. */
  bool(field: number, value: boolean | undefined): this {
    if (!value) return this;
    this.tag(field, wireVarint);
    this.push(Uint8Array.of(1));
    return this;
  }

  /** Adds a varint field even when `value` is 0 (a set member of a oneof); returns this writer. */
  varint(field: number, value: bigint): this {
    this.tag(field, wireVarint);
    this.push(encodeVarint(value));
    return this;
  }

  /** Adds an int64 field (varint) unless `value` is 0 or undefined; returns this writer. */
  int64(field: number, value: number | undefined): this {
    if (!value) return this;
    this.tag(field, wireVarint);
    this.push(encodeVarint(BigInt(Math.trunc(value))));
    return this;
  }

  /** Adds a double field (64-bit little-endian IEEE 754) unless `value` is 0 or undefined; returns this writer. */
  double(field: number, value: number | undefined): this {
    if (!value) return this;
    this.tag(field, wireFixed64);
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setFloat64(0, value, true);
    this.push(bytes);
    return this;
  }

  /** Adds an embedded message field (written even when empty); returns this writer. */
  message(field: number, message: ProtoWriter): this {
    return this.bytes(field, message.finish());
  }

  /** The serialised message. */
  finish(): Uint8Array {
    const out = new Uint8Array(this.size);
    let offset = 0;
    for (const chunk of this.chunks) {
      out.set(chunk, offset);
      offset += chunk.length;
    }
    return out;
  }
}
