/**
 * Exact Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource quantity.go): parsed
 * into an exact fraction of BigInts, so `0.5%` of 1,031,864,320 KiB rounds the way arithmetic says
 * and not the way a double does, and printed back in the canonical form the API server prints
 * (Quantity.CanonicalizeBytes): `150m`, `2`, `1536Mi`, `4Gi`, `128M`.
 */

/** The suffix family a quantity was written in, which its canonical form keeps (upstream Format). */
export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/** An exact, non-negative amount `num / den` and the format it prints in. */
export interface Quantity {
  readonly num: bigint;
  readonly den: bigint;
  readonly format: QuantityFormat;
}

/** The decimal suffixes from nano to exa, one per power of 1000 (`''` the unit). */
const DECIMAL_SUFFIXES = ['n', 'u', 'm', '', 'k', 'M', 'G', 'T', 'P', 'E'];
const DECIMAL_EXPONENTS: Readonly<Record<string, number>> = Object.fromEntries(
  DECIMAL_SUFFIXES.map((suffix, i) => [suffix, 3 * i - 9]),
);
const BINARY_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const DECIMAL_SUFFIX_OF: Readonly<Record<number, string>> = Object.fromEntries(
  DECIMAL_SUFFIXES.map((suffix, i) => [3 * i - 9, suffix]),
);

/** The upstream quantity grammar: a signed number, then a binary, decimal or exponent suffix. */
const QUANTITY = /^([+-]?)(\d+\.?\d*|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]?|[eE][+-]?\d+)$/;

function gcd(a: bigint, b: bigint): bigint {
  let [x, y] = [a < 0n ? -a : a, b];
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

/** `num / den` in lowest terms, in `format`. */
export function quantity(num: bigint, den: bigint, format: QuantityFormat): Quantity {
  const divisor = gcd(num, den) || 1n;
  return { num: num / divisor, den: den / divisor, format };
}

/** A decimal number's digits as a fraction: `1.25` is 125/100. */
function decimalFraction(digits: string): { num: bigint; den: bigint } {
  const [whole = '', fraction = ''] = digits.split('.');
  return { num: BigInt(`${whole}${fraction}` || '0'), den: 10n ** BigInt(fraction.length) };
}

/**
 * `text` read as a quantity (upstream ParseQuantity), or undefined when it is not one or is
 * negative (no resource request may be). A JSON number counts as its decimal text.
 */
export function parseQuantity(text: unknown): Quantity | undefined {
  const raw = typeof text === 'number' && Number.isFinite(text) ? String(text) : text;
  if (typeof raw !== 'string') return undefined;
  const match = QUANTITY.exec(raw);
  if (!match) return undefined;
  const [, sign = '', digits = '', suffix = ''] = match;
  const { num, den } = decimalFraction(digits);
  if (sign === '-' && num !== 0n) return undefined;
  const binary = BINARY_SUFFIXES.indexOf(suffix);
  if (suffix !== '' && binary > 0) return quantity(num * 1024n ** BigInt(binary), den, 'BinarySI');
  const exponentForm = /^[eE]/.test(suffix);
  const exponent = exponentForm ? Number(suffix.slice(1)) : (DECIMAL_EXPONENTS[suffix] ?? 0);
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 1000) return undefined;
  const scale = 10n ** BigInt(Math.abs(exponent));
  const format: QuantityFormat = exponentForm ? 'DecimalExponent' : 'DecimalSI';
  return exponent >= 0 ? quantity(num * scale, den, format) : quantity(num, den * scale, format);
}

/** `p%` as an exact fraction (`0.5%` is 1/200), or undefined when it is not a percent. */
export function parsePercent(text: unknown): { num: bigint; den: bigint } | undefined {
  if (typeof text !== 'string') return undefined;
  const match = /^(\d+\.?\d*|\.\d+)%$/.exec(text);
  if (!match) return undefined;
  const { num, den } = decimalFraction(match[1] ?? '');
  const divisor = gcd(num, den * 100n) || 1n;
  return { num: num / divisor, den: (den * 100n) / divisor };
}

/** -1, 0 or 1 as `a` is less than, equal to or more than `b` (upstream Quantity.Cmp). */
export function compareQuantities(a: Readonly<Quantity>, b: Readonly<Quantity>): number {
  const [x, y] = [a.num * b.den, b.num * a.den];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The smallest multiple of `step` (an exact amount) not below `amount`, as a count of steps. */
export function stepsRoundedUp(amount: Readonly<{ num: bigint; den: bigint }>, step: bigint): bigint {
  const den = amount.den * step;
  return (amount.num + den - 1n) / den;
}

/** The decimal canonical form: the integer mantissa with the largest exponent a multiple of 3. */
function decimalText(q: Readonly<Quantity>): string {
  // Nano units, rounded up as upstream rounds anything finer than its smallest scale.
  let nanos = stepsRoundedUp({ num: q.num * 10n ** 9n, den: q.den }, 1n);
  let exponent = -9;
  while (nanos % 1000n === 0n && exponent < 18) {
    nanos /= 1000n;
    exponent += 3;
  }
  if (q.format === 'DecimalExponent') return exponent === 0 ? `${nanos}` : `${nanos}e${exponent}`;
  return `${nanos}${DECIMAL_SUFFIX_OF[exponent] ?? ''}`;
}

/**
 * `q` as the API server prints it (upstream CanonicalizeBytes): zero as `0`; a binary quantity that
 * is a whole number of at least 1024 with the largest binary suffix that keeps it whole; anything
 * else with the largest decimal suffix that keeps the mantissa whole.
 */
export function formatQuantity(q: Readonly<Quantity>): string {
  if (q.num === 0n) return '0';
  if (q.format === 'BinarySI' && q.den === 1n && q.num >= 1024n) {
    let value = q.num;
    let unit = 0;
    while (value % 1024n === 0n && unit < BINARY_SUFFIXES.length - 1) {
      value /= 1024n;
      unit += 1;
    }
    return `${value}${BINARY_SUFFIXES[unit]}`;
  }
  return decimalText({ ...q, format: q.format === 'BinarySI' ? 'DecimalSI' : q.format });
}
