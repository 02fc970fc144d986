/**
 * JSON patch (RFC 6902, `application/json-patch+json`), as the API server applies it with
 * github.com/evanphx/json-patch in staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go
 * (jsonPatcher.applyJSPatch): a patch that is not a list of operations is 400 BadRequest; an
 * operation that does not apply (failed `test`, missing path) is 422.
 */
import { isDeepStrictEqual } from 'node:util';
import { PatchError } from './patch-error.ts';

/** One RFC 6902 operation. */
export interface JsonPatchOperation {
  readonly op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  readonly path: string;
  readonly from?: string;
  readonly value?: unknown;
}

type Container = { [key: string]: unknown } | unknown[];

function notApplicable(message: string): PatchError {
  return new PatchError('Invalid', message);
}

/** The reference tokens of a JSON pointer (RFC 6901); `''` is the whole document. */
function tokensOf(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/'))
    throw notApplicable(`JSON pointer ${JSON.stringify(pointer)} does not start with /`);
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
}

function isContainer(value: unknown): value is Container {
  return typeof value === 'object' && value !== null;
}

function arrayIndex(list: readonly unknown[], token: string, forAdd: boolean): number | undefined {
  if (forAdd && token === '-') return list.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
  const index = Number(token);
  return index < list.length || (forAdd && index === list.length) ? index : undefined;
}

/** The container holding the last token of `path`, and that token; throws when the parent is missing. */
function parentOf(doc: unknown, path: string, op: string): { parent: Container; last: string } {
  const tokens = tokensOf(path);
  const last = tokens.pop();
  if (last === undefined)
    throw notApplicable(`${op} operation does not apply: the path is the whole document`);
  let node: unknown = doc;
  for (const token of tokens) {
    const next = isContainer(node) ? childOf(node, token) : undefined;
    if (next === undefined)
      throw notApplicable(`${op} operation does not apply: doc is missing path: ${path}`);
    node = next;
  }
  if (!isContainer(node)) throw notApplicable(`${op} operation does not apply: doc is missing path: ${path}`);
  return { parent: node, last };
}

function childOf(node: Container, token: string): unknown {
  if (Array.isArray(node)) {
    const index = arrayIndex(node, token, false);
    return index === undefined ? undefined : node[index];
  }
  return Object.hasOwn(node, token) ? node[token] : undefined;
}

/** The value at `path`, or undefined when nothing is there. */
function valueAt(doc: unknown, path: string): unknown {
  let node: unknown = doc;
  for (const token of tokensOf(path)) {
    node = isContainer(node) ? childOf(node, token) : undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

function add(doc: unknown, path: string, value: unknown, op = 'add'): unknown {
  if (path === '') return structuredClone(value);
  const { parent, last } = parentOf(doc, path, op);
  if (!Array.isArray(parent)) {
    parent[last] = structuredClone(value);
    return doc;
  }
  const index = arrayIndex(parent, last, true);
  if (index === undefined)
    throw notApplicable(`${op} operation does not apply: doc is missing path: ${path}`);
  parent.splice(index, 0, structuredClone(value));
  return doc;
}

/** Removes the value at `path` and returns it; throws when nothing is there. */
function removeValue(doc: unknown, path: string, op: string): unknown {
  const { parent, last } = parentOf(doc, path, op);
  if (Array.isArray(parent)) {
    const index = arrayIndex(parent, last, false);
    if (index === undefined)
      throw notApplicable(`${op} operation does not apply: doc is missing path: ${path}`);
    return parent.splice(index, 1)[0];
  }
  if (!Object.hasOwn(parent, last))
    throw notApplicable(`${op} operation does not apply: doc is missing key: ${path}`);
  const removed = parent[last];
  delete parent[last];
  return removed;
}

function replace(doc: unknown, path: string, value: unknown): unknown {
  if (path === '') return structuredClone(value);
  if (valueAt(doc, path) === undefined) {
    throw notApplicable(`replace operation does not apply: doc is missing key: ${path}`);
  }
  removeValue(doc, path, 'replace');
  return add(doc, path, value, 'replace');
}

function requireFrom(operation: Readonly<JsonPatchOperation>): string {
  if (typeof operation.from !== 'string')
    throw notApplicable(`${operation.op} operation is missing the from field`);
  return operation.from;
}

function applyOne(doc: unknown, operation: Readonly<JsonPatchOperation>): unknown {
  switch (operation.op) {
    case 'add':
      return add(doc, operation.path, operation.value);
    case 'remove':
      removeValue(doc, operation.path, 'remove');
      return doc;
    case 'replace':
      return replace(doc, operation.path, operation.value);
    case 'move': {
      const moved = removeValue(doc, requireFrom(operation), 'move');
      return add(doc, operation.path, moved, 'move');
    }
    case 'copy': {
      const copied = valueAt(doc, requireFrom(operation));
      if (copied === undefined)
        throw notApplicable(`copy operation does not apply: doc is missing from path: ${operation.from}`);
      return add(doc, operation.path, copied, 'copy');
    }
    case 'test':
      if (!isDeepStrictEqual(valueAt(doc, operation.path) ?? null, operation.value ?? null)) {
        throw notApplicable(`testing value ${operation.path} failed: test failed`);
      }
      return doc;
  }
}

const knownOps = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

/** The operations of `patch`; throws a 400 `PatchError` when it is not a list of operations. */
export function parseJsonPatch(patch: unknown): JsonPatchOperation[] {
  if (!Array.isArray(patch)) {
    throw new PatchError('BadRequest', 'decoding JSON patch: the patch is not a JSON array of operations');
  }
  return patch.map((item, index) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      throw new PatchError('BadRequest', `decoding JSON patch: operation ${index} is not a JSON object`);
    }
    const { op, path } = item as { op?: unknown; path?: unknown };
    if (typeof op !== 'string' || !knownOps.has(op)) throw notApplicable(`Unexpected kind: ${String(op)}`);
    if (typeof path !== 'string') throw notApplicable(`operation ${index} (${op}) is missing the path field`);
    return item as JsonPatchOperation;
  });
}

/**
 * The document that results from applying the RFC 6902 operations in `patch` to `original`, in
 * order, all or nothing (`original` is not modified). Throws a `PatchError`: 400 for a malformed
 * patch, 422 when an operation does not apply (including a failed `test`).
 */
export function jsonPatch(original: unknown, patch: unknown): unknown {
  const operations = parseJsonPatch(patch);
  let doc: unknown = structuredClone(original);
  for (const operation of operations) doc = applyOne(doc, operation);
  return doc;
}
