/**
 * From the intervals in which relay runs watched, the model's figures: unwatched gaps (split by
 * whether an injected failure explains them), the longest gap, and time watched twice.
 */

/** A time in which no run watched. */
export interface Gap {
  readonly from: number;
  readonly to: number;
  /** An injected failure (crash, API outage) lies in the gap or within one run's timeout before it. */
  readonly injected: boolean;
}

/** What the watched intervals add up to, in milliseconds, over [measuredFrom, measuredTo]. */
export interface Coverage {
  readonly measuredFrom: number;
  readonly measuredTo: number;
  readonly gaps: readonly Gap[];
  readonly unwatchedMs: number;
  readonly unwatchedOutsideFailuresMs: number;
  readonly longestGapMs: number;
  readonly longestGapOutsideFailuresMs: number;
  readonly doubleWatchedMs: number;
}

/**
 * The coverage of `watched` intervals from the first moment watched to `end`. A gap counts as
 * caused by an injected failure when one of `failures` ([from, to], a crash being a point)
 * intersects [gap start − `attributionMs`, gap end]: with `attributionMs` the function timeout,
 * the crash of any run that should have covered the gap falls in that window. (The rule can charge
 * an ordinary gap to a nearby crash; it never charges a failure's gap to the design.)
 */
export function analyseCoverage(
  watched: readonly (readonly [number, number])[],
  failures: readonly (readonly [number, number])[],
  end: number,
  attributionMs: number,
): Coverage {
  const points: [number, number][] = [];
  for (const [from, to] of watched) {
    const until = Math.min(to, end);
    if (until <= from) continue;
    points.push([from, 1], [until, -1]);
  }
  // Starts before ends at the same moment: a run starting as another stops leaves no gap.
  points.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const measuredFrom = points[0]?.[0] ?? end;
  const gaps: Gap[] = [];
  let depth = 0;
  let last = measuredFrom;
  let doubleWatchedMs = 0;
  const gap = (from: number, to: number) => {
    if (to <= from) return;
    const injected = failures.some(([f, t]) => f <= to && t >= from - attributionMs);
    gaps.push({ from, to, injected });
  };
  for (const [at, step] of points) {
    if (depth === 0) gap(last, at);
    if (depth >= 2) doubleWatchedMs += at - last;
    depth += step;
    last = at;
  }
  if (depth === 0) gap(last, end);
  let unwatchedMs = 0;
  let unwatchedOutsideFailuresMs = 0;
  let longestGapMs = 0;
  let longestGapOutsideFailuresMs = 0;
  for (const { from, to, injected } of gaps) {
    unwatchedMs += to - from;
    longestGapMs = Math.max(longestGapMs, to - from);
    if (injected) continue;
    unwatchedOutsideFailuresMs += to - from;
    longestGapOutsideFailuresMs = Math.max(longestGapOutsideFailuresMs, to - from);
  }
  return {
    measuredFrom,
    measuredTo: end,
    gaps,
    unwatchedMs,
    unwatchedOutsideFailuresMs,
    longestGapMs,
    longestGapOutsideFailuresMs,
    doubleWatchedMs,
  };
}
