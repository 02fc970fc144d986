/**
 * A small simulated cluster for the safe rollout's property tests (docs/design.md, 30. Rollouts
 * that stop themselves): nodes with zones and a Ready condition, daemon pods with a revision, a
 * creation time, readiness and restarts, a clock, and the rollout record kept on the DaemonSet as
 * the API server keeps it. Each tick runs the pair steps (planPair: a node without a pod gets one of
 * the revision the pods aim at), then the DaemonSet step (safeRolloutProgress, then planRollout with
 * its allowance), possibly duplicated, replayed on an older observation, run from an older record, or
 * with its record write lost; then time passes, nodes fail or recover, and the user writes requests.
 *
 * The checks of the properties are hooks the test passes in: the model only runs the cluster and
 * reports what each step saw and did.
 */
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import type { Action } from '../../../lib/core/action.ts';
import type { DaemonSet } from '../../../lib/core/daemon-set.ts';
import { type NodeView, nodeViewsFor } from '../../../lib/core/node-view.ts';
import { planPair } from '../../../lib/core/pair-plan.ts';
import { planRollout } from '../../../lib/core/rolling-update/plan.ts';
import { revertRevision } from '../../../lib/core/safe-rollout/revert.ts';
import {
  type RolloutProgress,
  safeRolloutProgress,
} from '../../../lib/core/safe-rollout/rollout-progress.ts';
import {
  ROLLOUT_RESUME_ANNOTATION,
  ROLLOUT_RETRY_ANNOTATION,
  ROLLOUT_STATUS_ANNOTATION,
  type RolloutRecord,
  rolloutRecordOf,
} from '../../../lib/core/safe-rollout/rollout-record.ts';
import { type RolloutStep, safeRolloutOf } from '../../../lib/core/safe-rollout/rollout-spec.ts';
import { aDaemonSet, aNode, aPod } from '../../support/builders.ts';

export const T0 = Date.parse('2026-01-02T00:00:00Z');
export const NOT_READY_TAINT = 'node.kubernetes.io/not-ready';
const HASH_LABEL = 'controller-revision-hash';
/** The revision every node runs at the start, and the ones the template changes to, in order. */
export const REVISIONS = ['v1', 'v2', 'v3', 'v4'] as const;

/** How a new pod of a rolled revision behaves: ready `readyAfter` s after its creation (never: null), crash-looping every `restartEvery` s until then. */
export interface Fate {
  readonly readyAfter: number | null;
  readonly restartEvery?: number | undefined;
}

export interface HealthSettings {
  readonly podReadySeconds: number;
  readonly maxRestarts?: number | undefined;
  readonly nodeReadySeconds?: number | undefined;
  readonly maxFailedNodes: number | string;
  readonly onFailure: 'Pause' | 'Revert';
}

/** What a user writes between two ticks. */
export type UserAction =
  /** A retry naming the halt the record holds. */
  | { readonly kind: 'retry' }
  /** A retry naming a halt taken before (or the record's revision with a wrong time). */
  | { readonly kind: 'retryStale'; readonly n: number }
  /** A resume naming the step the record holds. */
  | { readonly kind: 'resume' }
  /** A resume naming any step of any revision. */
  | { readonly kind: 'resumeAny'; readonly n: number }
  /** A new template: the next revision. */
  | { readonly kind: 'template' };

/** How the DaemonSet step of a tick runs. */
export type Replay =
  | 'none'
  /** Twice, on the state as it is each time (a duplicated message). */
  | 'duplicate'
  /** Its record is not stored (a lost write); its deletes are made (they come first). */
  | 'lostWrite'
  /** On the nodes and pods as observed `back` ticks ago (a lagging cache), with the stored record. */
  | 'staleViews'
  /** From a record stored `back` writes ago, written over the newer one first (a reordered write). */
  | 'staleRecord';

export interface Tick {
  readonly dtMs: number;
  readonly replay: Replay;
  readonly back: number;
  /** Ticks a deleted pod stays terminating beyond the next. */
  readonly grace: number;
  readonly node?: { readonly index: number; readonly ready: boolean } | undefined;
  readonly user?: UserAction | undefined;
}

export interface Scenario {
  readonly zones: readonly string[];
  readonly topology: boolean;
  readonly steps?: readonly RolloutStep[] | undefined;
  readonly health?: HealthSettings | undefined;
  readonly maxUnavailable: number | string;
  readonly maxSurge: number;
  readonly minReadySeconds: number;
  /** The record of the first revision's completed rollout is stored at the start. */
  readonly startComplete: boolean;
  /** The fates of new pods of a rolled revision, taken in turn. */
  readonly fates: readonly Fate[];
  readonly ticks: readonly Tick[];
}

interface SimNode {
  readonly name: string;
  readonly zone: string;
  readonly ready: boolean;
  /** When Ready last changed (ms). */
  readonly since: number;
}

export interface SimPod {
  readonly name: string;
  readonly uid: string;
  readonly node: string;
  readonly hash: string;
  readonly createdAt: number;
  readonly fate: Fate;
  /** Set once deleted: the tick from which it is gone. */
  readonly goneAtTick?: number;
  readonly deletedAt?: number;
}

/** The cluster as observed at `at`: what a LIST returned. */
export interface Observation {
  readonly at: number;
  readonly nodes: readonly SimNode[];
  readonly pods: readonly SimPod[];
}

/** One DaemonSet step as it ran. */
export interface StepRun {
  readonly replay: Replay;
  readonly ds: DaemonSet;
  readonly hash: string;
  readonly now: Date;
  readonly observation: Observation;
  readonly views: readonly NodeView[];
  readonly stored: RolloutRecord | undefined;
  readonly progress: RolloutProgress;
  readonly actions: readonly Action[];
  /** Nodes the plan moves towards `progress.revertTo ?? hash`: their old pod deleted, or a new pod beside it. */
  readonly moved: readonly string[];
  readonly written: boolean;
}

export interface Hooks {
  /** After each DaemonSet step (its actions applied, its record written or lost). */
  readonly step?: (run: StepRun, sim: Sim) => void;
  /** After each pod created (by a pair step or the surge). */
  readonly created?: (pod: SimPod, sim: Sim) => void;
}

export const nodeName = (i: number) => `n${String(i + 1).padStart(2, '0')}`;

/** The simulated cluster. */
export class Sim {
  now: number = T0;
  tick = 0;
  hashIndex = 1;
  nodes: SimNode[];
  pods: SimPod[] = [];
  ds: DaemonSet;
  /** Every record stored, oldest first. */
  readonly records: (RolloutRecord | undefined)[] = [];
  /** Past observations, newest last. */
  readonly observations: Observation[] = [];
  private fateIndex = 0;
  private uids = 0;

  constructor(readonly scenario: Scenario) {
    this.nodes = scenario.zones.map((zone, i) => ({
      name: nodeName(i),
      zone,
      ready: true,
      since: T0 - 86_400_000,
    }));
    const rollingUpdate: Record<string, unknown> = {
      maxUnavailable: scenario.maxUnavailable,
      maxSurge: scenario.maxSurge,
      ...(scenario.topology ? { topologyKey: 'zone' } : {}),
      ...(scenario.steps ? { steps: scenario.steps } : {}),
      ...(scenario.health ? { health: stripUndefined(scenario.health) } : {}),
    };
    this.ds = aDaemonSet('agent', {
      minReadySeconds: scenario.minReadySeconds,
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: rollingUpdate as never },
      annotations: {},
    });
    for (const node of this.nodes) {
      this.uids++;
      const name = `agent-${node.name}-v1`;
      this.pods.push({
        name,
        uid: `uid-${this.uids}`,
        node: node.name,
        hash: 'v1',
        createdAt: T0 - 3_600_000,
        fate: { readyAfter: 0 },
      });
    }
    if (scenario.startComplete)
      this.store({
        revision: 'v1',
        phase: 'Complete',
        updatedNodes: this.nodes.length,
        stableRevision: 'v1',
      });
    else this.records.push(undefined);
  }

  get hash(): string {
    return REVISIONS[this.hashIndex] ?? 'v1';
  }

  get record(): RolloutRecord | undefined {
    return rolloutRecordOf(this.ds);
  }

  annotation(key: string): string | undefined {
    return this.ds.metadata?.annotations?.[key];
  }

  private setAnnotation(key: string, value: string | undefined): void {
    const annotations = { ...this.ds.metadata?.annotations };
    if (value === undefined) delete annotations[key];
    else annotations[key] = value;
    this.ds = { ...this.ds, metadata: { ...this.ds.metadata, annotations } };
  }

  store(record: RolloutRecord | undefined): void {
    this.setAnnotation(ROLLOUT_STATUS_ANNOTATION, record === undefined ? undefined : JSON.stringify(record));
    this.records.push(record);
  }

  /** The revision the pair steps create pods of: the stable one while a halted rollout reverts. */
  podTarget(): string {
    return revertRevision(this.ds, this.hash) ?? this.hash;
  }

  observe(): Observation {
    return { at: this.now, nodes: [...this.nodes], pods: [...this.pods] };
  }

  /** Live pods (not deleted) on `node`. */
  live(node: string): SimPod[] {
    return this.pods.filter((p) => p.node === node && p.goneAtTick === undefined);
  }

  run(hooks: Hooks): void {
    for (const tick of this.scenario.ticks) {
      this.user(tick.user);
      // A deleted pod is gone once its grace ticks passed and its kubelet confirmed it: not while its node is NotReady.
      const ready = new Set(this.nodes.filter((n) => n.ready).map((n) => n.name));
      this.pods = this.pods.filter(
        (p) => p.goneAtTick === undefined || p.goneAtTick > this.tick || !ready.has(p.node),
      );
      this.pairSteps(hooks);
      this.observations.push(this.observe());
      this.daemonSetStep(tick, hooks);
      this.now += tick.dtMs;
      this.tick++;
      if (tick.node) this.nodeEvent(tick.node.index, tick.node.ready);
    }
  }

  private user(action: UserAction | undefined): void {
    if (action === undefined) return;
    const record = this.record;
    switch (action.kind) {
      case 'retry':
        if (record?.haltedAt)
          this.setAnnotation(ROLLOUT_RETRY_ANNOTATION, `${record.revision}/${record.haltedAt}`);
        return;
      case 'retryStale': {
        const halts = [
          ...new Set(this.records.flatMap((r) => (r?.haltedAt ? [`${r.revision}/${r.haltedAt}`] : []))),
        ];
        const wrong = `${this.hash}/${new Date(this.now - (action.n % 5) * 1000 - 1000).toISOString().replace(/\.\d{3}Z$/, 'Z')}`;
        // A halt already acted on (but never the one the record holds), else a time that names no halt.
        const stale = halts.filter(
          (h) => record?.haltedAt === undefined || h !== `${record.revision}/${record.haltedAt}`,
        );
        const chosen = stale.length > 0 && action.n % 2 === 0 ? stale[action.n % stale.length] : wrong;
        if (chosen !== `${record?.revision}/${record?.haltedAt}`)
          this.setAnnotation(ROLLOUT_RETRY_ANNOTATION, chosen);
        return;
      }
      case 'resume':
        if (record?.step !== undefined)
          this.setAnnotation(ROLLOUT_RESUME_ANNOTATION, `${record.revision}/${record.step}`);
        return;
      case 'resumeAny':
        this.setAnnotation(
          ROLLOUT_RESUME_ANNOTATION,
          `${REVISIONS[action.n % REVISIONS.length]}/${Math.floor(action.n / REVISIONS.length) % 5}`,
        );
        return;
      case 'template':
        if (this.hashIndex < REVISIONS.length - 1) this.hashIndex++;
        return;
    }
  }

  private nodeEvent(index: number, ready: boolean): void {
    const i = index % this.nodes.length;
    const node = this.nodes[i];
    if (node === undefined || node.ready === ready) return;
    this.nodes[i] = { ...node, ready, since: this.now };
  }

  private fateFor(hash: string): Fate {
    // Only the revision being rolled misbehaves: a revert goes back to one that ran well.
    if (hash !== this.hash) return { readyAfter: 1 };
    const fates = this.scenario.fates;
    const fate = fates[this.fateIndex % fates.length] ?? { readyAfter: 1 };
    this.fateIndex++;
    return fate;
  }

  private apply(actions: readonly Action[], hooks: Hooks, grace: number): void {
    for (const action of actions) {
      if (action.type === 'delete') {
        const i = this.pods.findIndex((p) => p.uid === action.uid && p.goneAtTick === undefined);
        const pod = this.pods[i];
        // The uid and resourceVersion preconditions: a pod that changed since it was observed stays.
        if (pod === undefined || resourceVersion(pod, this.now, this.nodes) !== action.resourceVersion)
          continue;
        this.pods[i] = { ...pod, goneAtTick: this.tick + 1 + grace, deletedAt: this.now };
      } else if (action.type === 'create') {
        const name = action.pod.metadata?.name ?? '';
        // 409 AlreadyExists for a name taken (a duplicate create from the same observed state).
        if (this.pods.some((p) => p.name === name)) continue;
        const hash = action.pod.metadata?.labels?.[HASH_LABEL] ?? '';
        this.uids++;
        const pod: SimPod = {
          name,
          uid: `uid-${this.uids}`,
          node: action.node,
          hash,
          createdAt: this.now,
          fate: this.fateFor(hash),
        };
        this.pods.push(pod);
        hooks.created?.(pod, this);
      }
    }
  }

  /** Each node's pair step: planPair on its pods, aiming at the pod target. */
  private pairSteps(hooks: Hooks): void {
    const target = this.podTarget();
    const { nodes, pods } = materialize(this.ds, this.observe());
    for (const node of nodes) {
      const name = node.metadata?.name ?? '';
      const actions = planPair({
        ds: this.ds,
        node,
        pods: pods.filter((p) => p.spec?.nodeName === name),
        currentHash: target,
        now: new Date(this.now),
      });
      this.apply(actions, hooks, 0);
    }
  }

  private daemonSetStep(tick: Tick, hooks: Hooks): void {
    const fresh = this.observations.at(-1) ?? this.observe();
    switch (tick.replay) {
      case 'duplicate':
        this.runStep('none', fresh, tick, hooks);
        this.runStep('duplicate', this.observe(), tick, hooks);
        return;
      case 'staleViews': {
        const older = this.observations.at(-1 - tick.back) ?? this.observations[0] ?? fresh;
        this.runStep('staleViews', older, tick, hooks);
        return;
      }
      case 'staleRecord': {
        const older = this.records.at(-1 - tick.back);
        this.store(older);
        this.runStep('staleRecord', fresh, tick, hooks);
        return;
      }
      default:
        this.runStep(tick.replay, fresh, tick, hooks);
    }
  }

  private runStep(replay: Replay, observation: Observation, tick: Tick, hooks: Hooks): void {
    const ds = this.ds;
    const hash = this.hash;
    const now = new Date(this.now);
    const { nodes, pods } = materialize(ds, observation);
    const views = nodeViewsFor(ds, nodes, pods);
    const stored = rolloutRecordOf(ds);
    const progress = safeRolloutProgress({
      ds,
      views,
      currentHash: hash,
      settings: safeRolloutOf(ds),
      stored,
      now,
    });
    const target = progress.revertTo ?? hash;
    const actions = planRollout({
      ds,
      nodes: views,
      currentHash: target,
      now,
      allowance: progress.allowance,
    });
    const moved = movedNodes(views, actions, target);
    this.apply(actions, hooks, tick.grace);
    const written = replay !== 'lostWrite';
    if (written) this.store(progress.record);
    hooks.step?.(
      { replay, ds, hash, now, observation, views, stored, progress, actions, moved, written },
      this,
    );
  }
}

/** The nodes `actions` move towards `target`: an old pod deleted where no live pod of it runs, or a pod of it created. */
function movedNodes(views: readonly NodeView[], actions: readonly Action[], target: string): string[] {
  const onTarget = new Set(
    views
      .filter((v) =>
        v.pods.some((p) => !p.metadata?.deletionTimestamp && p.metadata?.labels?.[HASH_LABEL] === target),
      )
      .map((v) => v.name),
  );
  const moved = new Set<string>();
  for (const action of actions) {
    if (action.type === 'create') moved.add(action.node);
    else if (action.type === 'delete' && !onTarget.has(action.node)) moved.add(action.node);
  }
  return [...moved].sort();
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** When a pod of `fate` created at `createdAt` is ready on its own (ms), or undefined. */
function readyAt(pod: Readonly<SimPod>): number | undefined {
  return pod.fate.readyAfter === null ? undefined : pod.createdAt + pod.fate.readyAfter * 1000;
}

/** The pod's restarts at `at`: one every `restartEvery` s from its creation until it is ready. */
export function restartsAt(pod: Readonly<SimPod>, at: number): number {
  const every = pod.fate.restartEvery;
  if (every === undefined) return 0;
  const until = Math.min(at, readyAt(pod) ?? at);
  return Math.max(0, Math.floor((until - pod.createdAt) / (every * 1000)));
}

/** Whether the pod is ready at `at` on `node`, and since when. */
export function readinessAt(
  pod: Readonly<SimPod>,
  node: Readonly<SimNode> | undefined,
  at: number,
): { ready: boolean; since: number } {
  const own = readyAt(pod);
  if (node === undefined || !node.ready || own === undefined || own > at)
    return { ready: false, since: Math.max(pod.createdAt, node && !node.ready ? node.since : pod.createdAt) };
  return { ready: true, since: Math.max(own, node.since) };
}

/** The pod's resourceVersion at `at`: it changes whenever its status does. */
function resourceVersion(pod: Readonly<SimPod>, at: number, nodes: readonly SimNode[]): string {
  const { ready, since } = readinessAt(
    pod,
    nodes.find((n) => n.name === pod.node),
    at,
  );
  return `${ready ? since : 0}.${restartsAt(pod, at)}`;
}

/** The API objects of an observation, as a LIST at its time returned them. */
export function materialize(
  ds: Readonly<DaemonSet>,
  observation: Readonly<Observation>,
): { nodes: V1Node[]; pods: V1Pod[] } {
  const at = observation.at;
  const nodes = observation.nodes.map((n) => {
    const node = aNode(n.name, {
      labels: n.zone ? { zone: n.zone } : {},
      ready: n.ready,
      ...(n.ready ? {} : { taints: [{ key: NOT_READY_TAINT, effect: 'NoSchedule' }] }),
    });
    const condition = node.status?.conditions?.[0];
    if (condition) condition.lastTransitionTime = new Date(n.since);
    return node;
  });
  const pods = observation.pods.map((p) => {
    const node = observation.nodes.find((n) => n.name === p.node);
    const { ready, since } = readinessAt(p, node, at);
    const pod = aPod(p.name, {
      owner: ds as never,
      uid: p.uid,
      nodeName: p.node,
      ready,
      readySince: new Date(since),
      creationTimestamp: new Date(p.createdAt),
      labels: { [HASH_LABEL]: p.hash },
      resourceVersion: resourceVersion(p, at, observation.nodes),
      ...(p.deletedAt !== undefined && p.goneAtTick !== undefined
        ? { deletionTimestamp: new Date(p.deletedAt) }
        : {}),
    });
    if (pod.status) {
      pod.status.startTime = new Date(p.createdAt);
      pod.status.containerStatuses = [
        { name: 'main', image: 'busybox:1.36', imageID: '', ready, restartCount: restartsAt(p, at) },
      ];
    }
    return pod;
  });
  return { nodes, pods };
}
