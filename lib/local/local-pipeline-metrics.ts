/**
 * The local pipeline's metrics: what the functions publish as CloudWatch EMF, kept in memory for the
 * live view and the logs of `everynode run`.
 */
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { MetricUnit } from '@aws-lambda-powertools/metrics/types';
import type { RouterCounters } from '../router/router-deps.ts';

/** Counters by name, with a way to measure rates between two looks. */
export class LocalCounters implements RouterCounters {
  private readonly values = new Map<string, number>();

  /** Adds `value` (default 1) to `name`. */
  count(name: string, value = 1): void {
    if (value === 0) return;
    this.values.set(name, (this.values.get(name) ?? 0) + value);
  }

  /** The counter `name` (0 when never counted). */
  get(name: string): number {
    return this.values.get(name) ?? 0;
  }

  /** Every counter, by name. */
  snapshot(): Record<string, number> {
    return Object.fromEntries(this.values);
  }
}

/**
 * A Powertools Metrics whose metrics go to `counters` instead of stdout (counts are summed, other
 * units — latencies — are summed too and can be divided by a count), so the reconcile handler's
 * `logMetrics` middleware runs unchanged locally and prints nothing.
 */
export class LocalMetrics extends Metrics {
  constructor(
    private readonly counters: LocalCounters,
    serviceName: string,
  ) {
    super({ namespace: 'everynode', serviceName });
  }

  override addMetric(name: string, _unit: MetricUnit, value: number): this {
    this.counters.count(name, value);
    return this;
  }

  override captureColdStartMetric(): void {}

  override publishStoredMetrics(): this {
    return this;
  }
}
