/**
 * What the deployment tests share: the template `cdk synth` makes (synthesized once per source
 * state, see synthesized-app.ts), and finding its resources by the construct path CDK gives them
 * rather than by the hash it appends, so the tests survive a construct's hash changing.
 */
import type { CfnTemplate, DeployedStack } from '../support/aws/deployed-stack.ts';
import { synthesizeApp } from '../support/aws/synthesized-app.ts';

/** The account and region the tests deploy into (the template pins us-east-1 in some ARNs). */
export const TEST_TARGET = { account: '111122223333', region: 'us-east-1', stackName: 'Everynode' } as const;

/** The stack template of `cdk synth -c clusterName=ci-cluster`. */
export async function synthesizedTemplate(): Promise<CfnTemplate> {
  return (await synthesizeApp({ clusterName: 'ci-cluster' })).template;
}

/**
 * The one logical id of `type` made of the construct path `path` (e.g. `QueuesWork`) and CDK's
 * 8-character hash; throws when there is none or several.
 */
export function logicalIdOf(stack: DeployedStack, path: string, type: string): string {
  const pattern = new RegExp(`^${path}[0-9A-F]{8}$`);
  const matches = stack.resourcesOfType(type).filter(([logicalId]) => pattern.test(logicalId));
  const [only, ...others] = matches;
  if (!only || others.length > 0) {
    throw new Error(
      `${matches.length} ${type} resources are ${path}<hash>: ${matches.map(([id]) => id).join(', ')}`,
    );
  }
  return only[0];
}
