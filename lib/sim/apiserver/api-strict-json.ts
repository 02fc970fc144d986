/**
 * The strict-decoding errors of a JSON request body, in document order, as sigs.k8s.io/json
 * UnmarshalStrict reports them when the apiserver decodes with its strict serializer: `unknown
 * field "spec.foo"` for a key the target type lacks and `duplicate field "spec.replicas"` for a key
 * given twice in one object (JSON.parse silently keeps the last, so the text itself is scanned).
 * Errors are deduplicated and capped at 100 (decodeState.saveStrictError).
 */
import { childSchema, type FieldSchema, itemSchema } from '../schema/store-field-schema.ts';

/** One strict-decoding error: the kind of problem and the field path. */
export interface StrictError {
  readonly kind: 'unknown' | 'duplicate';
  readonly path: string;
}

/** `unknown field "x"` / `duplicate field "x"`: the error text of a StrictError. */
export function strictErrorText(error: Readonly<StrictError>): string {
  return `${error.kind} field ${JSON.stringify(error.path)}`;
}

const freeSchema: FieldSchema = { kind: 'free' };
const maxErrors = 100;

/** A single pass over already-valid JSON text, following `schema` down the document. */
class StrictScanner {
  private i = 0;
  readonly errors: StrictError[] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly text: string) {}

  private skipSpace(): void {
    const t = this.text;
    let c = t.charCodeAt(this.i);
    while (c === 32 || c === 10 || c === 13 || c === 9) c = t.charCodeAt(++this.i);
  }

  private record(kind: StrictError['kind'], path: string): void {
    const id = `${kind}\u0000${path}`;
    if (this.seen.has(id) || this.errors.length >= maxErrors) return;
    this.seen.add(id);
    this.errors.push({ kind, path });
  }

  /** Reads the string starting at the current quote; returns its value. */
  private string(): string {
    const t = this.text;
    const start = this.i + 1;
    let j = start;
    let escaped = false;
    for (let c = t.charCodeAt(j); c !== 34; c = t.charCodeAt(j)) {
      if (c === 92) {
        escaped = true;
        j += 1;
      }
      j += 1;
    }
    this.i = j + 1;
    const raw = t.slice(start, j);
    return escaped ? (JSON.parse(`"${raw}"`) as string) : raw;
  }

  /** Skips a number, true, false or null. */
  private literal(): void {
    const t = this.text;
    let c = t.charCodeAt(this.i);
    while (
      c !== 44 &&
      c !== 93 &&
      c !== 125 &&
      c !== 32 &&
      c !== 10 &&
      c !== 13 &&
      c !== 9 &&
      this.i < t.length
    )
      c = t.charCodeAt(++this.i);
  }

  value(schema: FieldSchema, path: string): void {
    this.skipSpace();
    const c = this.text.charCodeAt(this.i);
    if (c === 123) this.object(schema, path);
    else if (c === 91) this.array(schema, path);
    else if (c === 34) this.string();
    else this.literal();
  }

  private object(schema: FieldSchema, path: string): void {
    this.i += 1;
    const keys = new Set<string>();
    for (;;) {
      this.skipSpace();
      if (this.text.charCodeAt(this.i) === 125) break;
      const key = this.string();
      this.skipSpace();
      this.i += 1; // the colon
      const childPath = path === '' ? key : `${path}.${key}`;
      if (keys.has(key)) this.record('duplicate', childPath);
      keys.add(key);
      const child = childSchema(schema, key);
      if (child === undefined) this.record('unknown', childPath);
      this.value(child ?? freeSchema, childPath);
      this.skipSpace();
      if (this.text.charCodeAt(this.i) === 44) this.i += 1;
    }
    this.i += 1;
  }

  private array(schema: FieldSchema, path: string): void {
    this.i += 1;
    const items = itemSchema(schema);
    for (let index = 0; ; index += 1) {
      this.skipSpace();
      if (this.text.charCodeAt(this.i) === 93) break;
      this.value(items, `${path}[${index}]`);
      this.skipSpace();
      if (this.text.charCodeAt(this.i) === 44) this.i += 1;
    }
    this.i += 1;
  }
}

/**
 * The strict-decoding errors of `text` (JSON that JSON.parse accepted) decoded into `schema`:
 * unknown fields (only below structs of the schema) and duplicate keys (anywhere), in document order.
 */
export function strictJsonErrors(text: string, schema: FieldSchema = freeSchema): StrictError[] {
  const scanner = new StrictScanner(text);
  scanner.value(schema, '');
  return scanner.errors;
}
