/**
 * `npx tsx test/bench/rollout-step-profile.ts [--nodes 20000] [--pods 0] [--runs 4] [--cpu-profile FILE]`:
 * where one DaemonSet step's time goes at scale, without the pipeline. A simulated cluster of
 * `--nodes` nodes, a new DaemonSet with its first revision and `--pods` of its pods already made,
 * and `--runs` DaemonSet steps in a row (the first fans out, the later ones find the fan-out
 * outstanding), each printed with its wall time and the time its API calls took. The cluster runs
 * in the same thread, so a LIST's time is the server's and the client's together; `--cpu-profile`
 * writes a V8 profile of the runs (cpu-profile.ts). Queues are replaced by counters: the step's
 * sends cost nothing here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Logger } from '@aws-lambda-powertools/logger';
import type { V1Pod } from '@kubernetes/client-node';
import { controllerRevisionFor, revisionHashOf } from '../../lib/core/controller-revision.ts';
import { daemonPodFor } from '../../lib/core/daemon-pod.ts';
import type { KubePort } from '../../lib/kube/kube-port.ts';
import type { DaemonSetMessage } from '../../lib/messages/work-message.ts';
import { reconcileDaemonSet } from '../../lib/reconcile/daemon-set-step/daemon-set-step.ts';
import type { ReconcileDeps } from '../../lib/reconcile/deps/reconcile-deps.ts';
import { buildReconcileDeps } from '../../lib/reconcile/setup/deps-for-config.ts';
import { startSimCluster } from '../../lib/sim/start-sim-cluster.ts';
import type { KubeObject } from '../../lib/sim/storage/store.ts';
import { aDaemonSet } from '../support/builders.ts';
import { createDaemonSet } from './bench-cluster.ts';
import { startCpuProfile } from './cpu-profile.ts';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '20000' },
    pods: { type: 'string', default: '0' },
    runs: { type: 'string', default: '4' },
    'cpu-profile': { type: 'string' },
  },
});

const dir = mkdtempSync(join(tmpdir(), 'everynode-step-profile-'));
const kubeconfig = join(dir, 'kubeconfig');
const sim = await startSimCluster({
  nodes: Number(values.nodes),
  kubeconfigPath: kubeconfig,
  watchWindow: 200_000,
});
try {
  const ds = createDaemonSet(sim, aDaemonSet('agent', { podSpec: { terminationGracePeriodSeconds: 0 } }));
  const revision = controllerRevisionFor(ds, 1);
  sim.store.create('apps/controllerrevisions', JSON.parse(JSON.stringify(revision)) as KubeObject);
  const hash = revisionHashOf(revision);
  for (const node of sim.nodes.names().slice(0, Number(values.pods))) {
    const pod: V1Pod = daemonPodFor(ds, node, hash);
    if (pod.spec) pod.spec.nodeName = node;
    sim.store.create('pods', JSON.parse(JSON.stringify(pod)) as KubeObject);
  }
  const base = buildReconcileDeps({
    config: {
      managedKind: 'apps/v1',
      cluster: { type: 'kubeconfig', path: kubeconfig },
      apiQps: 10_000,
      apiBurst: 10_000,
      queues: { work: 'unused', workDlq: 'unused', ingress: 'unused' },
      sqsEndpoint: 'http://127.0.0.1:9',
    },
    logger: new Logger({ logLevel: 'SILENT' }),
  });
  const callMillis = new Map<string, number>();
  const kube = new Proxy(base.ports.kube, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const started = performance.now();
        try {
          return await value.apply(target, args);
        } finally {
          const name = String(property);
          callMillis.set(name, (callMillis.get(name) ?? 0) + performance.now() - started);
        }
      };
    },
  }) as KubePort;
  let sent = 0;
  const deps: ReconcileDeps = {
    ...base,
    ports: {
      ...base.ports,
      kube,
      workQueue: {
        send: async (work) => {
          sent += work.length;
        },
      },
      requeue: { requeue: async () => undefined },
    },
  };
  const message: DaemonSetMessage = {
    v: 1,
    kind: 'daemonset',
    cause: { type: 'watch', event: 'ADDED', kind: 'DaemonSet', resourceVersion: '1' },
    daemonSet: { namespace: 'default', name: 'agent' },
  };
  const profile = await startCpuProfile(values['cpu-profile']);
  for (let run = 1; run <= Number(values.runs); run++) {
    callMillis.clear();
    const started = performance.now();
    const report = await reconcileDaemonSet(deps, message, Date.now());
    const calls = [...callMillis].map(([name, ms]) => `${name} ${ms.toFixed(0)} ms`).join(', ');
    console.log(
      `step ${run}: ${(performance.now() - started).toFixed(0)} ms, fanned out ${report.fannedOut} (${sent} in all); ${calls}`,
    );
  }
  await profile.stop();
} finally {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
}
