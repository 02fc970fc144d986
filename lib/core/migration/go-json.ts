/**
 * Go's `json.Marshal` of a value decoded into `interface{}` (maps, slices, float64, string, bool,
 * nil): the bytes kube-controller-manager compares when it matches a ControllerRevision to its
 * DaemonSet (upstream pkg/controller/daemon/update.go getPatch and Match).
 */

/** Characters encoding/json escapes beyond JSON.stringify: HTML's three, and the JavaScript line separators. */
const GO_ESCAPES: Readonly<Record<string, string>> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** `text` as a Go JSON string literal: JSON.stringify's escapes plus encoding/json's HTML-safe ones. */
function goString(text: string): string {
  return JSON.stringify(text).replace(/[<>&\u2028\u2029]/g, (c) => GO_ESCAPES[c] ?? c);
}

/**
 * The byte order of the UTF-8 encodings, which Go's sort of map keys follows: the order of the code
 * points (JavaScript's `<` compares UTF-16 units, which differs above U+FFFF).
 */
function byteOrder(a: string, b: string): number {
  const [x, y] = [[...a], [...b]];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = (x[i]?.codePointAt(0) ?? 0) - (y[i]?.codePointAt(0) ?? 0);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/**
 * `value` (plain JSON, as JSON.parse gives it) marshalled as Go marshals a `map[string]interface{}`
 * tree: compact, object keys sorted by their bytes at every depth (JSON.stringify would put
 * integer-like keys first), strings HTML-escaped, numbers as float64 prints them (which for the
 * integers and decimals of Kubernetes objects is what JSON.stringify prints).
 */
export function goJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goString(value);
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort(byteOrder)
      .map((key) => `${goString(key)}:${goJson(record[key])}`);
    return `{${members.join(',')}}`;
  }
  return 'null';
}
