/**
 * Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource) as far as pod resources
 * need them: reading `500m`, `1.5`, `128Mi`, `1e3` into a number, and writing CPU in millicores and
 * memory in bytes back the way a Quantity made by NewMilliQuantity (DecimalSI) or NewQuantity
 * (BinarySI) prints.
 */

/** Decimal suffixes by power of ten; binary ones (`Ki`…`Ei`) are powers of 1024. */
const decimalExponents: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};

function suffixFactor(suffix: string): number | undefined {
  const binary = suffix.length === 2 && suffix.endsWith('i') ? 'KMGTPE'.indexOf(suffix.charAt(0)) : -1;
  if (binary >= 0) return 1024 ** (binary + 1);
  const exponent = decimalExponents[suffix];
  return exponent === undefined ? undefined : 10 ** exponent;
}

/** The number a quantity stands for (`500m` is 0.5), or undefined when it is not one. */
export function parseQuantity(quantity: unknown): number | undefined {
  if (typeof quantity === 'number') return quantity;
  if (typeof quantity !== 'string') return undefined;
  const match = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:[eE]([+-]?\d+)|([a-zA-Z]*))$/.exec(quantity.trim());
  if (!match) return undefined;
  const base = Number(match[1]);
  if (match[2] !== undefined) return base * 10 ** Number(match[2]);
  const factor = suffixFactor(match[3] ?? '');
  return factor === undefined ? undefined : base * factor;
}

/** Compares two quantities as Quantity.Cmp does: -1, 0 or 1 (unreadable ones count as 0). */
export function compareQuantities(a: unknown, b: unknown): number {
  const x = parseQuantity(a) ?? 0;
  const y = parseQuantity(b) ?? 0;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A CPU quantity in millicores, rounded up (Quantity.MilliValue). */
export function milliValue(quantity: unknown): number {
  return Math.ceil(Math.round((parseQuantity(quantity) ?? 0) * 1e6) / 1e3);
}

/** A quantity in whole units, rounded up (Quantity.Value): bytes for memory. */
export function wholeValue(quantity: unknown): number {
  return Math.ceil(Math.round((parseQuantity(quantity) ?? 0) * 1e3) / 1e3);
}

/** Millicores as resource.NewMilliQuantity(m, DecimalSI) prints them: `250m`, `2`. */
export function formatMilli(milli: number): string {
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}

/** Bytes as resource.NewQuantity(b, BinarySI) prints them: the largest exact binary suffix. */
export function formatBinary(bytes: number): string {
  const units = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && value % 1024 === 0 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value}${units[unit]}`;
}
