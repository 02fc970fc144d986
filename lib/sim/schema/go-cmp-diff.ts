/**
 * The diff ValidatePodUpdate appends to its Forbidden message: go-cmp's cmp.Diff(oldSpec,
 * mungedSpec) over the internal core.PodSpec, rendered here from the JSON the store holds in
 * go-cmp's layout: `-`/`+` lines for what differs, Go field names, `nil` for what is absent, and
 * `... // N identical fields` for the runs left out. go-cmp itself never prints byte-stable output
 * (it randomises its spacing), so clients match the message's first line, not the diff.
 */
import { asRecord, jsonEqual } from './store-json.ts';

/** Go type names of the pod spec fields the diff descends into. */
const typeOf: Readonly<Record<string, string>> = {
  containers: '[]core.Container',
  initContainers: '[]core.Container',
  resources: 'core.ResourceRequirements',
  limits: 'core.ResourceList',
  requests: 'core.ResourceList',
  resizePolicy: '[]core.ContainerResizePolicy',
  tolerations: '[]core.Toleration',
  securityContext: '&core.PodSecurityContext',
  nodeSelector: 'map[string]string',
};

const goNames: Readonly<Record<string, string>> = {
  dnsPolicy: 'DNSPolicy',
  hostPID: 'HostPID',
  hostIPC: 'HostIPC',
};

function goName(field: string): string {
  return goNames[field] ?? field.charAt(0).toUpperCase() + field.slice(1);
}

/** A quantity as go-cmp prints a resource.Quantity. */
function quantityText(text: string): string {
  const match = /^(\d*)\.?(\d*)([a-zA-Z]*)$/.exec(text) ?? ['', text, '', ''];
  const [, whole = '', fraction = '', suffix = ''] = match;
  const decimal: Readonly<Record<string, number>> = { m: -3, '': 0, k: 3, M: 6, G: 9, T: 12 };
  const binary = suffix.endsWith('i');
  const scale = (decimal[suffix] ?? 0) - fraction.length;
  const value = binary
    ? Math.round(Number(`${whole}.${fraction || '0'}`) * 1024 ** ('KMGTPE'.indexOf(suffix[0] ?? '') + 1))
    : Number(`${whole}${fraction}`);
  const format = binary ? 'BinarySI' : 'DecimalSI';
  return `{i: resource.int64Amount{value: ${value}, scale: ${binary ? 0 : scale}}, s: ${JSON.stringify(text)}, Format: "${format}"}`;
}

/** A value on one line, as go-cmp prints a leaf or a whole changed node. */
function valueText(value: unknown, field: string): string {
  if (value === undefined || value === null) return 'nil';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value !== 'object') return String(value);
  const type = typeOf[field] ?? '';
  if (Array.isArray(value)) return `${type || '[]any'}{${value.map((v) => valueText(v, '')).join(', ')}}`;
  const entries = Object.entries(value as Record<string, unknown>);
  if (type === 'core.ResourceList' || type.startsWith('map[')) {
    const items = entries.map(
      ([k, v]) =>
        `s${JSON.stringify(k)}: ${type === 'core.ResourceList' ? quantityText(String(v)) : valueText(v, '')}`,
    );
    return `${type}{${items.join(', ')}}`;
  }
  return `${type}{${entries.map(([k, v]) => `${goName(k)}: ${valueText(v, k)}`).join(', ')}}`;
}

/** The `-`/`+` lines of one map entry that differs (a removed or added one has one line). */
function mapEntryLines(a: unknown, b: unknown, indent: string, key: string, type: string): string[] {
  const show = (v: unknown) => (type === 'core.ResourceList' ? quantityText(String(v)) : valueText(v, ''));
  const label = `s${JSON.stringify(key)}: `;
  return [
    ...(a === undefined ? [] : [`- ${indent}${label}${show(a)},`]),
    ...(b === undefined ? [] : [`+ ${indent}${label}${show(b)},`]),
  ];
}

/** The lines of the difference between `a` and `b` at `depth`, for a field named `field`. */
function diffLines(a: unknown, b: unknown, depth: number, label: string, field: string): string[] {
  const indent = '\t'.repeat(depth);
  const head = label === '' ? '' : `${label}: `;
  const objects = asRecord(a) && asRecord(b);
  const lists = Array.isArray(a) && Array.isArray(b) && a.length === b.length;
  if (!objects && !lists) {
    return [`- ${indent}${head}${valueText(a, field)},`, `+ ${indent}${head}${valueText(b, field)},`];
  }
  const keys = lists
    ? (a as unknown[]).map((_, i) => String(i))
    : [...new Set([...Object.keys(a as object), ...Object.keys(b as object)])];
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const type = typeOf[field] ?? (lists ? '[]any' : '');
  const map = type === 'core.ResourceList' || type.startsWith('map[');
  const lines = [`  ${indent}${head}${type}{`];
  const noun = lists ? 'element' : map ? 'entry' : 'field';
  let same = 0;
  const flush = () => {
    const name = same === 1 ? noun : noun === 'entry' ? 'entries' : `${noun}s`;
    if (same > 0) lines.push(`  ${indent}\t... // ${same} identical ${name}`);
    same = 0;
  };
  for (const key of keys) {
    if (jsonEqual(left[key], right[key])) {
      same += 1;
      continue;
    }
    flush();
    if (map) lines.push(...mapEntryLines(left[key], right[key], `${indent}\t`, key, type));
    else
      lines.push(...diffLines(left[key], right[key], depth + 1, lists ? '' : goName(key), lists ? '' : key));
  }
  flush();
  lines.push(`  ${indent}}${depth === 0 ? '' : ','}`);
  return lines;
}

/** cmp.Diff(old, next) of two pod specs, as go-cmp lays it out. */
export function podSpecDiff(old: unknown, next: unknown): string {
  const lines = diffLines(old, next, 0, '', '');
  lines[0] = `  core.PodSpec{`;
  return `${lines.join('\n')}\n`;
}
