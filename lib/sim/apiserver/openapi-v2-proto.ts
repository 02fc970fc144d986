/**
 * The OpenAPI v2 (Swagger 2.0) document as protobuf: gnostic's `openapi.v2.Document` message
 * (github.com/google/gnostic-models openapiv2/OpenAPIv2.proto; field numbers below are that file's).
 * This is what kube-openapi's handler serves for
 * `Accept: application/com.github.proto-openapi.spec.v2[@.]v1.0+protobuf` (pkg/handler/handler.go
 * ToProtoBinary: openapi_v2.ParseDocument then proto.Marshal), and the only form client-go reads
 * (discovery.OpenAPISchema). Values gnostic keeps as `Any` (vendor extensions, enum, default,
 * example) carry their YAML text, as gnostic's compiler stores them.
 */
import { stringify } from 'yaml';
import { ProtoWriter } from './protobuf-encode.ts';

type Json = Record<string, unknown>;

function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);
const strs = (value: unknown): string[] =>
  Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : [];
const entries = (value: unknown): [string, unknown][] => (isJson(value) ? Object.entries(value) : []);

/** `Any { string yaml = 2; }` holding `value`. */
function anyMessage(value: unknown): ProtoWriter {
  return new ProtoWriter().string(2, stringify(value));
}

/** Each `x-` key of `object` as a `NamedAny { name = 1; value = 2; }` at `field`. */
function vendorExtensions(writer: ProtoWriter, field: number, object: Readonly<Json>): void {
  for (const [name, value] of Object.entries(object)) {
    if (name.startsWith('x-'))
      writer.message(field, new ProtoWriter().string(1, name).message(2, anyMessage(value)));
  }
}

/** Adds the scalar validation fields of `Schema` (6–18) from `s`. */
function schemaLimits(w: ProtoWriter, s: Readonly<Json>): void {
  w.double(6, num(s.multipleOf))
    .double(7, num(s.maximum))
    .bool(8, s.exclusiveMaximum === true)
    .double(9, num(s.minimum))
    .bool(10, s.exclusiveMinimum === true)
    .int64(11, num(s.maxLength))
    .int64(12, num(s.minLength))
    .string(13, str(s.pattern))
    .int64(14, num(s.maxItems))
    .int64(15, num(s.minItems))
    .bool(16, s.uniqueItems === true)
    .int64(17, num(s.maxProperties))
    .int64(18, num(s.minProperties));
}

/** gnostic `Schema` for the JSON schema `s`. */
export function schemaMessage(s: Readonly<Json>): ProtoWriter {
  const w = new ProtoWriter().string(1, str(s.$ref)).string(2, str(s.format)).string(3, str(s.title));
  w.string(4, str(s.description));
  if (s.default !== undefined) w.message(5, anyMessage(s.default));
  schemaLimits(w, s);
  w.strings(19, strs(s.required));
  for (const value of Array.isArray(s.enum) ? s.enum : []) w.message(20, anyMessage(value));
  if (typeof s.additionalProperties === 'boolean')
    w.message(21, new ProtoWriter().varint(2, s.additionalProperties ? 1n : 0n));
  else if (isJson(s.additionalProperties))
    w.message(21, new ProtoWriter().message(1, schemaMessage(s.additionalProperties)));
  if (s.type !== undefined) w.message(22, new ProtoWriter().strings(1, strs(s.type)));
  if (s.items !== undefined) {
    const items = new ProtoWriter();
    for (const item of Array.isArray(s.items) ? s.items : [s.items])
      items.message(1, schemaMessage(item as Json));
    w.message(23, items);
  }
  for (const part of Array.isArray(s.allOf) ? s.allOf : []) w.message(24, schemaMessage(part as Json));
  if (isJson(s.properties)) w.message(25, namedSchemas(s.properties));
  w.string(26, str(s.discriminator)).bool(27, s.readOnly === true);
  if (s.example !== undefined) w.message(30, anyMessage(s.example));
  vendorExtensions(w, 31, s);
  return w;
}

/** `Properties` / `Definitions`: `repeated NamedSchema additional_properties = 1`. */
function namedSchemas(schemas: Readonly<Json>): ProtoWriter {
  const w = new ProtoWriter();
  for (const [name, schema] of entries(schemas))
    w.message(1, new ProtoWriter().string(1, name).message(2, schemaMessage(schema as Json)));
  return w;
}

/** `ParametersItem { Parameter parameter = 1; }` for one parameter object. */
function parameterItem(p: Readonly<Json>): ProtoWriter {
  const parameter = new ProtoWriter();
  if (p.in === 'body') {
    const body = new ProtoWriter().string(1, str(p.description)).string(2, str(p.name)).string(3, 'body');
    body.bool(4, p.required === true);
    if (isJson(p.schema)) body.message(5, schemaMessage(p.schema));
    parameter.message(1, body);
  } else {
    // QueryParameterSubSchema (NonBodyParameter 3) and PathParameterSubSchema (4) share fields 1–4;
    // type, format and uniqueItems are 6, 7, 20 in the former and 5, 6, 19 in the latter.
    const isPath = p.in === 'path';
    const sub = new ProtoWriter().bool(1, p.required === true).string(2, str(p.in));
    sub.string(3, str(p.description)).string(4, str(p.name));
    sub.string(isPath ? 5 : 6, str(p.type)).string(isPath ? 6 : 7, str(p.format));
    sub.bool(isPath ? 19 : 20, p.uniqueItems === true);
    parameter.message(2, new ProtoWriter().message(isPath ? 4 : 3, sub));
  }
  return new ProtoWriter().message(1, parameter);
}

/** `Operation` for one operation object. */
function operationMessage(op: Readonly<Json>): ProtoWriter {
  const w = new ProtoWriter()
    .strings(1, strs(op.tags))
    .string(2, str(op.summary))
    .string(3, str(op.description));
  w.string(5, str(op.operationId)).strings(6, strs(op.produces)).strings(7, strs(op.consumes));
  for (const p of Array.isArray(op.parameters) ? op.parameters : []) w.message(8, parameterItem(p as Json));
  const responses = new ProtoWriter();
  for (const [code, response] of entries(op.responses)) {
    const r = isJson(response) ? response : {};
    const message = new ProtoWriter().string(1, str(r.description));
    if (isJson(r.schema)) message.message(2, new ProtoWriter().message(1, schemaMessage(r.schema)));
    responses.message(1, new ProtoWriter().string(1, code).message(2, new ProtoWriter().message(1, message)));
  }
  w.message(9, responses)
    .strings(10, strs(op.schemes))
    .bool(11, op.deprecated === true);
  vendorExtensions(w, 13, op);
  return w;
}

const pathItemFields: Readonly<Record<string, number>> = { get: 2, put: 3, post: 4, delete: 5, patch: 8 };

/** `PathItem` for one path object. */
function pathItemMessage(item: Readonly<Json>): ProtoWriter {
  const w = new ProtoWriter();
  for (const [method, field] of Object.entries(pathItemFields)) {
    const op = item[method];
    if (isJson(op)) w.message(field, operationMessage(op));
  }
  for (const p of Array.isArray(item.parameters) ? item.parameters : [])
    w.message(9, parameterItem(p as Json));
  vendorExtensions(w, 10, item);
  return w;
}

/** The security fields (12, 13) of `Document`: API-key schemes and the requirements naming them. */
function security(w: ProtoWriter, doc: Readonly<Json>): void {
  for (const requirement of Array.isArray(doc.security) ? doc.security : []) {
    const named = new ProtoWriter();
    for (const [name, scopes] of entries(requirement))
      named.message(
        1,
        new ProtoWriter().string(1, name).message(2, new ProtoWriter().strings(1, strs(scopes))),
      );
    w.message(12, named);
  }
  if (!isJson(doc.securityDefinitions)) return;
  const definitions = new ProtoWriter();
  for (const [name, scheme] of entries(doc.securityDefinitions)) {
    const s = isJson(scheme) ? scheme : {};
    const apiKey = new ProtoWriter().string(1, str(s.type)).string(2, str(s.name)).string(3, str(s.in));
    apiKey.string(4, str(s.description));
    definitions.message(
      1,
      new ProtoWriter().string(1, name).message(2, new ProtoWriter().message(2, apiKey)),
    );
  }
  w.message(13, definitions);
}

/** The gnostic `openapi.v2.Document` encoding of the Swagger 2.0 document `doc`. */
export function openApiV2DocumentProto(doc: Readonly<Json>): Uint8Array {
  const info = isJson(doc.info) ? doc.info : {};
  const w = new ProtoWriter().string(1, str(doc.swagger));
  w.message(2, new ProtoWriter().string(1, str(info.title)).string(2, str(info.version)));
  const paths = new ProtoWriter();
  for (const [path, item] of entries(doc.paths))
    paths.message(2, new ProtoWriter().string(1, path).message(2, pathItemMessage(item as Json)));
  w.message(8, paths);
  w.message(9, namedSchemas(isJson(doc.definitions) ? doc.definitions : {}));
  security(w, doc);
  return w.finish();
}
