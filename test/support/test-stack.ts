/**
 * The stack the infra tests assert on: everynode for a cluster `prod-eks` with the app's default
 * settings, in account 111122223333 / eu-west-1, bundling skipped (test/infra/cdk-synth.test.ts
 * bundles for real); the assertions are on the template.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Duration } from 'aws-cdk-lib';
import { type EverynodeSettings, EverynodeStack } from '../../infra/everynode-stack.ts';

/** The settings `infra/app.ts` applies by default, for an everynode.dev/v1 cluster `prod-eks`. */
export const TEST_STACK_SETTINGS: EverynodeSettings = {
  clusterName: 'prod-eks',
  managedKind: 'everynode.dev/v1',
  relayEvery: Duration.minutes(5),
  resyncEvery: Duration.minutes(60),
  archiveRetention: Duration.days(14),
  apiQps: 50,
  reconcileMaxConcurrency: 20,
  routerMaxConcurrency: 5,
  maxReceiveCount: 5,
  relayMemoryMb: 1216,
};

type Json = Record<string, unknown>;

/** Without feature flags, and with those `npx cdk synth` applies (cdk.json). */
export const STACK_CONTEXTS: readonly { name: string; context: Json }[] = [
  { name: 'without feature flags', context: {} },
  {
    name: 'with the feature flags of cdk.json',
    context: JSON.parse(readFileSync(join(import.meta.dirname, '../../cdk.json'), 'utf8')).context,
  },
];

/** The test stack built in a new app with `context`. */
export function aTestStack(context: Json = {}): EverynodeStack {
  const app = new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } });
  return new EverynodeStack(app, 'Everynode', {
    env: { account: '111122223333', region: 'eu-west-1' },
    settings: TEST_STACK_SETTINGS,
  });
}
