/**
 * An API server outage in the middle of a rolling update, as long as asked:
 * `npm run bench -- api-outage [--outage-seconds 300] [--nodes 40]`.
 *
 * The local pipeline rolls an apps/v1 DaemonSet over `--nodes` simulated nodes (`maxUnavailable`
 * 1, so the rollout is in its middle when the outage starts); then every API request answers 503
 * for `--outage-seconds`, watches included. Transient failures are requeued with a growing delay
 * (1 s doubling to 300 s) for as long as the outage lasts (docs/design.md, 13. Failures: retries,
 * backoff and the DLQ), so it must end with the work DLQ empty and the rollout complete. Printed:
 * the DLQs, the requeues sent during the outage and the most failures in a row, and how long after
 * the API server came back the rollout converged (bounded by the backoff of the last failure). The
 * requeue delays are real seconds (SQS DelaySeconds on fauxqs), so a five-minute outage takes
 * about ten minutes to run. The suite runs the same scenario with a 24 s outage
 * (test/e2e/pipeline-api-outage.test.ts).
 */
import { parseArgs } from 'node:util';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { V1DaemonSet } from '@kubernetes/client-node';
import type { KubeObject } from '../../lib/sim/storage/store.ts';
import { aDaemonSet, creatableDaemonSet } from '../support/builders.ts';
import { captureFailureRequeues } from '../support/failure-requeues.ts';
import { startPipelineWorld } from '../support/pipeline-harness.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const { values } = parseArgs({
  options: {
    'outage-seconds': { type: 'string', default: '300' },
    nodes: { type: 'string', default: '40' },
    /** Writes the pipeline's log (INFO and up) to stderr, each line with its time since the API came back. */
    log: { type: 'boolean', default: false },
    /**
     * Keeps the open watches open through the outage (an API server answering 503 to new requests
     * while it streams): nothing then tells the relay the outage is over. By default every watch is
     * closed when it begins, as an API server that goes down closes its connections.
     */
    'keep-watches': { type: 'boolean', default: false },
  },
});
const OUTAGE_MS = Number(values['outage-seconds']) * 1000;
const NODES = Number(values.nodes);
const [OLD_IMAGE, NEW_IMAGE] = ['busybox:1.36', 'busybox:1.37'];

async function main(): Promise<void> {
  let backAt: number | undefined;
  const log = (line: string) => {
    const at = backAt === undefined ? '' : `+${((Date.now() - backAt) / 1000).toFixed(1)}s `;
    process.stderr.write(`${at}${line}\n`);
  };
  const world = await startPipelineWorld({
    managedKind: 'apps/v1',
    nodes: NODES,
    maxReceiveCount: 5,
    ...(values.log ? { log } : {}),
  });
  try {
    const requeues = captureFailureRequeues(world.pipeline.queues.sqs, world.pipeline.queues.urls.ingress);
    const agentPods = () => world.pods('default').filter((p) => p.owner === 'agent');
    const updated = () => agentPods().filter((p) => p.image === NEW_IMAGE && p.phase === 'Running');
    const strategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } };
    const ds = aDaemonSet('agent', { image: OLD_IMAGE, updateStrategy: strategy, minReadySeconds: 2 });
    world.sim.store.create('apps/daemonsets', creatableDaemonSet(ds, 'apps/v1'));
    await world.until('agent runs on every node', () => agentPods().length === NODES, 120_000);
    await world.quiet(60_000);

    const stored = world.sim.store.get('apps/daemonsets', 'default', 'agent') as unknown as V1DaemonSet;
    const container = stored.spec?.template.spec?.containers[0];
    if (container) container.image = NEW_IMAGE;
    world.sim.store.update('apps/daemonsets', stored as unknown as KubeObject);
    await world.until('the rollout has replaced some pods', () => updated().length >= 2, 60_000);
    const before = updated().length;

    world.sim.faults.setErrorRate('*', { status: 503, rate: 1, retryAfterSeconds: 1 });
    if (!values['keep-watches']) world.sim.faults.dropWatches();
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
    world.sim.faults.setErrorRate('*', { status: 503, rate: 0 });
    backAt = Date.now();
    const during = requeues.length;
    const dlqAtEnd = (await world.pipeline.queueDepths()).workDlq;

    const done = () => {
      const status = (world.sim.store.get('apps/daemonsets', 'default', 'agent') as unknown as V1DaemonSet)
        .status;
      return (
        updated().length === NODES &&
        agentPods().length === NODES &&
        status?.updatedNumberScheduled === NODES &&
        status.numberAvailable === NODES
      );
    };
    await world.until('the rollout is done and counted', done, OUTAGE_MS + 600_000);
    const convergedSeconds = (Date.now() - (backAt ?? Date.now())) / 1000;
    const depths = await world.pipeline.queueDepths();
    const mostFailures = Math.max(0, ...requeues.map((r) => r.failures));
    const { sqs, urls } = world.pipeline.queues;
    const letters =
      depths.ingressDlq > 0
        ? ((await sqs.send(new ReceiveMessageCommand({ QueueUrl: urls.ingressDlq, MaxNumberOfMessages: 3 })))
            .Messages ?? [])
        : [];
    for (const letter of letters)
      process.stdout.write(`  ingress DLQ message: ${letter.Body?.slice(0, 300)}\n`);
    const longestDelay = Math.max(0, ...requeues.map((r) => r.delaySeconds));
    process.stdout.write(
      `api-outage: ${OUTAGE_MS / 1000} s of 503 on every request, ${values['keep-watches'] ? 'open watches kept' : 'every watch closed'}, mid-rollout (${before} of ${NODES} nodes updated when it began)\n` +
        `  work DLQ: ${dlqAtEnd} when the API server came back, ${depths.workDlq} at the end (goal 0); ingress DLQ ${depths.ingressDlq}\n` +
        `  requeues after failures during the outage: ${during}; most failures in a row ${mostFailures}; longest delay ${longestDelay.toFixed(0)} s\n` +
        `  rollout done and counted ${convergedSeconds.toFixed(1)} s after the API server came back; ${NODES} of ${NODES} nodes on the new revision\n`,
    );
  } finally {
    await world.stop();
  }
}

await main();
