/**
 * Each defect below is one edit of the infrastructure code away; deployed offline, each makes a named
 * step of the scenario fail (deployment-scenario.ts), so none of them could reach a user's account
 * through a green `npm test`. Every world is deployed from the same synthesized assembly with one
 * change to its template.
 */
import { describe, expect, it } from 'vitest';
import type { CfnTemplate } from '../support/aws/deployed-stack.ts';
import { type OfflineDeployment, startOfflineDeployment } from '../support/aws/offline-deployment.ts';
import { synthesizeApp, TEST_APP_CONTEXT } from '../support/aws/synthesized-app.ts';
import { kubectlBinary } from '../support/pipeline-harness.ts';
import {
  keepsAFailedRecordForRedelivery,
  placesTheSeedDaemonSets,
  rollsOutAnImageChange,
} from './deployment-scenario.ts';
import {
  changeEventPattern,
  dropAction,
  dropEnvironmentVariable,
  dropFunctionResponseTypes,
} from './template-mutations.ts';

/** How long a step may take before it counts as broken (it takes a few seconds when it works). */
const brokenAfter = { timeoutMs: 12_000 };

/** Deploys the app with `mutate` applied to its template, runs `check` on it, then stops it. */
async function withDefect(
  mutate: (template: CfnTemplate) => void,
  check: (world: OfflineDeployment) => Promise<void>,
): Promise<void> {
  const world = await startOfflineDeployment({ app: await synthesizeApp(TEST_APP_CONTEXT), mutate });
  try {
    await check(world);
  } finally {
    await world.stop();
  }
}

// Concurrent: each world mostly waits for a step that never comes.
describe.runIf(kubectlBinary).concurrent('a defect in the infrastructure code fails a named step', () => {
  it("the router's role without sqs:SendMessage on the ingress queue: the rollout never completes", async () => {
    await withDefect(
      (t) =>
        dropAction(
          t,
          'Functions/RouterRole/DefaultPolicy/Resource',
          'sqs:SendMessage',
          'Queues/Ingress/Resource',
        ),
      async (w) => {
        await placesTheSeedDaemonSets(w, brokenAfter);
        await expect(rollsOutAnImageChange(w, brokenAfter)).rejects.toThrow();
        expect(w.gateway.calls.some((c) => !c.allowed && c.action === 'sqs:SendMessage')).toBe(true);
      },
    );
  }, 120_000);

  it('the reconcile function without EVERYNODE_WORK_DLQ_URL: nothing is placed', async () => {
    await withDefect(
      (t) => dropEnvironmentVariable(t, 'Functions/Reconcile/Resource', 'EVERYNODE_WORK_DLQ_URL'),
      async (w) => {
        await expect(placesTheSeedDaemonSets(w, brokenAfter)).rejects.toThrow(
          /the seed DaemonSets are placed/,
        );
        expect(w.logs('reconcile').join('\n')).toMatch(/EVERYNODE_WORK_DLQ_URL/);
      },
    );
  }, 120_000);

  it("the ingress rule's pattern missing the relay's events: nothing is placed", async () => {
    await withDefect(
      (t) =>
        changeEventPattern(t, 'Triggers/ToIngress/Resource', (pattern) => ({
          ...pattern,
          source: ['everynode.relays', 'aws.ec2'],
        })),
      async (w) => {
        await expect(placesTheSeedDaemonSets(w, brokenAfter)).rejects.toThrow(
          /the seed DaemonSets are placed/,
        );
        expect(w.eventBridge.unmatched).toBeGreaterThan(0);
      },
    );
  }, 120_000);

  it('the work mapping without ReportBatchItemFailures: a failed record is deleted with its batch', async () => {
    await withDefect(
      (t) => dropFunctionResponseTypes(t, 'Functions/Reconcile/WorkEventSource/Resource'),
      async (w) => {
        await placesTheSeedDaemonSets(w);
        await expect(keepsAFailedRecordForRedelivery(w, brokenAfter)).rejects.toThrow(/its work is lost/);
      },
    );
  }, 120_000);
});
