/**
 * The watch loop of `everynode run`: looks at the managed DaemonSets, the queues and the counters
 * every so often, shows them (live view on a terminal, changed rows as lines otherwise), and decides
 * when `--exit-when-converged` may exit.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { LocalPipeline } from '../local/local-pipeline.ts';
import { inPlaceMetrics } from '../reconcile/effects/in-place-update-metrics.ts';
import type { CliIo } from './cli-args.ts';
import {
  type DaemonSetRow,
  daemonSetRow,
  isConverged,
  renderView,
  summaryLine,
  type ViewSnapshot,
} from './live-view.ts';

/** Options of {@link monitorPipeline}. */
export interface MonitorOptions {
  readonly pipeline: LocalPipeline;
  readonly io: CliIo;
  /** Stop (resolve `converged`) once converged twice in a row. */
  readonly exitWhenConverged: boolean;
  /** Give up (resolve `timeout`) after this long, when exiting on convergence. */
  readonly timeoutMs: number;
  /** Ends the loop (resolve `stopped`). */
  readonly signal: AbortSignal;
  /** The last warnings, shown under the live view. */
  readonly recent: () => readonly string[];
  /** Called when a look failed (the cluster or a queue did not answer); the loop goes on. */
  readonly onError: (error: unknown) => void;
  readonly intervalMs?: number;
}

/** How the loop ended. */
export type MonitorEnd = 'stopped' | 'converged' | 'timeout';

async function snapshot(
  pipeline: LocalPipeline,
  recent: readonly string[],
  rate: number,
): Promise<ViewSnapshot> {
  // From the watch cache: a view a moment behind is fine.
  const [list, depths] = await Promise.all([
    pipeline.kube.listDaemonSets({ allowStale: true }),
    pipeline.queueDepths(),
  ]);
  const daemonSets = list.items
    .map(daemonSetRow)
    .sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
  return {
    daemonSets,
    depths,
    triggersPerSecond: rate,
    triggers: pipeline.bus.published,
    podsCreated: pipeline.counters.get('PodsCreated'),
    podsDeleted: pipeline.counters.get('PodsDeleted'),
    inPlace: {
      updated: pipeline.counters.get(inPlaceMetrics.updatedInPlace),
      resized: pipeline.counters.get(inPlaceMetrics.resizedInPlace),
      infeasible: pipeline.counters.get(inPlaceMetrics.resizeFallbacksInfeasible),
      deferred: pipeline.counters.get(inPlaceMetrics.resizeFallbacksDeferred),
    },
    recent,
  };
}

function rowLine(row: Readonly<DaemonSetRow>): string {
  return (
    `${row.namespace}/${row.name} desired=${row.desired} current=${row.current} ready=${row.ready}` +
    ` up-to-date=${row.upToDate} available=${row.available}`
  );
}

/** Prints what changed since the last look, as plain lines. */
class PlainOutput {
  private rows = new Map<string, string>();
  private summary = '';
  private summaryAt = 0;

  constructor(private readonly io: CliIo) {}

  show(s: Readonly<ViewSnapshot>): void {
    const time = new Date().toISOString().slice(11, 23);
    for (const row of s.daemonSets) {
      const key = `${row.namespace}/${row.name}`;
      const line = rowLine(row);
      if (this.rows.get(key) !== line) this.io.stdout(`${time} daemonset ${line}\n`);
      this.rows.set(key, line);
    }
    const summary = summaryLine({ ...s, triggersPerSecond: 0 });
    if (summary !== this.summary && Date.now() - this.summaryAt >= 5_000) {
      this.io.stdout(`${time} ${summaryLine(s)}\n`);
      this.summary = summary;
      this.summaryAt = Date.now();
    }
  }
}

/** Redraws the view in place (ANSI: up to the view's first line, clear to the end). */
class LiveOutput {
  private drawn = 0;

  constructor(private readonly io: CliIo) {}

  show(s: Readonly<ViewSnapshot>): void {
    const lines = renderView(s);
    const up = this.drawn > 0 ? `\x1b[${this.drawn}F` : '';
    this.io.stdout(`${up}\x1b[J${lines.join('\n')}\n`);
    this.drawn = lines.length;
  }
}

/** Runs the loop until stopped, converged (when asked) or timed out; resolves with why it ended. */
export async function monitorPipeline(options: Readonly<MonitorOptions>): Promise<MonitorEnd> {
  const output = options.io.isTTY ? new LiveOutput(options.io) : new PlainOutput(options.io);
  const started = Date.now();
  let convergedLooks = 0;
  let last = { at: started, published: options.pipeline.bus.published };
  while (!options.signal.aborted) {
    const now = Date.now();
    const rate = ((options.pipeline.bus.published - last.published) * 1000) / Math.max(1, now - last.at);
    last = { at: now, published: options.pipeline.bus.published };
    const view = await snapshot(options.pipeline, options.recent(), rate).catch((error: unknown) => {
      options.onError(error);
      return undefined;
    });
    if (view) output.show(view);
    convergedLooks = view && isConverged(view.daemonSets, view.depths) ? convergedLooks + 1 : 0;
    if (options.exitWhenConverged && convergedLooks >= 2) return 'converged';
    if (options.exitWhenConverged && now - started > options.timeoutMs) return 'timeout';
    await sleep(options.intervalMs ?? 1_000, undefined, { signal: options.signal }).catch(() => undefined);
  }
  return 'stopped';
}
