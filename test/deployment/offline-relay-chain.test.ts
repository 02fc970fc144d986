/**
 * The relay's successor chain as `cdk deploy` ships it (docs/design.md, 25. The relay's hand-over on
 * AWS), offline: the relay bundle in containers of its own under reserved concurrency 2, each run
 * invoking the next through Lambda Invoke at the local AWS endpoint with its role's credentials, the
 * lease in the SSM parameter, the RelaySchedule rule as the watchdog, and the simulated cluster. The
 * period is shortened to 24 s with a timeout of 40 s, so each run invokes its successor 4 s after it
 * starts and its deadline is 25 s: a hand-over every five seconds or so.
 */
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELAY_LEASE_FRESH_MS, type RelayLease } from '../../lib/relay/run/handover.ts';
import type { RelayRunReport } from '../../lib/relay/run/run.ts';
import { type CfnTemplate, logicalIdAt } from '../support/aws/deployed-stack.ts';
import { type OfflineDeployment, startOfflineDeployment } from '../support/aws/offline-deployment.ts';
import { synthesizeApp, TEST_APP_CONTEXT } from '../support/aws/synthesized-app.ts';
import { kubectlBinary } from '../support/pipeline-harness.ts';
import { placesTheSeedDaemonSets } from './deployment-scenario.ts';

/** P, EVERYNODE_RELAY_RUN_SECONDS: a successor is due P − 20 s into a run. */
const RUN_SECONDS = 24;
/** The relay's timeout: a run's deadline is 15 s before it. */
const TIMEOUT_SECONDS = 40;
/** Lambda's own waits before it retries a failed asynchronous invocation: after the watchdog's turn. */
const LAMBDA_ASYNC_RETRY_DELAYS_MS = [60_000, 120_000];
/**
 * How long a joining node may wait for its daemon pods while the chain watches: a join no run
 * watched would wait for the next resync (minutes); a watched one takes a second or two, and up to
 * about 13 s when the suite's other file loads this 2-core machine, so the bound leaves room.
 */
const PLACED_WITHIN_MS = 20_000;

/** The relay with a period of {@link RUN_SECONDS} and a timeout of {@link TIMEOUT_SECONDS}. */
function shortRelayRuns(template: CfnTemplate): void {
  const relay = template.Resources[logicalIdAt(template, 'Functions/Relay/Resource')];
  const properties = relay?.Properties as {
    Timeout: number;
    Environment: { Variables: Record<string, unknown> };
  };
  properties.Timeout = TIMEOUT_SECONDS;
  properties.Environment.Variables.EVERYNODE_RELAY_RUN_SECONDS = String(RUN_SECONDS);
}

/** A run's report as its 'relay run finished' line carries it, with the line's time and trace root. */
type FinishedRun = RelayRunReport & { readonly timestamp: string; readonly xray_trace_id?: string };

/** The relay runs that ended so far, in the order they logged their end. */
function finishedRuns(world: OfflineDeployment): FinishedRun[] {
  return world.logs('relay').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    const entry = JSON.parse(line) as { message?: string } & FinishedRun;
    return entry.message === 'relay run finished' ? [entry] : [];
  });
}

/** The lease the SSM parameter holds now. */
function storedLease(world: OfflineDeployment): RelayLease | undefined {
  const [parameter] = world.stack.resourcesOfType('AWS::SSM::Parameter');
  if (!parameter) throw new Error('the stack has no SSM parameter');
  const value = world.gateway.parameters.get(world.stack.ref(parameter[0]))?.value ?? '{}';
  return (JSON.parse(value) as { lease?: RelayLease }).lease;
}

/** The moments between `from` and `to` that no run's watching interval covers. */
function unwatched(runs: readonly RelayRunReport[], from: number, to: number): Array<[number, number]> {
  const intervals = runs.flatMap((r) => (r.watching ? [r.watching] : [])).sort((a, b) => a.since - b.since);
  const gaps: Array<[number, number]> = [];
  let covered = from;
  for (const { since, until } of intervals) {
    if (since > covered) gaps.push([covered, Math.min(since, to)]);
    covered = Math.max(covered, until);
  }
  if (covered < to) gaps.push([covered, to]);
  return gaps.filter(([a, b]) => b > a);
}

/** What the relay runs did so far, for a failed expectation's message: a stalled chain shows why. */
function chainStory(world: OfflineDeployment): string {
  const runs = finishedRuns(world).map(
    (r) => `${r.timestamp} ${r.runId} ${r.trigger} ${r.outcome} successor=${r.successor ?? '-'}`,
  );
  const warnings = world.logs('relay').filter((l) => /"level":"(WARN|ERROR)"/.test(l));
  return [`relay stats ${JSON.stringify(world.functions.relay.stats)}`, ...runs, ...warnings.slice(-20)].join(
    '\n',
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const linux = { labels: { 'kubernetes.io/os': 'linux' } };

describe.runIf(kubectlBinary)('the relay’s successor chain, deployed offline', () => {
  let world: OfflineDeployment;
  /** When each node the tests joined was added, and when both daemon pods first ran on it. */
  const joined = new Map<string, { addedAt: number; placedAt?: number }>();
  let watchingPlacement: NodeJS.Timeout | undefined;

  const join = (name: string) => {
    world.sim.nodes.add(name, linux);
    joined.set(name, { addedAt: Date.now() });
  };
  const podsOn = (node: string) => world.placement().filter((p) => p.endsWith(`@${node}`)).length;
  const watchdogTick = () => {
    world.eventBridge.fireSchedule(logicalIdAt(world.stack.template, 'Triggers/RelaySchedule/Resource'));
    return Date.now();
  };
  /** The watchdog run that ended first after `firedAt`. */
  const watchdogRunAfter = (firedAt: number) =>
    world
      .until(
        'the watchdog invocation ends',
        () => finishedRuns(world).some((r) => r.trigger === 'schedule' && Date.parse(r.timestamp) >= firedAt),
        // A resumed run ends only at its hand-over, most of a period after the tick: on two busy
        // CI workers 10 s after the node was placed was not always enough.
        30_000,
      )
      .then(() => {
        const run = finishedRuns(world).find(
          (r) => r.trigger === 'schedule' && Date.parse(r.timestamp) >= firedAt,
        );
        return { ...(run as FinishedRun), tookMs: Date.parse(run?.timestamp ?? '') - firedAt };
      });
  /** Resolves once no work waits, runs or is delayed in either queue for two seconds. */
  const pipelineQuiet = async () => {
    let quietLooks = 0;
    await world.until(
      'the pipeline is quiet',
      async () => {
        const depths = await Promise.all(
          (['ingress', 'work'] as const).map((queue) =>
            world.operator.sqs.send(
              new GetQueueAttributesCommand({
                QueueUrl: world.queueUrl(queue),
                AttributeNames: [
                  'ApproximateNumberOfMessages',
                  'ApproximateNumberOfMessagesNotVisible',
                  'ApproximateNumberOfMessagesDelayed',
                ],
              }),
            ),
          ),
        );
        const busy = depths.some((d) => Object.values(d.Attributes ?? {}).some((n) => Number(n) > 0));
        quietLooks = busy ? 0 : quietLooks + 1;
        if (quietLooks < 5) await sleep(400);
        return quietLooks >= 5;
      },
      20_000,
    );
  };
  const relayInvokes = () =>
    world.gateway.calls.filter(
      (c) => c.action === 'lambda:InvokeFunction' && c.principalArn.includes(':assumed-role/'),
    );

  beforeAll(async () => {
    world = await startOfflineDeployment({
      app: await synthesizeApp(TEST_APP_CONTEXT),
      mutate: shortRelayRuns,
      asyncRetryDelaysMs: LAMBDA_ASYNC_RETRY_DELAYS_MS,
    });
    await placesTheSeedDaemonSets(world);
    watchingPlacement = setInterval(() => {
      for (const [name, node] of joined) if (!node.placedAt && podsOn(name) === 2) node.placedAt = Date.now();
    }, 100);
  }, 240_000);
  afterAll(async () => {
    clearInterval(watchingPlacement);
    await world?.stop();
  });

  it('hands the watch over run after run through Lambda Invoke, with no unwatched moment', async () => {
    const start = Date.now();
    const handedOverSince = () =>
      finishedRuns(world).filter((r) => r.outcome === 'handed-over' && (r.watching?.until ?? 0) > start);
    const leaseHolders: string[] = [];
    let tickFiredAt: number | undefined;
    // A node joins every 500 ms across the hand-overs; the watchdog ticks once meanwhile.
    for (let i = 1; handedOverSince().length < 3 && Date.now() - start < 30_000; i++) {
      join(`chain-${i}`);
      const holder = storedLease(world)?.runId;
      if (holder && leaseHolders.at(-1) !== holder) leaseHolders.push(holder);
      if (tickFiredAt === undefined && Date.now() - start > 7_000) tickFiredAt = watchdogTick();
      await sleep(500);
    }
    const chainedIn = Date.now() - start;
    expect(handedOverSince().length, chainStory(world)).toBeGreaterThanOrEqual(3);

    // The watchdog's invocation found the lease fresh and exited without watching.
    expect(tickFiredAt).toBeDefined();
    const tick = await watchdogRunAfter(tickFiredAt ?? 0);
    expect(tick).toMatchObject({ outcome: 'not-needed', watchedMillis: 0, successorsInvoked: 0 });
    expect(tick.watching).toBeUndefined();
    // It exited at once: a run that watched would last most of its 24 s period. A fresh function
    // process on two busy cores takes seconds to start, so the bound is a third of that period.
    expect(tick.tookMs).toBeLessThan(8_000);

    // Each joined node got both daemon pods within seconds, whichever run watched when it joined.
    await world.until(
      'every joined node runs both daemon pods',
      () => [...joined.values()].every((n) => n.placedAt !== undefined),
      PLACED_WITHIN_MS + 2_000,
    );
    const waits = [...joined.values()].map((n) => (n.placedAt ?? Infinity) - n.addedAt);
    expect(Math.max(...waits)).toBeLessThan(PLACED_WITHIN_MS);

    // Every run that watched, from the deployment's first (the schedule's) on, handed over to the
    // successor it invoked; each successor ran as a 'successor' invocation and took the lease.
    const runs = finishedRuns(world);
    const watched = runs.filter((r) => r.outcome !== 'not-needed');
    expect(watched[0]?.trigger).toBe('schedule');
    expect(watched.map((r) => r.outcome)).toEqual(watched.map(() => 'handed-over'));
    for (const [i, run] of watched.entries()) {
      expect(run.successorsInvoked).toBe(1);
      const next = watched[i + 1];
      if (next) expect(next).toMatchObject({ runId: run.successor, trigger: 'successor', relists: 0 });
    }
    // One trace from the schedule's event on: each successor continues its predecessor's, whose
    // Lineage Lambda's recursive loop detection counts (the relay's RecursiveLoop is Allow).
    expect(new Set(watched.map((r) => r.xray_trace_id)).size).toBe(1);
    expect(watched[0]?.xray_trace_id).toMatch(/^1-[0-9a-f]{8}-[0-9a-f]{24}$/);
    const chain = [...watched.map((r) => r.runId), watched.at(-1)?.successor];
    expect(leaseHolders.every((holder) => chain.includes(holder))).toBe(true);
    expect(leaseHolders.length).toBeGreaterThanOrEqual(3);

    // No moment unwatched from the first run's start to the last finished run's end: the runs overlap.
    const first = watched[0]?.watching?.since ?? 0;
    const last = watched.at(-1)?.watching?.until ?? 0;
    expect(unwatched(watched, first, last)).toEqual([]);
    const overlaps = watched
      .slice(1)
      .map((run, i) => (watched[i]?.watching?.until ?? 0) - (run.watching?.since ?? 0));

    // Each successor was invoked by the relay's role through the endpoint's Lambda Invoke of its own
    // ARN, allowed by the template's policy; nothing failed on the way.
    const invokes = relayInvokes();
    expect(invokes.length).toBeGreaterThanOrEqual(watched.length);
    for (const call of invokes) {
      expect(call).toMatchObject({ resource: world.functions.relay.arn, allowed: true });
      expect(call.principalArn).toMatch(/:assumed-role\/Everynode-FunctionsRelayRole[0-9A-F]{8}\//);
    }
    expect(world.gateway.calls.filter((c) => !c.allowed)).toEqual([]);
    expect(world.gateway.failures).toEqual([]);
    expect(world.eventBridge.deliveryFailures).toEqual([]);
    expect(world.functions.relay.stats).toMatchObject({ errors: 0, asyncFailures: 0 });
    expect(world.logs('relay').filter((l) => /"level":"(WARN|ERROR)"/.test(l))).toEqual([]);
    console.info(
      `relay chain: ${handedOverSince().length} hand-overs in ${chainedIn} ms; runs watched ${watched
        .map((r) => r.watchedMillis)
        .join(', ')} ms; overlaps ${overlaps.join(', ')} ms; watchdog tick ${tick.tookMs} ms; ` +
        `${waits.length} nodes placed in ${Math.min(...waits)}–${Math.max(...waits)} ms`,
    );
  }, 90_000);

  it('after a crash the lease goes stale and the next watchdog tick starts a run that resumes', async () => {
    // Crash the run holding the lease shortly after it took over (its successor is not due yet).
    const handedOver = () => finishedRuns(world).filter((r) => r.outcome === 'handed-over').length;
    const before = handedOver();
    await world
      .until('the next hand-over', () => handedOver() > before, 15_000)
      .catch((error: unknown) => {
        throw new Error(`${String(error)}\n${chainStory(world)}`);
      });
    await sleep(300);
    const relay = world.functions.relay;
    const { invocations, errors } = relay.stats;
    const holder = storedLease(world);
    const crashedAt = Date.now();
    expect(relay.crash()).toBeGreaterThanOrEqual(1);
    await world.until('the crashed invocation ends', () => relay.stats.errors > errors, 5_000);
    expect(relay.stats.errors).toBe(errors + 1);
    expect(
      world.logs('relay').some((l) => /asynchronous invocation failed: Runtime\.ExitError/.test(l)),
    ).toBe(true);

    // A tick while the dead run's lease is fresh exits at once.
    await sleep(1_000);
    const early = await watchdogRunAfter(watchdogTick());
    expect(early).toMatchObject({ outcome: 'not-needed', watchedMillis: 0 });
    expect(storedLease(world)).toEqual(holder);

    // Nobody watches: once the work left from before has drained, a node joins and gets nothing
    // until the lease is stale (20 s after the last heartbeat) and the next tick starts a run.
    await pipelineQuiet();
    join('unwatched-1');
    await world.until(
      'the crashed run’s lease is stale',
      () => Date.now() - Date.parse(storedLease(world)?.heartbeatAt ?? '') >= RELAY_LEASE_FRESH_MS,
      RELAY_LEASE_FRESH_MS + 2_000,
    );
    const staleAfter = Date.now() - crashedAt;
    expect(relay.stats.invocations).toBe(invocations + 1);
    expect(podsOn('unwatched-1')).toBe(0);
    const firedAt = watchdogTick();
    await world.until('unwatched-1 runs both daemon pods', () => podsOn('unwatched-1') === 2, 10_000);
    const placedAfter = Date.now() - firedAt;

    // That run resumed from the checkpoint (no relist), then handed over as the chain does.
    const resumed = await watchdogRunAfter(firedAt);
    expect(resumed).toMatchObject({ trigger: 'schedule', outcome: 'handed-over', relists: 0 });
    expect(resumed.xray_trace_id).not.toBe(finishedRuns(world)[0]?.xray_trace_id);
    expect(resumed.watching?.since).toBeLessThan(joined.get('unwatched-1')?.placedAt ?? 0);
    expect(resumed.watching?.since).toBeGreaterThan(firedAt);
    expect(world.gateway.failures).toEqual([]);
    console.info(
      `relay crash: lease stale ${staleAfter} ms after the crash; tick while fresh ${early.tookMs} ms; ` +
        `node placed ${placedAfter} ms after the next tick`,
    );
  }, 90_000);
});
