import { describe, expect, it } from 'vitest';
import { encodeVarint, ProtoWriter } from '../../../lib/sim/apiserver/protobuf-encode.ts';
import { decodeFields, message, string, strings } from './openapi-v2-proto-decode.ts';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('ProtoWriter', () => {
  // Byte sequences from the protobuf encoding guide (protobuf.dev/programming-guides/encoding).
  const cases: { name: string; write: (w: ProtoWriter) => unknown; bytes: string }[] = [
    { name: 'varint 150 in field 1', write: (w) => w.int64(1, 150), bytes: '089601' },
    {
      name: 'string "testing" in field 2',
      write: (w) => w.string(2, 'testing'),
      bytes: '120774657374696e67',
    },
    {
      name: 'embedded message in field 3',
      write: (w) => w.message(3, new ProtoWriter().int64(1, 150)),
      bytes: '1a03089601',
    },
    { name: 'negative int64 as ten bytes', write: (w) => w.int64(1, -1), bytes: '08ffffffffffffffffff01' },
    {
      name: 'double 1.5 as little-endian fixed64',
      write: (w) => w.double(6, 1.5),
      bytes: '31000000000000f83f',
    },
    { name: 'bool true', write: (w) => w.bool(4, true), bytes: '2001' },
    {
      name: 'proto3 defaults are not written',
      write: (w) => w.bool(4, false).string(2, '').int64(1, 0).double(6, 0),
      bytes: '',
    },
    {
      name: 'an empty sub-message is written',
      write: (w) => w.message(25, new ProtoWriter()),
      bytes: 'ca0100',
    },
    { name: 'a oneof member set to false is written', write: (w) => w.varint(2, 0n), bytes: '1000' },
    {
      name: 'repeated strings keep empty values',
      write: (w) => w.strings(1, ['a', '']),
      bytes: '0a01610a00',
    },
  ];
  it.each(cases)('$name', ({ write, bytes }) => {
    const writer = new ProtoWriter();
    write(writer);
    expect(hex(writer.finish())).toBe(bytes);
  });

  it('round-trips long UTF-8 strings, large varints and nesting through a decoder', () => {
    const long = 'é'.repeat(200);
    const bytes = new ProtoWriter()
      .string(1, long)
      .int64(2, Number.MAX_SAFE_INTEGER)
      .message(3, new ProtoWriter().strings(4, ['x', 'y']).message(5, new ProtoWriter().string(1, 'deep')))
      .finish();
    const fields = decodeFields(bytes);
    expect(string(fields, 1)).toBe(long);
    expect(fields.get(2)).toEqual([{ wire: 0, value: BigInt(Number.MAX_SAFE_INTEGER) }]);
    const nested = message(fields, 3);
    expect(nested && strings(nested, 4)).toEqual(['x', 'y']);
    const deep = nested && message(nested, 5);
    expect(deep && string(deep, 1)).toBe('deep');
  });
});

describe('encodeVarint', () => {
  it.each([
    { value: 0n, bytes: '00' },
    { value: 1n, bytes: '01' },
    { value: 127n, bytes: '7f' },
    { value: 128n, bytes: '8001' },
    { value: 300n, bytes: 'ac02' },
  ])('encodes $value', ({ value, bytes }) => {
    expect(hex(encodeVarint(value))).toBe(bytes);
  });
});
