import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FunctionAwsCalls } from '../../lib/config/function-aws-calls.ts';
import { RECONCILE_AWS_CALLS } from '../../lib/reconcile/setup/reconcile-aws-calls.ts';
import { RELAY_AWS_CALLS } from '../../lib/relay/setup/relay-aws-calls.ts';
import { ROUTER_AWS_CALLS } from '../../lib/router/router-aws-calls.ts';
import { importsOf, repoRoot } from '../architecture/source-imports.ts';

/**
 * How the sources name an AWS API operation: the AWS SDK v3 command they send
 * (`new SendMessageBatchCommand(`), or the `Action` of a query they presign (the EKS token).
 */
const operationPattern = /new (\w+)Command\(|Action: '(\w+)'/g;

/** The modules `entry` reaches through relative imports, itself included. */
function reachableFrom(entry: string): string[] {
  const seen = new Set<string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    pending.push(...importsOf(file));
  }
  return [...seen];
}

/** Each operation named in the modules `entry` reaches, with the module naming it. */
function operationsReachableFrom(entry: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of reachableFrom(entry))
    for (const match of readFileSync(join(repoRoot, file), 'utf8').matchAll(operationPattern))
      found.set(match[1] ?? match[2] ?? '', file);
  return found;
}

const cases: {
  name: string;
  table: FunctionAwsCalls;
  /** Operations a reached module names but the function never calls, with the reason. */
  reachedNotCalled: Record<string, string>;
}[] = [
  { name: 'relay', table: RELAY_AWS_CALLS, reachedNotCalled: {} },
  {
    name: 'router',
    table: ROUTER_AWS_CALLS,
    reachedNotCalled: {
      SendMessage: 'sqs-senders.ts holds the reconcile DLQ sender too; the router uses only sqsWorkSender',
    },
  },
  { name: 'reconcile', table: RECONCILE_AWS_CALLS, reachedNotCalled: {} },
];

describe('the tables of AWS calls', () => {
  it.each(cases)('list every operation the $name function reaches, and no other', (c) => {
    const reached = operationsReachableFrom(`functions/${c.name}/index.ts`);
    for (const operation of Object.keys(c.reachedNotCalled))
      expect(reached.delete(operation), `${operation} is still reached`).toBe(true);
    const listed = new Set(c.table.calls.map((call) => call.operation));
    expect([...listed].sort()).toEqual([...reached.keys()].sort());
  });

  it('finds operations where the sources name them', () => {
    const reached = operationsReachableFrom('functions/router/index.ts');
    expect(reached.get('DescribeInstances')).toBe('lib/router/ec2-private-dns.ts');
    expect(reached.get('SendMessageBatch')).toBe('lib/queue/send-messages.ts');
    expect(reached.get('GetCallerIdentity')).toBe('lib/kube/connection/eks-token.ts');
  });
});
