/**
 * Just enough of the Kubernetes protobuf encoding (`application/vnd.kubernetes.protobuf`,
 * k8s.io/apimachinery/pkg/runtime/serializer/protobuf) to accept the bodies kubectl's typed clients
 * send: `kubectl create namespace` POSTs a protobuf Namespace, `kubectl auth can-i` a protobuf
 * SelfSubjectAccessReview, `kubectl create role|rolebinding|clusterrole|clusterrolebinding` the RBAC
 * kinds. The envelope is the 4-byte magic `k8s\0` and a runtime.Unknown; of the object only
 * ObjectMeta's name, generateName, labels and annotations, the Namespace spec's finalizers, the
 * review's spec and the RBAC rules, subjects and roleRef are read (generated.proto field numbers).
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

/** ObjectMeta's name, generateName, labels and annotations (the fields read), empty ones left out. */
function objectMeta(meta: Fields): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries({
      name: text(meta, 1),
      generateName: text(meta, 2),
      labels: stringMap(meta, 11),
      annotations: stringMap(meta, 12),
    }).filter(([, v]) => v !== undefined && v !== ''),
  );
}

/** String fields 1, 2, … of a message under the JSON names `names` (in field order), those absent left out. */
function strings(fields: Fields, names: readonly string[]): Record<string, string> {
  const found: Record<string, string> = {};
  names.forEach((name, i) => {
    const value = text(fields, i + 1);
    if (value !== undefined) found[name] = value;
  });
  return found;
}

/** A Namespace: metadata and spec.finalizers. */
function namespaceOf(raw: Fields): Record<string, unknown> {
  const finalizers = (message(raw, 2).get(1) ?? []).filter(Buffer.isBuffer).map((b) => b.toString('utf8'));
  return { metadata: objectMeta(message(raw, 1)), spec: finalizers.length > 0 ? { finalizers } : {} };
}

/**
 * A SelfSubjectAccessReview (what `kubectl auth can-i` sends): its spec's resource attributes
 * (namespace 1, verb 2, group 3, version 4, resource 5, subresource 6, name 7) or non-resource
 * attributes (path 1, verb 2), as authorization/v1 generated.proto numbers them.
 */
function selfSubjectAccessReviewOf(raw: Fields): Record<string, unknown> {
  const spec = message(raw, 2);
  const resource = ['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name'];
  const decoded = {
    resourceAttributes: spec.has(1) ? strings(message(spec, 1), resource) : undefined,
    nonResourceAttributes: spec.has(2) ? strings(message(spec, 2), ['path', 'verb']) : undefined,
  };
  const present = Object.entries(decoded).filter(([, v]) => v !== undefined);
  return { metadata: objectMeta(message(raw, 1)), spec: Object.fromEntries(present) };
}

/** The strings of a repeated string field. */
const stringList = (fields: Fields, n: number): string[] =>
  (fields.get(n) ?? []).filter(Buffer.isBuffer).map((b) => b.toString('utf8'));

/** The messages of a repeated message field. */
const messages = (fields: Fields, n: number): Fields[] =>
  (fields.get(n) ?? []).filter(Buffer.isBuffer).map((b) => fieldsOf(b));

/** A Role or ClusterRole (`kubectl create role`): metadata and rules (rbac/v1 PolicyRule 1–5). */
function roleOf(raw: Fields): Record<string, unknown> {
  const lists = ['verbs', 'apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'];
  const rules = messages(raw, 2).map((rule) =>
    Object.fromEntries(
      lists.map((name, i) => [name, stringList(rule, i + 1)] as const).filter(([, v]) => v.length > 0),
    ),
  );
  return { metadata: objectMeta(message(raw, 1)), rules };
}

/** A RoleBinding or ClusterRoleBinding (`kubectl create rolebinding`): subjects 2 and roleRef 3. */
function bindingOf(raw: Fields): Record<string, unknown> {
  const subjects = messages(raw, 2).map((s) => strings(s, ['kind', 'apiGroup', 'name', 'namespace']));
  const roleRef = strings(message(raw, 3), ['apiGroup', 'kind', 'name']);
  return { metadata: objectMeta(message(raw, 1)), subjects, roleRef };
}

const decoders: Readonly<Record<string, (raw: Fields) => Record<string, unknown>>> = {
  Namespace: namespaceOf,
  SelfSubjectAccessReview: selfSubjectAccessReviewOf,
  Role: roleOf,
  ClusterRole: roleOf,
  RoleBinding: bindingOf,
  ClusterRoleBinding: bindingOf,
};

/**
 * The JSON object of a protobuf Namespace, SelfSubjectAccessReview or RBAC body; 415 for any other
 * kind (not decoded by the simulator).
 */
export function decodeProtobufBody(body: Buffer): Record<string, unknown> {
  try {
    const unknown = fieldsOf(body.subarray(4));
    const typeMeta = message(unknown, 1);
    const kind = text(typeMeta, 2);
    const decode = kind === undefined ? undefined : decoders[kind];
    if (!decode)
      throw new SimApiError(
        415,
        'UnsupportedMediaType',
        `the simulated API server decodes protobuf only for ${Object.keys(decoders).join(', ')}, not ${kind ?? 'this object'}; send application/json`,
      );
    return { apiVersion: text(typeMeta, 1) ?? 'v1', kind, ...decode(message(unknown, 2)) };
  } catch (error) {
    if (error instanceof SimApiError) throw error;
    throw SimApiError.badRequest(
      `the object provided is unrecognized (protobuf: ${error instanceof Error ? error.message : String(error)})`,
    );
  }
}
