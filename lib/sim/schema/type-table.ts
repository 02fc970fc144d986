/**
 * The notation of the schema type table: the parts (openapi-types-status.ts, openapi-types-volumes.ts,
 * openapi-types-workloads.ts) are written in it and openapi-types.ts parses them.
 */

/** The Go package a schema comes from. */
export type TypePackage = 'core' | 'apps' | 'meta' | 'rbac' | 'authorization' | 'apiextensions';

/**
 * Schemas by short name: package and a whitespace-separated field list, each field
 * `name:type[/strategy[:mergeKey]]`. Types: `s` string, `i32`/`i64` integers, `n` number, `b` boolean,
 * `time`/`microtime` timestamps, `bytes` base64, `ios` int-or-string, `q` quantity, `any` free-form
 * object, `json` any JSON value (apiextensions JSON and JSONSchemaPropsOrBool, published without a
 * type), `[T]` list of T, `{T}` map of T, or another schema's short name.
 */
export type TypeTable = Readonly<Record<string, readonly [TypePackage, string]>>;
