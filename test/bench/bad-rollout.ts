/**
 * `npm run bench -- bad-rollout [--nodes 5000] [--image crashloop|break-node|good]
 * [--on-failure Pause|Revert] [--pod-ready-seconds 30] [--node-ready-seconds 10]
 * [--max-failed-nodes 5] [--node-list-reuse-min-nodes N] [--log-level WARN] [--cpu-profile FILE]`:
 * a safe rollout (docs/design.md, 30. Rollouts that stop themselves) of an everynode.dev/v1
 * DaemonSet over N nodes in three zones (`topology.kubernetes.io/zone` = zone-a, zone-b, zone-c,
 * evenly, in name order), through the whole local pipeline, the reconciler allowed 100 requests/s.
 * The DaemonSet rolls with `maxUnavailable: 5%`, `topologyKey` the zone, `steps: [{nodes: 1%},
 * {nodes: 100%}]` and `health: {podReadySeconds: P, maxRestarts: 3, nodeReadySeconds: R,
 * maxFailedNodes, onFailure}`. It is first rolled out with a good image until its
 * `status.rollout.phase` is Complete; then its image changes to the chosen one, and the run is
 * measured until the halt (bad images, Pause; then 5 s more, for the updates in flight), until
 * every node runs the good revision again (Revert), or until the rollout completes (good).
 *
 * Everything is measured from the simulated cluster's own change feed (its store's subscription,
 * the source of its watches), in the main thread; the pipeline runs in a worker thread. Goals:
 * - bad images: nodes that had a pod of the new revision at any time up to the halt being written
 *   <= the first step's size; from the failure signal of each failed node in the halt's record
 *   (its node's Ready turning False for NodeNotReady, its pod's creationTimestamp + P for
 *   PodNotAvailable, its restart count passing maxRestarts for TooManyRestarts) to the halt
 *   (`status.rollout.haltedAt` written), p50 <= 1 s; nodes outside the first zone touched: 0.
 * - Revert: from the halt until every node runs an available pod of the good revision and no pod
 *   of the bad one is left, <= 1.10 x the rolling-update floor of the nodes it must put back.
 * - good: the whole rollout's time <= 1.10 x its floor (the rolling-update floor plus the first
 *   step's wait for its health windows; printed with its terms), and the reconciler's API
 *   requests per node.
 * A bad run that has not halted P + 90 s after the image change is reported so and ends: with
 * maxFailedNodes at or above the first step's size (5 at 500 nodes), a crash-looping canary never
 * breaks the rule, and its step, never complete, holds the rollout Progressing.
 */

import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { targetNodeName } from '../../lib/core/daemon-pod.ts';
import type { DaemonSet } from '../../lib/core/daemon-set.ts';
import { restartsOf } from '../../lib/core/safe-rollout/rollout-health.ts';
import { type RolloutRecord, rolloutRecordOf } from '../../lib/core/safe-rollout/rollout-record.ts';
import { daemonSetWindow } from '../../lib/messages/daemon-set-window.ts';
import { ROLLOUT_WINDOW_SECONDS } from '../../lib/messages/requeue-envelope.ts';
import type { KubeObject } from '../../lib/sim/storage/store.ts';
import {
  figure,
  isAvailablePod,
  LIMIT_QPS,
  type PipelineWorkerData,
  quantile,
  reconcileRequests,
  requestBreakdown,
  startBenchCluster,
  waitUntil,
} from './bench-cluster.ts';
import { trackRolloutPhases } from './rollout-phases.ts';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '5000' },
    image: { type: 'string', default: 'crashloop' },
    'on-failure': { type: 'string', default: 'Pause' },
    'pod-ready-seconds': { type: 'string', default: '30' },
    'node-ready-seconds': { type: 'string', default: '10' },
    'max-failed-nodes': { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '8' },
    'client-qps': { type: 'string', default: '100' },
    /** The fewest nodes from which DaemonSet steps plan on a kept node LIST (the pipeline's default: 2,000). */
    'node-list-reuse-min-nodes': { type: 'string' },
    /** The pipeline's log level (SILENT, ERROR, WARN, INFO, DEBUG), logged to stderr. */
    'log-level': { type: 'string', default: 'SILENT' },
    /** A CPU profile of the pipeline's thread from the image change to the end, into FILE. */
    'cpu-profile': { type: 'string' },
  },
});
const nodes = Number(values.nodes);
const variant = values.image;
const onFailure = values['on-failure'];
if (variant !== 'crashloop' && variant !== 'break-node' && variant !== 'good')
  throw new Error(`--image must be crashloop, break-node or good, got ${variant}`);
if (onFailure !== 'Pause' && onFailure !== 'Revert')
  throw new Error(`--on-failure must be Pause or Revert, got ${onFailure}`);
const bad = variant !== 'good';
/** podReadySeconds and nodeReadySeconds of the health rules. */
const P = Number(values['pod-ready-seconds']);
const R = Number(values['node-ready-seconds']);
const MAX_RESTARTS = 3;
const maxFailedText = values['max-failed-nodes'];
const maxFailedNodes: number | string = maxFailedText.endsWith('%') ? maxFailedText : Number(maxFailedText);

/** The simulator's timing (its defaults, stated so the floors can use them). */
const POD_START_S = 1;
const POD_READY_S = 1;
const BREAK_NODE_S = 3;
/** The pods' terminationGracePeriodSeconds: a deleted pod's containers stop at once. */
const GRACE_S = 0;
/** A node's cycle in a rolling update: old pod stopped (the grace period caps containerStopSeconds), new one started and ready. */
const CYCLE_S = GRACE_S + POD_START_S + POD_READY_S;
/** How long a Pause run goes on after the halt, for the updates in flight to land. */
const SETTLE_MS = 5_000;

const GOOD_IMAGE = 'busybox:1.36';
const NEW_IMAGE =
  variant === 'good'
    ? 'busybox:1.37'
    : variant === 'crashloop'
      ? 'everynode.dev/sim:crashloop'
      : 'everynode.dev/sim:break-node';
const ZONE_KEY = 'topology.kubernetes.io/zone';
const ZONES = ['zone-a', 'zone-b', 'zone-c'] as const;
const KIND_KEY = 'everynode.dev/daemonsets';

const maxUnavailable = Math.ceil((nodes * 5) / 100);
const firstStep = Math.ceil(nodes / 100);
const s = (ms: number) => (ms / 1000).toFixed(1);

const t0 = Date.now();
const say = (what: string) => console.log(`  [${s(Date.now() - t0)} s] ${what}`);
const cluster = await startBenchCluster(nodes, {
  podStartSeconds: POD_START_S,
  podReadySeconds: POD_READY_S,
  breakNodeSeconds: BREAK_NODE_S,
});
say('cluster started');

/** The nodes' zones: evenly, in name order. */
const zoneOf = new Map<string, string>();
const names = cluster.sim.nodes.names();
names.forEach((name, i) => {
  const zone = ZONES[Math.floor((i * ZONES.length) / names.length)] ?? 'zone-c';
  zoneOf.set(name, zone);
  cluster.sim.nodes.label(name, { [ZONE_KEY]: zone });
});
const zoneSizes = ZONES.map((zone) => names.filter((n) => zoneOf.get(n) === zone).length);

/** The pipeline over everynode.dev/v1, in the bench cluster's worker thread. */
async function startPipeline(): Promise<void> {
  const reuse = values['node-list-reuse-min-nodes'];
  await cluster.startPipeline({
    managedKind: 'everynode.dev/v1',
    clientQps: Number(values['client-qps']),
    reconcileConcurrency: Number(values.concurrency),
    logLevel: values['log-level'] as PipelineWorkerData['logLevel'],
    ...(reuse === undefined ? {} : { nodeListReuseMinNodes: Number(reuse) }),
    ...(values['cpu-profile'] ? { cpuProfile: values['cpu-profile'], profileFrom: 'message' } : {}),
  });
}
const pipelineBusy = (): number => cluster.pipelineBusy() ?? 0;
const stopPipeline = () => cluster.stopPipeline();

const stored = () => cluster.sim.store.get(KIND_KEY, 'default', 'agent') as unknown as DaemonSet;
const recordNow = (): RolloutRecord | undefined => rolloutRecordOf(stored());
const ms = (time: unknown): number | undefined => {
  if (time === undefined || time === null) return undefined;
  const value = new Date(time as string).getTime();
  return Number.isFinite(value) ? value : undefined;
};
const imageOf = (pod: Readonly<V1Pod>) => pod.spec?.containers[0]?.image;
const readyOf = (node: Readonly<V1Node> | undefined) =>
  node?.status?.conditions?.find((c) => c.type === 'Ready')?.status;

/**
 * What the cluster's change feed shows from the image change on: per node, its first pod of the
 * new revision, the restart count passing maxRestarts, Ready turning False or Unknown, its old
 * pod's deletion; the rollout record's moments; and the live pods of each revision.
 */
function track(startedAt: number, initialRevision: string) {
  const firstNewAt = new Map<string, number>();
  const newCreatedAt = new Map<string, number>();
  const restartsPassedAt = new Map<string, number>();
  const notReadyAt = new Map<string, number>();
  const oldDeletedAt = new Map<string, number>();
  /** Per node: its last pod of the new revision gone (DELETED); then, if it was broken, schedulable again. */
  const badGoneAt = new Map<string, number>();
  const recoveredAt = new Map<string, number>();
  /** Per node: its first pod of the good revision created after the halt. */
  const goodBackAt = new Map<string, number>();
  /** uid → node of live pods (not yet DELETED) of the new revision; of them, the available ones. */
  const liveNew = new Map<string, string>();
  const availableNew = new Map<string, string>();
  /** node → uids of its available pods of the good revision. */
  const availableGood = new Map<string, Set<string>>();
  for (const pod of cluster.sim.store.view('pods') as unknown as V1Pod[]) {
    const node = targetNodeName(pod);
    if (node !== undefined && imageOf(pod) === GOOD_IMAGE && isAvailablePod(pod))
      availableGood.set(node, (availableGood.get(node) ?? new Set()).add(pod.metadata?.uid ?? ''));
  }
  const at: {
    halt?: number;
    haltRecord?: RolloutRecord;
    badBeforeHalt?: number;
    inFlightAtHalt?: number;
    liveBadNodesAtHalt?: number;
    needGoodAtHalt?: number;
    reverted?: number;
    firstBadDeleted?: number;
    /** From the halt on: pods of each revision created and removed (DELETED), seen in the change feed. */
    afterHalt: { newCreated: number; newRemoved: number; goodCreated: number; goodRemoved: number };
    /** The reconciler's pod DELETE and CREATE requests when the halt was written. */
    requestsAtHalt?: { deletes: number; creates: number };
    revertedRecord?: RolloutRecord;
    allBack?: number;
    complete?: number;
    allNewAvailable?: number;
    phase?: string;
    step?: number;
  } = { afterHalt: { newCreated: 0, newRemoved: 0, goodCreated: 0, goodRemoved: 0 } };
  /** When the DaemonSet was written with a record of the new revision (its steps' status writes). */
  const recordWrites: { at: number; record: RolloutRecord }[] = [];
  const allBack = (now: number) => {
    if (at.halt === undefined || at.allBack !== undefined) return;
    if (liveNew.size === 0 && availableGood.size === nodes) at.allBack = now;
  };
  const stop = cluster.sim.store.subscribe((event) => {
    const now = Date.now();
    if (event.key === 'pods') {
      const pod = event.object as unknown as V1Pod;
      const node = targetNodeName(pod);
      const uid = pod.metadata?.uid ?? '';
      if (node === undefined) return;
      const gone = event.type === 'DELETED';
      const image = imageOf(pod);
      if (at.halt !== undefined && event.type === 'ADDED' && image === GOOD_IMAGE && !goodBackAt.has(node))
        goodBackAt.set(node, now);
      if (at.halt !== undefined && (event.type === 'ADDED' || gone)) {
        const fresh = image === NEW_IMAGE ? 'newCreated' : 'goodCreated';
        const removed = image === NEW_IMAGE ? 'newRemoved' : 'goodRemoved';
        at.afterHalt[gone ? removed : fresh]++;
      }
      if (image === NEW_IMAGE) {
        if (gone || pod.metadata?.deletionTimestamp) at.firstBadDeleted ??= now;
        if (gone) {
          badGoneAt.set(node, now);
          liveNew.delete(uid);
          availableNew.delete(uid);
        } else {
          liveNew.set(uid, node);
          if (!firstNewAt.has(node)) {
            firstNewAt.set(node, now);
            newCreatedAt.set(node, ms(pod.metadata?.creationTimestamp) ?? now);
          }
          if (isAvailablePod(pod)) availableNew.set(uid, node);
          else availableNew.delete(uid);
          if (restartsOf(pod) > MAX_RESTARTS && !restartsPassedAt.has(node)) restartsPassedAt.set(node, now);
          if (!at.allNewAvailable && availableNew.size === nodes) at.allNewAvailable = now;
        }
      } else if (image === GOOD_IMAGE) {
        if ((gone || pod.metadata?.deletionTimestamp) && !oldDeletedAt.has(node) && at.halt === undefined)
          oldDeletedAt.set(node, now);
        const set = availableGood.get(node) ?? new Set<string>();
        if (!gone && isAvailablePod(pod)) set.add(uid);
        else set.delete(uid);
        if (set.size > 0) availableGood.set(node, set);
        else availableGood.delete(node);
      }
      allBack(now);
      return;
    }
    if (event.key === 'nodes') {
      const name = event.object.metadata.name ?? '';
      const was = readyOf(event.oldObject as V1Node | undefined);
      const is = readyOf(event.object as unknown as V1Node);
      if (was === 'True' && is !== 'True' && !notReadyAt.has(name)) notReadyAt.set(name, now);
      // A broken node takes a daemon pod again once Ready and without the not-ready taint.
      const taints = (event.object as unknown as V1Node).spec?.taints ?? [];
      const schedulable = is === 'True' && !taints.some((t) => t.key === 'node.kubernetes.io/not-ready');
      if (schedulable && badGoneAt.has(name) && !recoveredAt.has(name)) recoveredAt.set(name, now);
      return;
    }
    if (event.key !== KIND_KEY || event.object.metadata.name !== 'agent') return;
    const record = rolloutRecordOf(event.object as unknown as DaemonSet);
    if (record === undefined || record.revision === initialRevision) return;
    recordWrites.push({ at: now, record });
    if (record.phase !== at.phase || record.step !== at.step) {
      at.phase = record.phase;
      at.step = record.step;
      console.log(
        `  [+${s(now - startedAt)} s] phase ${record.phase}, step ${record.step ?? '-'}, domain ${record.domain ?? '-'}, ${record.updatedNodes} nodes updated, ${record.failedNodes?.length ?? 0} failed`,
      );
    }
    if (record.haltedAt !== undefined && at.halt === undefined) {
      at.halt = now;
      at.haltRecord = record;
      at.badBeforeHalt = firstNewAt.size;
      at.inFlightAtHalt = [...oldDeletedAt.keys()].filter((n) => !firstNewAt.has(n)).length;
      at.liveBadNodesAtHalt = new Set(liveNew.values()).size;
      at.needGoodAtHalt = nodes - availableGood.size;
      at.requestsAtHalt = {
        deletes: reconcileRequests(cluster.sim, { verb: 'delete', resource: 'pods' }),
        creates: reconcileRequests(cluster.sim, { verb: 'create', resource: 'pods' }),
      };
    }
    if (record.revertedAt !== undefined && at.reverted === undefined) {
      at.reverted = now;
      at.revertedRecord = record;
    }
    if (record.phase === 'Complete' && at.complete === undefined) at.complete = now;
  });
  return {
    at,
    recordWrites,
    oldDeletedAt,
    firstNewAt,
    newCreatedAt,
    restartsPassedAt,
    notReadyAt,
    badGoneAt,
    recoveredAt,
    goodBackAt,
    liveNew,
    availableNew,
    availableGood,
    stop,
  };
}

try {
  await startPipeline();
  say('pipeline started (everynode.dev/v1)');
  const ds = {
    apiVersion: 'everynode.dev/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent', namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      template: {
        metadata: { labels: { app: 'agent' } },
        spec: {
          containers: [{ name: 'agent', image: GOOD_IMAGE }],
          terminationGracePeriodSeconds: GRACE_S,
        },
      },
      updateStrategy: {
        type: 'RollingUpdate',
        rollingUpdate: {
          maxUnavailable: '5%',
          topologyKey: ZONE_KEY,
          steps: [{ nodes: '1%' }, { nodes: '100%' }],
          health: {
            podReadySeconds: P,
            maxRestarts: MAX_RESTARTS,
            nodeReadySeconds: R,
            maxFailedNodes,
            onFailure,
          },
        },
      },
    },
  };
  cluster.sim.store.create(KIND_KEY, ds as unknown as KubeObject);
  const availableGood = () =>
    (cluster.sim.store.view('pods') as unknown as V1Pod[]).filter(
      (p) => imageOf(p) === GOOD_IMAGE && isAvailablePod(p),
    ).length;
  await waitUntil(
    'the first rollout to complete',
    () => recordNow()?.phase === 'Complete' && availableGood() === nodes,
    30 * 60_000,
    250,
  );
  const initialRevision = recordNow()?.revision ?? '';
  say(`first rollout (${GOOD_IMAGE}) complete: revision ${initialRevision}`);

  if (variant === 'crashloop' && typeof maxFailedNodes === 'number' && maxFailedNodes >= firstStep)
    say(
      `note: maxFailedNodes ${maxFailedNodes} >= the first step's ${firstStep} nodes: a crash-looping canary cannot fail more nodes than tolerated`,
    );
  const tracked = track(Date.now(), initialRevision);
  const phases = trackRolloutPhases(cluster.sim, (pod) => imageOf(pod) === NEW_IMAGE);
  const { at } = tracked;
  cluster.sim.counters.reset();
  cluster.pipelineHeap.reset();
  if (values['cpu-profile']) cluster.profilePipeline();
  const started = Date.now();
  const changed = stored();
  const container = changed.spec?.template.spec?.containers[0];
  if (container) container.image = NEW_IMAGE;
  cluster.sim.store.update(KIND_KEY, changed as unknown as KubeObject);
  say(`image changed to ${NEW_IMAGE}`);

  let lastReport = started;
  let lastRequests = 0;
  pipelineBusy();
  const progress = () => {
    if (Date.now() - lastReport < 10_000) return;
    const requests = reconcileRequests(cluster.sim);
    const rate = ((requests - lastRequests) * 1000) / (Date.now() - lastReport);
    lastReport = Date.now();
    lastRequests = requests;
    const record = recordNow();
    console.log(
      `  +${s(Date.now() - started)} s: ${record?.phase ?? '-'} (step ${record?.step ?? '-'}, domain ${record?.domain ?? '-'}, ${record?.failedNodes?.length ?? 0} failed); ${tracked.firstNewAt.size} nodes reached by the new revision, ${tracked.availableNew.size} available on it, ${tracked.availableGood.size} on the good one; ${rate.toFixed(0)} requests/s, pipeline thread ${(pipelineBusy() * 100).toFixed(0)} % busy`,
    );
  };

  let halted = false;
  if (bad) {
    const giveUpAt = started + (P + 90) * 1000;
    await waitUntil(
      'the halt',
      () => {
        progress();
        return at.halt !== undefined || Date.now() > giveUpAt;
      },
      60 * 60_000,
      100,
    );
    halted = at.halt !== undefined;
    if (!halted) say(`no halt ${P + 90} s after the image change; giving up`);
    else if (onFailure === 'Pause') {
      const until = Date.now() + SETTLE_MS;
      await waitUntil('the updates in flight', () => Date.now() > until, SETTLE_MS + 1000, 100);
    } else {
      await waitUntil(
        'every node back on the good revision',
        () => {
          progress();
          return at.reverted !== undefined && at.allBack !== undefined;
        },
        30 * 60_000,
        100,
      );
    }
  } else {
    await waitUntil(
      'the rollout to complete',
      () => {
        progress();
        return at.complete !== undefined;
      },
      60 * 60_000,
      100,
    );
  }
  const endedAt = Date.now();
  const heap = cluster.pipelineHeap.read();
  tracked.stop();
  phases.stop();

  console.log(
    `\nbad-rollout: ${nodes} nodes in 3 zones (${ZONES.map((z, i) => `${z} ${zoneSizes[i]}`).join(', ')}), image ${NEW_IMAGE}${bad ? `, onFailure ${onFailure}` : ''}; reconciler limited to ${LIMIT_QPS} requests/s${values['node-list-reuse-min-nodes'] === undefined ? '' : `, kept node LISTs from ${values['node-list-reuse-min-nodes']} nodes`}`,
  );
  console.log(
    `rollingUpdate: maxUnavailable 5% = ${maxUnavailable}, steps [1% = ${firstStep} nodes, 100%], topologyKey ${ZONE_KEY}; health: podReadySeconds ${P}, maxRestarts ${MAX_RESTARTS}, nodeReadySeconds ${R}, maxFailedNodes ${maxFailedNodes}`,
  );
  console.log(
    `simulator: pod start ${POD_START_S} s, ready ${POD_READY_S} s after, grace period ${GRACE_S} s, break-node breaks its node ${BREAK_NODE_S} s after it starts, CrashLoopBackOff 10 s doubling (container exits 2 s after start)`,
  );
  const outside = [...tracked.firstNewAt.keys()].filter((n) => zoneOf.get(n) !== ZONES[0]).length;
  if (bad && !halted) {
    const record = recordNow();
    figure('halted', 'no', 'a halt', false);
    console.log(
      `the record after ${s(endedAt - started)} s: phase ${record?.phase}, step ${record?.step}, ${record?.failedNodes?.length ?? 0} failed nodes (${maxFailedNodes} tolerated), ${tracked.firstNewAt.size} nodes reached by the new revision`,
    );
    figure('nodes outside the first zone touched', String(outside), '0', outside === 0);
  } else if (bad && at.halt !== undefined) {
    const record = at.haltRecord;
    const failed = record?.failedNodes ?? [];
    const signalOf = (f: { node: string; reason: string; at: string }): number | undefined => {
      if (f.reason === 'NodeNotReady') return tracked.notReadyAt.get(f.node) ?? ms(f.at);
      if (f.reason === 'TooManyRestarts') return tracked.restartsPassedAt.get(f.node) ?? ms(f.at);
      const created = tracked.newCreatedAt.get(f.node);
      return created === undefined ? ms(f.at) : created + P * 1000;
    };
    const signals = failed.flatMap((f) => {
      const signal = signalOf(f);
      return signal === undefined ? [] : [signal];
    });
    const lags = signals.map((signal) => ((at.halt ?? 0) - signal) / 1000);
    const reasons = new Map<string, number>();
    for (const f of failed) reasons.set(f.reason, (reasons.get(f.reason) ?? 0) + 1);
    const tolerated = typeof maxFailedNodes === 'number' ? maxFailedNodes : undefined;
    const sortedSignals = [...signals].sort((a, b) => a - b);
    const tipping = tolerated === undefined ? undefined : sortedSignals[tolerated];
    console.log(
      `halt written ${s(at.halt - started)} s after the image change (first new pod at +${s(Math.min(...tracked.firstNewAt.values()) - started)} s): ${failed.length} failed nodes in its record (${[...reasons].map(([r, n]) => `${r} ${n}`).join(', ')}), ${record?.haltReason}`,
    );
    figure(
      'nodes on the bad revision before the halt',
      String(at.badBeforeHalt),
      `<= ${firstStep}`,
      (at.badBeforeHalt ?? 0) <= firstStep,
    );
    console.log(
      `  updates in flight at the halt (old pod deleted, no new one yet): ${at.inFlightAtHalt}; nodes with a live pod of the bad revision at the halt: ${at.liveBadNodesAtHalt}; nodes reached by the bad revision by the end (+${s(endedAt - started)} s): ${tracked.firstNewAt.size}`,
    );
    if (tipping !== undefined) {
      const later = (times: Iterable<number>) => [...times].filter((time) => time > tipping).length;
      console.log(
        `  after the signal that broke the rule: ${later(tracked.oldDeletedAt.values())} old pods deleted, ${later(tracked.firstNewAt.values())} nodes reached by the bad revision`,
      );
    }
    const halt = at.halt;
    const writesBefore = tracked.recordWrites.filter((w) => w.at <= halt && w.at > halt - 10_000);
    console.log(
      `  the DaemonSet's record writes in the 10 s up to the halt (s after the image change: phase, step, nodes updated, failed): ${writesBefore.map((w) => `${s(w.at - started)}: ${w.record.phase}, ${w.record.step}, ${w.record.updatedNodes}, ${w.record.failedNodes?.length ?? 0}`).join('; ')}`,
    );
    const p50 = quantile(lags, 0.5);
    figure('failure signal -> halt written, p50 (s)', p50.toFixed(2), '<= 1.0', p50 <= 1);
    console.log(
      `  max ${Math.max(...lags).toFixed(2)} s, min ${Math.min(...lags).toFixed(2)} s over ${lags.length} failed nodes${tipping === undefined ? '' : `; from the signal that broke the rule (failed node ${(tolerated ?? 0) + 1}, ${s(tipping - started)} s after the image change) ${((at.halt - tipping) / 1000).toFixed(2)} s`}`,
    );
    // Where the lag goes for a rule broken by time alone (PodNotAvailable): the step that finds it
    // is the one the last step asked for (its health deadline, rounded up to a second), due at the
    // end of the DaemonSet's status window holding that moment (lib/messages/requeue-envelope.ts);
    // the rest is the step itself and its status write. A restart or a pod turning unready (its node
    // NotReady) reaches the step at once (lib/relay/filters/health-signals.ts).
    const uid = stored().metadata?.uid ?? '';
    const windowMs = ROLLOUT_WINDOW_SECONDS * 1000;
    const timed = failed.flatMap((f) => {
      const signal = f.reason === 'PodNotAvailable' ? signalOf(f) : undefined;
      return signal === undefined ? [] : [signal];
    });
    if (timed.length > 0) {
      const windowEnd = (signal: number) => daemonSetWindow(uid, signal, windowMs).endsAt;
      const waits = timed.map((signal) => (windowEnd(signal) - signal) / 1000);
      const after = timed.map((signal) => ((at.halt ?? 0) - windowEnd(signal)) / 1000);
      console.log(
        `  PodNotAvailable signals -> end of the DaemonSet's ${ROLLOUT_WINDOW_SECONDS} s rollout window holding them: p50 ${quantile(waits, 0.5).toFixed(2)} s, max ${Math.max(...waits).toFixed(2)} s; that window's end -> halt written: p50 ${quantile(after, 0.5).toFixed(2)} s, max ${Math.max(...after).toFixed(2)} s`,
      );
    }
    figure('nodes outside the first zone touched', String(outside), '0', outside === 0);
    if (onFailure === 'Revert') {
      const back = at.allBack === undefined ? Number.NaN : (at.allBack - at.halt) / 1000;
      const revertedRecordAt = at.reverted === undefined ? Number.NaN : (at.reverted - at.halt) / 1000;
      const need = at.needGoodAtHalt ?? 0;
      const waves = Math.ceil(need / maxUnavailable);
      const wavesFloor = waves * CYCLE_S;
      const reached = tracked.firstNewAt.size;
      const writes = need + reached;
      const writesFloor = writes / LIMIT_QPS;
      // The cluster's own part: a broken node takes a pod only once Ready and untainted again.
      const lags = [...tracked.recoveredAt].map(([node, t]) => t - (tracked.badGoneAt.get(node) ?? t));
      const recovery = lags.length === 0 ? 0 : Math.max(...lags) / 1000;
      const recoveryFloor = lags.length === 0 ? 0 : recovery + POD_START_S + POD_READY_S;
      const floor = Math.max(wavesFloor, writesFloor, recoveryFloor);
      figure(
        'halt -> every node on the good revision (s)',
        back.toFixed(1),
        `<= ${(1.1 * floor).toFixed(1)}`,
        back <= 1.1 * floor,
      );
      if (at.firstBadDeleted !== undefined)
        console.log(
          `  the revert's first deletion of a bad pod came ${((at.firstBadDeleted - at.halt) / 1000).toFixed(2)} s after the halt was written (the step that halts deletes, then writes its status)`,
        );
      console.log(
        `  revertedAt written ${revertedRecordAt.toFixed(1)} s after the halt (${at.revertedRecord?.revertedAt}); floor ${floor.toFixed(1)} s: the larger of ${waves} waves of ${maxUnavailable} x ${CYCLE_S} s (stop ${GRACE_S} + start ${POD_START_S} + ready ${POD_READY_S}) for the ${need} nodes without an available good pod at the halt = ${wavesFloor.toFixed(1)} s, ${writes} writes (${reached} deletes, ${need} creates) / ${LIMIT_QPS} requests/s = ${writesFloor.toFixed(1)} s, and for the ${lags.length} broken nodes the cluster's longest wait from a bad pod gone to its node Ready and untainted, ${recovery.toFixed(2)} s, + start ${POD_START_S} + ready ${POD_READY_S} = ${recoveryFloor.toFixed(1)} s`,
      );
      const spread = (values: number[]) =>
        values.length === 0
          ? '-'
          : `median ${quantile(values, 0.5).toFixed(2)} s, p90 ${quantile(values, 0.9).toFixed(2)} s, max ${Math.max(...values).toFixed(2)} s`;
      const since = (from: Map<string, number>, to: Map<string, number>) =>
        [...to].flatMap(([node, t]) => {
          const start = from.get(node);
          return start === undefined ? [] : [(t - start) / 1000];
        });
      console.log(
        `  per node put back: halt -> bad pod gone ${spread([...tracked.badGoneAt.values()].map((t) => (t - (at.halt ?? t)) / 1000))}; gone -> node schedulable ${spread(since(tracked.badGoneAt, tracked.recoveredAt))}; schedulable -> good pod created ${spread(since(tracked.recoveredAt, tracked.goodBackAt))}`,
      );
      const { newCreated, newRemoved, goodCreated, goodRemoved } = at.afterHalt;
      console.log(
        `  from the halt to the end: pods of the bad revision created ${newCreated}, removed ${newRemoved}; of the good one created ${goodCreated}, removed ${goodRemoved}; the reconciler's pod DELETEs ${reconcileRequests(cluster.sim, { verb: 'delete', resource: 'pods' }) - (at.requestsAtHalt?.deletes ?? 0)}, CREATEs ${reconcileRequests(cluster.sim, { verb: 'create', resource: 'pods' }) - (at.requestsAtHalt?.creates ?? 0)}`,
      );
      figure('revert time / floor', (back / floor).toFixed(3), '<= 1.10', back <= 1.1 * floor);
    }
  } else {
    const seconds = ((at.complete ?? endedAt) - started) / 1000;
    const stepWaves = Math.ceil(firstStep / maxUnavailable);
    const zoneWaves = zoneSizes.map((size, i) =>
      Math.ceil((i === 0 ? Math.max(0, size - firstStep) : size) / maxUnavailable),
    );
    const restWaves = zoneWaves.reduce((a, b) => a + b, 0);
    const windowS = Math.max(P, POD_START_S + R);
    // The canaries: created, then their step holds until their health windows close.
    const stepCreate = Math.max((stepWaves - 1) * CYCLE_S, (2 * firstStep) / LIMIT_QPS);
    const rest = nodes - firstStep;
    const restCreate = Math.max((restWaves - 1) * CYCLE_S, (2 * rest) / LIMIT_QPS);
    const floor = stepCreate + windowS + restCreate + windowS;
    figure(
      'time to complete (s)',
      seconds.toFixed(1),
      `<= ${(1.1 * floor).toFixed(0)}`,
      seconds <= 1.1 * floor,
    );
    console.log(
      `  every node available on it at +${at.allNewAvailable === undefined ? '-' : s(at.allNewAvailable - started)} s; floor ${floor.toFixed(0)} s: the first step's ${firstStep} pods created no sooner than the larger of (${stepWaves} waves - 1) x ${CYCLE_S} s and ${2 * firstStep} writes / ${LIMIT_QPS} requests/s = ${stepCreate.toFixed(0)} s, the step complete once their health windows close, max(podReadySeconds ${P}, start ${POD_START_S} + nodeReadySeconds ${R}) = ${windowS} s later; then the last of the other ${rest} pods created no sooner than the larger of (${restWaves} waves - 1) x ${CYCLE_S} s (${zoneWaves.join(' + ')} for the zones at ${maxUnavailable}, a zone finished before the next) and ${2 * rest} writes / ${LIMIT_QPS} requests/s = ${restCreate.toFixed(0)} s, and the rollout complete once their windows close, ${windowS} s later`,
    );
    figure('time / floor', (seconds / floor).toFixed(3), '<= 1.10', seconds <= 1.1 * floor);
    console.log(`where a node's time went:\n${phases.report()}`);
  }
  const requests = reconcileRequests(cluster.sim);
  console.log(
    `requests ${requests} (${(requests / nodes).toFixed(2)} per node): ${requestBreakdown(cluster.sim)}`,
  );
  console.log(
    `pipeline thread peak heap ${(heap.heapBytes / 2 ** 20).toFixed(0)} MB, process peak RSS ${(heap.rssBytes / 2 ** 20).toFixed(0)} MB`,
  );
  console.log(`pipeline counters: ${JSON.stringify(await stopPipeline())}`);
  console.log(
    `load average at the end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(', ')}`,
  );
} finally {
  await stopPipeline();
  await cluster.stop();
}
