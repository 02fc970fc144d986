/**
 * Durations as kubectl's `--timeout` takes them: Go's time.ParseDuration (`30s`, `2m`, `1h30m`,
 * `1.5s`, `500ms`, `0`), so a value that works with `kubectl rollout status` works here too.
 */

/** Milliseconds per unit, as Go's unitMap (ns and µs kept for parsing, they round to 0 ms). */
const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const TERM = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/;

/**
 * The duration `text` in milliseconds, or a message in Go's words (`time: invalid duration "x"`,
 * `time: missing unit in duration "30"`) when it is not one.
 */
export function parseGoDuration(text: string): { ms: number } | { error: string } {
  const quoted = JSON.stringify(text);
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return { ms: 0 };
  if (rest === '') return { error: `time: invalid duration ${quoted}` };
  let total = 0;
  while (rest !== '') {
    const number = /^(\d*)(?:\.(\d*))?/.exec(rest);
    const whole = number?.[1] ?? '';
    const fraction = number?.[2] ?? '';
    if (whole === '' && fraction === '') return { error: `time: invalid duration ${quoted}` };
    const match = TERM.exec(rest);
    if (!match) {
      const afterNumber = rest.slice(number?.[0].length ?? 0);
      const unit = /^[^\d.]*/.exec(afterNumber)?.[0] ?? '';
      return unit === ''
        ? { error: `time: missing unit in duration ${quoted}` }
        : { error: `time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}` };
    }
    const value = Number(`${whole || '0'}.${fraction || '0'}`);
    total += value * (UNIT_MS[match[3] ?? 's'] ?? 0);
    rest = rest.slice(match[0].length);
  }
  return { ms: sign * total };
}
