/**
 * The EventBridge part of a deployed template: its buses (`AWS::Events::EventBus`, plus the account's
 * `default` bus) and rules (`AWS::Events::Rule`) with their targets, resolved to physical names and
 * ARNs. Anything the local EventBridge (event-bridge.ts) would not honour — a target it cannot
 * deliver to, a dead-letter queue, an invalid pattern — throws here, when the harness starts.
 */
import type { DeployedStack } from './deployed-stack.ts';
import { compileEventPattern, type EventMatcher } from './event-pattern.ts';
import type { TargetInputSettings } from './event-target-input.ts';

/** A template the local EventBridge cannot run as AWS would. */
export class EventBridgeSetupError extends Error {
  override readonly name = 'EventBridgeSetupError';
}

/** EventBridge's default retry policy: 185 retries within 24 hours. */
export const DEFAULT_RETRY_ATTEMPTS = 185;
export const DEFAULT_MAX_EVENT_AGE_SECONDS = 86_400;

/** One target of a rule. */
export interface EventBridgeTarget {
  readonly id: string;
  readonly arn: string;
  /** What the ARN names: a queue, a function or another event bus. */
  readonly kind: 'sqs' | 'lambda' | 'event-bus';
  /** The role EventBridge assumes to deliver (required for event-bus targets). */
  readonly roleArn?: string;
  readonly input: TargetInputSettings;
  /** Retries after the first attempt (`RetryPolicy.MaximumRetryAttempts`). */
  readonly maximumRetryAttempts: number;
  readonly maximumEventAgeSeconds: number;
  /** `SqsParameters.MessageGroupId`, required for a FIFO queue target. */
  readonly messageGroupId?: string;
}

/** One rule, resolved. */
export interface EventBridgeRule {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  /** The name of the bus the rule is on. */
  readonly busName: string;
  readonly eventPattern?: Readonly<Record<string, unknown>>;
  readonly matches?: EventMatcher;
  readonly scheduleExpression?: string;
  /** `State` is `ENABLED` (the default) or `ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS`. */
  readonly enabled: boolean;
  readonly targets: readonly EventBridgeTarget[];
}

interface CfnTarget extends TargetInputSettings {
  readonly Id: string;
  readonly Arn: string;
  readonly RoleArn?: string;
  readonly RetryPolicy?: {
    readonly MaximumRetryAttempts?: number;
    readonly MaximumEventAgeInSeconds?: number;
  };
  readonly SqsParameters?: { readonly MessageGroupId?: string };
}

interface CfnRule {
  readonly Name?: string;
  readonly EventBusName?: string;
  readonly EventPattern?: Record<string, unknown> | string;
  readonly ScheduleExpression?: string;
  readonly State?: string;
  readonly Targets?: readonly CfnTarget[];
}

const knownTargetKeys = new Set([
  'Id',
  'Arn',
  'RoleArn',
  'Input',
  'InputPath',
  'InputTransformer',
  'RetryPolicy',
  'SqsParameters',
]);

/** The bus name an `EventBusName` (a name or an ARN) stands for. */
export function busNameOf(nameOrArn: string | undefined): string {
  if (nameOrArn === undefined || nameOrArn === '') return 'default';
  return nameOrArn.startsWith('arn:') ? (nameOrArn.split(':event-bus/')[1] ?? nameOrArn) : nameOrArn;
}

/** `name → ARN` of the template's buses and the `default` bus. */
export function readEventBuses(stack: DeployedStack): Map<string, string> {
  const buses = new Map<string, string>([
    ['default', `arn:aws:events:${stack.region}:${stack.account}:event-bus/default`],
  ]);
  for (const [logicalId] of stack.resourcesOfType('AWS::Events::EventBus')) {
    buses.set(stack.ref(logicalId), stack.attribute(logicalId, 'Arn'));
  }
  return buses;
}

function targetOf(rule: string, target: CfnTarget, busArns: ReadonlySet<string>): EventBridgeTarget {
  const unknown = Object.keys(target).filter((key) => !knownTargetKeys.has(key));
  if (unknown.length > 0) {
    throw new EventBridgeSetupError(
      `rule ${rule} target ${target.Id}: the harness does not honour ${unknown}`,
    );
  }
  const arn = target.Arn;
  const kind = arn.startsWith('arn:aws:sqs:')
    ? 'sqs'
    : arn.startsWith('arn:aws:lambda:')
      ? 'lambda'
      : arn.includes(':event-bus/')
        ? 'event-bus'
        : undefined;
  if (!kind) throw new EventBridgeSetupError(`rule ${rule}: the harness does not deliver to ${arn}`);
  if (kind === 'event-bus' && !busArns.has(arn)) {
    throw new EventBridgeSetupError(`rule ${rule}: the event bus ${arn} is not in the template`);
  }
  const transforms = target.Input ?? target.InputPath ?? target.InputTransformer;
  if (kind === 'event-bus' && transforms !== undefined) {
    throw new EventBridgeSetupError(`rule ${rule}: the harness does not transform input for a bus target`);
  }
  const messageGroupId = target.SqsParameters?.MessageGroupId;
  if (kind === 'sqs' && arn.endsWith('.fifo') && messageGroupId === undefined) {
    throw new EventBridgeSetupError(
      `rule ${rule}: FIFO queue target ${arn} needs SqsParameters.MessageGroupId`,
    );
  }
  const { Input, InputPath, InputTransformer } = target;
  return {
    id: target.Id,
    arn,
    kind,
    ...(target.RoleArn ? { roleArn: target.RoleArn } : {}),
    input: { Input, InputPath, InputTransformer },
    maximumRetryAttempts: target.RetryPolicy?.MaximumRetryAttempts ?? DEFAULT_RETRY_ATTEMPTS,
    maximumEventAgeSeconds: target.RetryPolicy?.MaximumEventAgeInSeconds ?? DEFAULT_MAX_EVENT_AGE_SECONDS,
    ...(messageGroupId === undefined ? {} : { messageGroupId }),
  };
}

/** Every `AWS::Events::Rule` of the template, resolved and checked. */
export function readEventRules(stack: DeployedStack, buses: ReadonlyMap<string, string>): EventBridgeRule[] {
  const busArns = new Set(buses.values());
  return stack.resourcesOfType('AWS::Events::Rule').map(([logicalId]) => {
    const props = stack.properties<CfnRule>(logicalId);
    const busName = busNameOf(props.EventBusName);
    if (!buses.has(busName)) throw new EventBridgeSetupError(`rule ${logicalId}: no event bus ${busName}`);
    if (props.ScheduleExpression !== undefined && busName !== 'default') {
      throw new EventBridgeSetupError(`rule ${logicalId}: scheduled rules exist only on the default bus`);
    }
    const pattern =
      typeof props.EventPattern === 'string' ? JSON.parse(props.EventPattern) : props.EventPattern;
    const state = props.State ?? 'ENABLED';
    return {
      logicalId,
      name: stack.ref(logicalId),
      arn: stack.attribute(logicalId, 'Arn'),
      busName,
      ...(pattern === undefined ? {} : { eventPattern: pattern, matches: compileEventPattern(pattern) }),
      ...(props.ScheduleExpression === undefined ? {} : { scheduleExpression: props.ScheduleExpression }),
      enabled: state === 'ENABLED' || state === 'ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS',
      targets: (props.Targets ?? []).map((target) => targetOf(logicalId, target, busArns)),
    };
  });
}
