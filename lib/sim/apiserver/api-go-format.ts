/**
 * JSON values printed the way Go's fmt `%v` prints what k8s.io/apimachinery/pkg/util/json decodes
 * (maps with sorted keys as `map[k:v]`, slices as `[a b]`, nil as `<nil>`, integers kept as
 * integers), because some apiserver messages embed such values, like the `patch` Invalid value of
 * a strategic merge patch refused under fieldValidation=Strict (fmt.Sprintf("%+v", patchMap)).
 */

/** A float as `%v` prints a float64: shortest digits, exponent below 1e-4 or from 1e21 on. */
function goFloat(n: number): string {
  const abs = Math.abs(n);
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e21)) {
    const [mantissa = '', exponent = '0'] = n.toExponential().split('e');
    const sign = exponent.startsWith('-') ? '-' : '+';
    const digits = exponent.replace(/^[-+]/, '').padStart(2, '0');
    return `${mantissa}e${sign}${digits}`;
  }
  return String(n);
}

/** `value` as Go's `%v` prints its decoded form. */
export function goValueString(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : goFloat(value);
  if (typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return `[${value.map(goValueString).join(' ')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  return `map[${keys.map((k) => `${k}:${goValueString(record[k])}`).join(' ')}]`;
}
