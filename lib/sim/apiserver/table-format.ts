/**
 * Cell formats of kubectl tables, ported from k8s.io/apimachinery/pkg/util/duration (HumanDuration),
 * pkg/printers/internalversion/printers.go (translateTimestampSince) and apimachinery labels /
 * metav1.FormatLabelSelector.
 */

const minute = 60;
const hour = 60 * minute;

function withRemainder(whole: number, unit: string, rest: number, restUnit: string): string {
  return rest === 0 ? `${whole}${unit}` : `${whole}${unit}${rest}${restUnit}`;
}

/**
 * A duration as kubectl prints ages (duration.HumanDuration): seconds below 2 minutes, minutes
 * and seconds below 10 minutes, minutes below 3 hours, hours and minutes below 8 hours, hours below
 * 2 days, days and hours below 8 days, days below 2 years, then years and days, then years.
 */
export function humanDuration(milliseconds: number): string {
  const seconds = Math.trunc(milliseconds / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 2 * minute) return `${seconds}s`;
  const minutes = Math.trunc(seconds / minute);
  if (minutes < 10) return withRemainder(minutes, 'm', seconds % minute, 's');
  if (minutes < 3 * 60) return `${minutes}m`;
  const hours = Math.trunc(seconds / hour);
  if (hours < 8) return withRemainder(hours, 'h', minutes % 60, 'm');
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) return withRemainder(days, 'd', hours % 24, 'h');
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) return withRemainder(years, 'y', days % 365, 'd');
  return `${years}y`;
}

/** The AGE cell for `timestamp` at `now`: `<unknown>` when unset (translateTimestampSince). */
export function ageSince(timestamp: unknown, now: Readonly<Date>): string {
  if (timestamp === undefined || timestamp === null || timestamp === '') return '<unknown>';
  const at = timestamp instanceof Date ? timestamp.getTime() : Date.parse(String(timestamp));
  if (Number.isNaN(at)) return '<unknown>';
  return humanDuration(now.getTime() - at);
}

/** `k=v` pairs sorted by key and joined by commas, or `<none>` (labels.FormatLabels). */
export function formatLabels(labels: Readonly<Record<string, string>> | undefined): string {
  const keys = Object.keys(labels ?? {}).sort();
  if (keys.length === 0 || !labels) return '<none>';
  return keys.map((key) => `${key}=${labels[key]}`).join(',');
}

/** A label selector as written in the API. */
export interface LabelSelectorLike {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

function requirementText(key: string, operator: string, values: readonly string[]): string {
  const list = `(${[...values].sort().join(',')})`;
  switch (operator) {
    case 'In':
      return `${key} in ${list}`;
    case 'NotIn':
      return `${key} notin ${list}`;
    case 'Exists':
      return key;
    case 'DoesNotExist':
      return `!${key}`;
    default:
      return '<error>';
  }
}

/**
 * A label selector as kubectl prints it (metav1.FormatLabelSelector): requirements sorted by key,
 * `k=v` for matchLabels, `k in (a,b)`, `k notin (a)`, `k`, `!k`; `<none>` when it selects everything.
 */
export function formatLabelSelector(selector: Readonly<LabelSelectorLike> | undefined): string {
  const requirements: { key: string; text: string }[] = [];
  for (const [key, value] of Object.entries(selector?.matchLabels ?? {})) {
    requirements.push({ key, text: `${key}=${value}` });
  }
  for (const expression of selector?.matchExpressions ?? []) {
    const text = requirementText(expression.key, expression.operator, expression.values ?? []);
    if (text === '<error>') return '<error>';
    requirements.push({ key: expression.key, text });
  }
  requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return requirements.length === 0 ? '<none>' : requirements.map((r) => r.text).join(',');
}
