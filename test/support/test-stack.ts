/**
 * The stack the infra tests assert on: the Everynode construct for a cluster `prod-eks` with the
 * default settings, alone in a stack, in account 111122223333 / eu-west-1, bundling skipped (test/infra/cdk-synth.test.ts
 * bundles for real); the assertions are on the template.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Everynode } from '../../infra/everynode.ts';
import type { EverynodeProps } from '../../infra/everynode-props.ts';

/** The props of the test stack's construct: the defaults, for an everynode.dev/v1 cluster `prod-eks`. */
export const TEST_PROPS: EverynodeProps = { clusterName: 'prod-eks' };

/** A stack holding only the construct, as a user's stack would. */
export interface TestStack {
  readonly app: App;
  readonly stack: Stack;
  readonly everynode: Everynode;
}

type Json = Record<string, unknown>;

/** Without feature flags, and with those `npx cdk synth` applies (cdk.json). */
export const STACK_CONTEXTS: readonly { name: string; context: Json }[] = [
  { name: 'without feature flags', context: {} },
  {
    name: 'with the feature flags of cdk.json',
    context: JSON.parse(readFileSync(join(import.meta.dirname, '../../cdk.json'), 'utf8')).context,
  },
];

/** The test stack built in a new app with `context`, its construct with `props`. */
export function aTestStack(context: Json = {}, props: EverynodeProps = TEST_PROPS): TestStack {
  const app = new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Everynode', { env: { account: '111122223333', region: 'eu-west-1' } });
  // `Default`, as infra/app.ts: the id CDK leaves out of logical ids.
  return { app, stack, everynode: new Everynode(stack, 'Default', props) };
}
