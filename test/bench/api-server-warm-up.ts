/**
 * Warms the simulated API server's write path for pods and events before a benchmark times
 * anything. The benchmarks write their DaemonSets' pods into the cluster's store directly, so its
 * HTTP create, delete and watch fan-out code has never run when the first timed request comes;
 * a real API server has served such requests for as long as it has been up. Without this, the
 * first timed step would measure the simulator's compilation of that code, not the reconciler.
 * The requests go out under their own user agent, so no reconciler figure counts them.
 */
import type { V1DaemonSet } from '@kubernetes/client-node';
import { daemonPodFor } from '../../lib/core/daemon-pod.ts';
import { eventFor } from '../../lib/kube/operations/event-for.ts';

const USER_AGENT = 'everynode-bench-warm-up';

async function send(url: string, method: string, path: string, body?: object): Promise<void> {
  const answer = await fetch(`${url}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', 'User-Agent': USER_AGENT },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  await answer.arrayBuffer();
  if (!answer.ok) throw new Error(`warm-up ${method} ${path}: HTTP ${answer.status}`);
}

/**
 * `rounds` times, creates `perRound` pods shaped as `ds`'s daemon pods on `node` (unowned and
 * unlabelled, so no controller takes them) and an Event for each, then deletes them all.
 */
export async function warmUpApiServer(
  url: string,
  ds: Readonly<V1DaemonSet>,
  node: string,
  rounds = 5,
  perRound = 10,
): Promise<void> {
  const namespace = ds.metadata?.namespace ?? 'default';
  for (let round = 0; round < rounds; round++) {
    const names = Array.from({ length: perRound }, (_, i) => `warm-up-${round}-${i}`);
    await Promise.all(
      names.map(async (name) => {
        const pod = daemonPodFor(ds, node, 'warm-up');
        pod.metadata = { name, namespace };
        const event = eventFor({
          involvedObject: { apiVersion: 'v1', kind: 'Pod', name, namespace, uid: name, resourceVersion: '' },
          type: 'Normal',
          reason: 'WarmUp',
          message: `Warming up the API server with pod ${name}`,
          now: new Date(),
        });
        await send(url, 'POST', `/api/v1/namespaces/${namespace}/pods`, pod);
        await send(url, 'POST', `/api/v1/namespaces/${namespace}/events`, event);
      }),
    );
    await Promise.all(
      names.map((name) =>
        send(url, 'DELETE', `/api/v1/namespaces/${namespace}/pods/${name}`, { gracePeriodSeconds: 0 }),
      ),
    );
  }
}
