/**
 * The figures of test/bench/node-ready.ts, from what its cluster worker measured: gate latencies per
 * released node, and the reconciler's API requests during the joins, those of the gate apart.
 */
import type { JoinedNodeGate, RequestCount } from './node-ready-cluster.ts';

/** Goals printed beside the figures (not asserted: the machines are noisy). */
export const NODE_READY_GOALS = { oursP50Ms: 50, oursP99Ms: 250, gateRequestsPerNode: 3 } as const;

/** The reconcile function's requests, as `requestsBetween` keys them (user agent everynode/reconcile). */
const RECONCILE = 'reconcile ';

/** How the run was set up, for the report's first lines. */
export interface NodeReadySetup {
  readonly nodes: number;
  readonly daemonSets: number;
  readonly gating: number;
  readonly joins: number;
  readonly intervalMs: number;
  readonly setupSeconds: number;
}

/** The nearest-rank percentile `p` of ascending `sorted`; NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** The request counts of `after` less those of `before`, keyed `agent verb resource[/sub]`. */
export function requestsBetween(
  before: readonly RequestCount[],
  after: readonly RequestCount[],
): Map<string, number> {
  const keyOf = (e: RequestCount) =>
    `${e.userAgent.slice('everynode/'.length)} ${e.verb} ${e.resource}${e.subresource ? `/${e.subresource}` : ''}`;
  const earlier = new Map(before.map((e) => [keyOf(e), e.count]));
  const delta = new Map<string, number>();
  for (const e of after) {
    const count = e.count - (earlier.get(keyOf(e)) ?? 0);
    if (count > 0) delta.set(keyOf(e), count);
  }
  return delta;
}

const ms = (value: number) => `${value.toFixed(0)} ms`;
const verdict = (value: number, goal: number) => (value <= goal ? 'met' : 'MISSED');

/** p50, p99, min and max of `samples` (ms); `goals` adds a verdict to p50 and p99. */
function spread(samples: readonly number[], goals?: { p50: number; p99: number }): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const [p50, p99] = [percentile(sorted, 50), percentile(sorted, 99)];
  const goal = (value: number, limit: number | undefined) =>
    limit === undefined ? '' : ` (goal ≤ ${limit} ms: ${verdict(value, limit)})`;
  return (
    `p50 ${ms(p50)}${goal(p50, goals?.p50)}, p99 ${ms(p99)}${goal(p99, goals?.p99)}, ` +
    `min ${ms(sorted[0] ?? Number.NaN)}, max ${ms(sorted.at(-1) ?? Number.NaN)} (n = ${sorted.length})`
  );
}

/** The last gating pod on the node to turn Ready, and when; undefined until all `gating` did. */
function lastGatingReady(
  node: Readonly<JoinedNodeGate>,
  gating: number,
): { daemonSet: string; at: number } | undefined {
  const entries = Object.entries(node.gatingReadyAt);
  if (entries.length < gating) return undefined;
  const [daemonSet, at] = entries.reduce((last, entry) => (entry[1] > last[1] ? entry : last));
  return { daemonSet, at };
}

/** The latency lines: whole, ours (and its relay share), and the part before ours. */
function latencyLines(
  setup: Readonly<NodeReadySetup>,
  joined: readonly JoinedNodeGate[],
  readyPublished: ReadonlyMap<string, number>,
): string[] {
  const released = joined.filter((n) => n.liftedAt !== undefined);
  const whole = released.map((n) => (n.liftedAt ?? 0) - n.createdAt);
  const ours: number[] = [];
  const before: number[] = [];
  const relay: number[] = [];
  const after: number[] = [];
  for (const n of released) {
    const ready = lastGatingReady(n, setup.gating);
    if (ready === undefined) continue;
    const lifted = n.liftedAt ?? 0;
    ours.push(lifted - ready.at);
    before.push(ready.at - n.createdAt);
    const published = readyPublished.get(`${n.name}/${ready.daemonSet}`);
    if (published === undefined) continue;
    relay.push(published - ready.at);
    after.push(lifted - published);
  }
  const never = joined.filter((n) => n.liftedAt === undefined).map((n) => n.name);
  const goals = { p50: NODE_READY_GOALS.oursP50Ms, p99: NODE_READY_GOALS.oursP99Ms };
  return [
    `  released: ${released.length} of ${joined.length} joined nodes; never released: ${never.length === 0 ? 'none' : never.join(', ')}`,
    `  node created → gate lifted (taint gone): ${spread(whole)}`,
    `  ours, last gating pod Ready → taint removed: ${spread(ours, goals)}`,
    `    of which Ready → the relay published its trigger: ${spread(relay)}`,
    `    and published → taint removed (bus, ingress, router, work FIFO, node step): ${spread(after)}`,
    `  before ours, node created → last gating pod Ready (pod creates, scheduling, kubelet): ${spread(before)}`,
  ];
}

/** The request lines: the gate's per released node, all of the reconciler's per joined node. */
function requestLines(
  setup: Readonly<NodeReadySetup>,
  joined: readonly JoinedNodeGate[],
  requests: ReadonlyMap<string, number>,
): string[] {
  const released = joined.filter((n) => n.liftedAt !== undefined).length;
  const count = (key: string) => requests.get(`${RECONCILE}${key}`) ?? 0;
  const nodeEvents = new Map<string, number>();
  for (const n of joined)
    for (const [reason, c] of Object.entries(n.nodeEvents))
      nodeEvents.set(reason, (nodeEvents.get(reason) ?? 0) + c);
  const eventCount = [...nodeEvents.values()].reduce((a, b) => a + b, 0);
  const gate = {
    'patch nodes': count('patch nodes'),
    'patch nodes/status': count('patch nodes/status'),
    'get nodes': count('get nodes'),
    'Node Events': eventCount,
  };
  const gateTotal = Object.values(gate).reduce((a, b) => a + b, 0);
  const perNode = released === 0 ? Number.NaN : gateTotal / released;
  const per = (value: number) => (released === 0 ? 'n/a' : (value / released).toFixed(2));
  const reconcile = [...requests.entries()].filter(([key]) => key.startsWith(RECONCILE));
  const reconcileTotal = reconcile.reduce((sum, [, c]) => sum + c, 0);
  const byReason = [...nodeEvents.entries()].map(([reason, c]) => `${reason} ${c}`).join(', ');
  return [
    `  gate API requests per released node: ${perNode.toFixed(2)} (goal ≤ ${NODE_READY_GOALS.gateRequestsPerNode}: ${verdict(perNode, NODE_READY_GOALS.gateRequestsPerNode)}) = ` +
      Object.entries(gate)
        .map(([what, c]) => `${what} ${per(c)}`)
        .join(' + ') +
      ` (totals ${Object.entries(gate)
        .map(([what, c]) => `${what} ${c}`)
        .join(', ')}; Node Events by reason: ${byReason || 'none'})`,
    `  reconcile API requests per joined node: ${(reconcileTotal / setup.joins).toFixed(2)} (${reconcileTotal} in all, the gate's included) = ` +
      reconcile
        .sort((a, b) => b[1] - a[1])
        .map(([key, c]) => `${key.slice(RECONCILE.length)} ${c}`)
        .join(', '),
  ];
}

/** The whole report of one run. */
export function nodeReadyReport(
  setup: Readonly<NodeReadySetup>,
  joined: readonly JoinedNodeGate[],
  requests: ReadonlyMap<string, number>,
  readyPublished: ReadonlyMap<string, number>,
): string {
  const others = [...requests.entries()]
    .filter(([key]) => !key.startsWith(RECONCILE))
    .sort((a, b) => b[1] - a[1])
    .map(([key, c]) => `${key}: ${c}`)
    .join(', ');
  return [
    `node-ready: ${setup.nodes} nodes, ${setup.daemonSets} DaemonSets (everynode.dev/v1), ${setup.gating} of them gating ` +
      `(BootstrapOnly, taint everynode.dev/not-ready:NoSchedule), ${setup.joins} joins every ${setup.intervalMs} ms ` +
      'registered with the gate taint, through relay → bus + journal → ingress → router → work FIFO → reconcile',
    `  setup: ${setup.nodes * setup.daemonSets} daemon pods ready and the pipeline idle in ${setup.setupSeconds.toFixed(1)} s`,
    ...latencyLines(setup, joined, readyPublished),
    ...requestLines(setup, joined, requests),
    `  other everynode API requests during the joins: ${others || 'none'}`,
    '  assumptions: times are the moments the API server (simulated, in its own thread) committed each change:',
    "    a gating pod's Ready=True (its kubelet's status write; the relay can see it no earlier), the node's",
    '    creation and its first version without the taint; Ready lastTransitionTime has whole-second resolution,',
    "    so the commit is used instead. 'Published' is when the relay handed the readiness trigger to the bus.",
    '    Kubelet: Running 1 s after binding, Ready 1 s later (the simulated defaults, as in node-join-e2e).',
    '    Requests are counted by the API server per user agent, from before the first join until the pipeline is',
    "    idle after the last release; GETs of nodes are all of the reconciler's in that window, Node Events those",
    "    everynode created on the joined nodes (the counters' `create events` also holds the pods' Events).",
    ...(joined.length <= 100 ? ['    With 100 samples or fewer, p99 (nearest rank) is the largest.'] : []),
  ].join('\n');
}
