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

/** client-go's words for a `--request-timeout` it cannot read (clientcmd.ParseTimeout). */
export const INVALID_REQUEST_TIMEOUT =
  'Invalid timeout value. Timeout must be a single integer in seconds, or an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h)';

/**
 * `--request-timeout` in milliseconds as client-go's clientcmd.ParseTimeout reads it: a whole
 * number of seconds (0 or more), else a Go duration; undefined when it is neither. '' is 0 (none).
 */
export function parseRequestTimeout(text: string): number | undefined {
  if (text === '') return 0;
  if (/^[+-]?\d+$/.test(text) && Number(text) >= 0) return Number(text) * 1000;
  const parsed = parseGoDuration(text);
  return 'error' in parsed ? undefined : parsed.ms;
}

/** `ms` as Go's Duration.String writes it (`5s`, `1.5s`, `1m30s`, `1h0m0s`, `500ms`): client-go's `timeout` parameter. */
export function goDurationString(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  if (abs < 1000) return `${sign}${Number(abs.toFixed(6))}ms`;
  const hours = Math.floor(abs / 3_600_000);
  const minutes = Math.floor((abs % 3_600_000) / 60_000);
  const seconds = Number(((abs % 60_000) / 1000).toFixed(9));
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}
