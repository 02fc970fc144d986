/**
 * Just enough of the Kubernetes protobuf encoding (`application/vnd.kubernetes.protobuf`,
 * k8s.io/apimachinery/pkg/runtime/serializer/protobuf) to accept the bodies kubectl's typed clients
 * send: `kubectl create namespace` POSTs a protobuf Namespace. The envelope is the 4-byte magic
 * `k8s\0` and a runtime.Unknown; of the object only ObjectMeta's name, generateName, labels and
 * annotations and the Namespace spec's finalizers are read (generated.proto field numbers).
 */
import { SimApiError } from '../schema/api-error.ts';

type Fields = Map<number, (Buffer | number)[]>;

/** Reads a base-128 varint at `offset`; returns the value and the next offset. */
function varint(buffer: Buffer, offset: number): [number, number] {
  let value = 0;
  let shift = 0;
  let i = offset;
  for (;;) {
    const byte = buffer[i];
    if (byte === undefined) throw new Error('truncated varint');
    value += (byte & 0x7f) * 2 ** shift;
    i += 1;
    if ((byte & 0x80) === 0) return [value, i];
    shift += 7;
  }
}

/** The fields of one protobuf message: number → values (bytes for length-delimited, numbers for varints). */
function fieldsOf(buffer: Buffer): Fields {
  const fields: Fields = new Map();
  let i = 0;
  while (i < buffer.length) {
    const [tag, afterTag] = varint(buffer, i);
    const [field, wire] = [Math.floor(tag / 8), tag % 8];
    let value: Buffer | number;
    if (wire === 0) [value, i] = varint(buffer, afterTag);
    else if (wire === 2) {
      const [length, start] = varint(buffer, afterTag);
      value = buffer.subarray(start, start + length);
      i = start + length;
    } else if (wire === 1 || wire === 5) {
      value = 0;
      i = afterTag + (wire === 1 ? 8 : 4);
    } else throw new Error(`unsupported wire type ${wire}`);
    fields.set(field, [...(fields.get(field) ?? []), value]);
  }
  return fields;
}

const text = (fields: Fields, n: number): string | undefined => {
  const v = fields.get(n)?.[0];
  return Buffer.isBuffer(v) ? v.toString('utf8') : undefined;
};

const message = (fields: Fields, n: number): Fields => {
  const v = fields.get(n)?.[0];
  return Buffer.isBuffer(v) ? fieldsOf(v) : new Map();
};

/** A map<string,string> field (repeated entries with key 1 and value 2). */
function stringMap(fields: Fields, n: number): Record<string, string> | undefined {
  const entries = (fields.get(n) ?? []).filter(Buffer.isBuffer).map((b) => fieldsOf(b));
  if (entries.length === 0) return undefined;
  return Object.fromEntries(entries.map((e) => [text(e, 1) ?? '', text(e, 2) ?? '']));
}

/** Whether a body is Kubernetes protobuf (starts with the `k8s\0` magic). */
export function isProtobufBody(body: Buffer): boolean {
  return body.length >= 4 && body.subarray(0, 4).toString('latin1') === 'k8s\u0000';
}

/** The JSON object of a protobuf Namespace body; 415 for any other kind (not decoded by the simulator). */
export function decodeProtobufBody(body: Buffer): Record<string, unknown> {
  try {
    const unknown = fieldsOf(body.subarray(4));
    const typeMeta = message(unknown, 1);
    const kind = text(typeMeta, 2);
    if (kind !== 'Namespace')
      throw new SimApiError(
        415,
        'UnsupportedMediaType',
        `the simulated API server decodes protobuf only for Namespace, not ${kind ?? 'this object'}; send application/json`,
      );
    const raw = message(unknown, 2);
    const meta = message(raw, 1);
    const finalizers = (message(raw, 2).get(1) ?? []).filter(Buffer.isBuffer).map((b) => b.toString('utf8'));
    const metadata = Object.fromEntries(
      Object.entries({
        name: text(meta, 1),
        generateName: text(meta, 2),
        labels: stringMap(meta, 11),
        annotations: stringMap(meta, 12),
      }).filter(([, v]) => v !== undefined && v !== ''),
    );
    return {
      apiVersion: text(typeMeta, 1) ?? 'v1',
      kind,
      metadata,
      spec: finalizers.length > 0 ? { finalizers } : {},
    };
  } catch (error) {
    if (error instanceof SimApiError) throw error;
    throw SimApiError.badRequest(
      `the object provided is unrecognized (protobuf: ${error instanceof Error ? error.message : String(error)})`,
    );
  }
}
