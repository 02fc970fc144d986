/**
 * The template's EventBridge, offline: its buses and rules (event-bridge-rules.ts) route every event
 * put on a bus — by `PutEvents`, by a schedule firing, by an AWS service — to the targets of every
 * enabled rule of that bus whose pattern matches, as EventBridge does:
 *
 * - the event envelope is built as EventBridge builds it (`version`, `id`, `detail-type`, `source`,
 *   `account`, `time` to the second, `region`, `resources`, `detail` parsed from the entry's JSON);
 * - each delivery is authorized as AWS authorizes it: to an SQS queue by the queue policy
 *   (`events.amazonaws.com` may `sqs:SendMessage` with `aws:SourceArn` = the rule), to a function by
 *   its resource policy (`lambda:InvokeFunction` from the rule), to another bus by the rule's role
 *   (`events:PutEvents` on the target bus, session name = the rule's name), where the event arrives
 *   unchanged (same id, time, source, detail-type, resources and detail);
 * - deliveries happen after `PutEvents` answered, as on AWS (`settled()` waits for them); a failed
 *   one is retried per the target's `RetryPolicy` (a transport failure only: a denied or malformed
 *   delivery is not retried, as on AWS), then recorded in `deliveryFailures` and logged — never
 *   thrown; an event no rule matches is dropped and counted in `unmatched`.
 *
 * Retries wait `retryDelayMs` × attempt instead of EventBridge's back-off over 24 hours and stop at
 * `retryLimit` (default 2) whatever the policy allows, so a test never waits long for a failure.
 * Schedules fire only when `fireSchedule` is called; archives and replays are not modelled.
 */
import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '../../../lib/queue/event-bus.ts';
import {
  type AuthorizationRequest,
  type Authorize,
  type AwsPrincipal,
  principalArnOf,
} from './authorization.ts';
import type { DeployedStack } from './deployed-stack.ts';
import {
  checkPutEventsRequest,
  type PutEventsAnswer,
  type PutEventsEntry,
  readPutEventsEntry,
  toPutEventsAnswer,
} from './event-bridge-entries.ts';
import {
  busNameOf,
  type EventBridgeRule,
  type EventBridgeTarget,
  readEventBuses,
  readEventRules,
} from './event-bridge-rules.ts';
import { targetInputText } from './event-target-input.ts';

export {
  type PutEventsAnswer,
  type PutEventsEntry,
  PutEventsValidationError,
} from './event-bridge-entries.ts';

/** How the local EventBridge reaches the other local services. */
export interface LocalEventBridgeOptions {
  readonly stack: DeployedStack;
  readonly authorize: Authorize;
  /** Sends `body` to the queue `queueArn` (`messageGroupId` and `deduplicationId` on FIFO queues). */
  sendToQueue(
    queueArn: string,
    body: string,
    messageGroupId?: string,
    deduplicationId?: string,
  ): Promise<void>;
  /** Invokes the function `functionArn` asynchronously (resolves once Lambda accepted the event). */
  invokeAsync(functionArn: string, event: unknown): Promise<void>;
  /** Where failed deliveries are reported (default: `console.warn`). */
  readonly log?: (message: string, fields: Readonly<Record<string, unknown>>) => void;
  /** Retries per failed delivery at most, whatever the target's policy allows (default 2). */
  readonly retryLimit?: number;
  /** Wait before retry n is n × this (default 100 ms). */
  readonly retryDelayMs?: number;
  readonly clock?: () => Date;
}

/** One delivery made: the rule, the target and the event the rule matched. */
export interface EventDelivery {
  readonly ruleArn: string;
  readonly targetArn: string;
  readonly event: EventEnvelope;
  /** What the target received (the event as JSON unless the target transforms it). */
  readonly input: string;
}

/** One delivery given up, with AWS's reason. */
export interface EventDeliveryFailure {
  readonly ruleArn: string;
  readonly targetArn: string;
  readonly event: EventEnvelope;
  readonly reason: string;
  readonly attempts: number;
}

/** An AWS service event to put on the default bus (`emitServiceEvent`). */
export interface ServiceEvent {
  readonly source: string;
  readonly 'detail-type': string;
  readonly detail: Readonly<Record<string, unknown>>;
  readonly resources?: readonly string[];
  readonly time?: Date;
}

/** A delivery attempt's failure; `retryable` for transport failures only. */
interface AttemptFailure {
  readonly reason: string;
  readonly retryable: boolean;
}

/** Hops an event may make across buses before the harness calls it a loop. */
const MAX_HOPS = 5;

/** EventBridge's time format: ISO 8601 to the second. */
function eventTime(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** The local EventBridge of one deployed template (see the file comment). */
export class LocalEventBridge {
  /** `name → ARN` of every bus, `default` included. */
  readonly buses: ReadonlyMap<string, string>;
  readonly rules: readonly EventBridgeRule[];
  readonly deliveries: EventDelivery[] = [];
  readonly deliveryFailures: EventDeliveryFailure[] = [];
  /** Events put on a bus that no enabled rule matched. */
  unmatched = 0;
  private readonly pending = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly options: LocalEventBridgeOptions) {
    this.buses = readEventBuses(options.stack);
    this.rules = readEventRules(options.stack, this.buses);
  }

  /** The rule `logicalId`; throws when the template has none. */
  rule(logicalId: string): EventBridgeRule {
    const rule = this.rules.find((r) => r.logicalId === logicalId);
    if (!rule) throw new Error(`the template has no AWS::Events::Rule ${logicalId}`);
    return rule;
  }

  /**
   * `PutEvents` as the API answers it: each entry becomes an event on its bus (`EventBusName`, a
   * name or an ARN, default `default`) or a failed entry (`InvalidArgument`, `MalformedDetail`,
   * `NotAuthorizedForSourceException` for `aws.*` sources, `ResourceNotFoundException` for an unknown
   * bus); a request of more than 10 entries or 256 KB throws {@link PutEventsValidationError}.
   * `caller` (an ARN or the principal) is who called: its account becomes the events' `account`; its
   * right to `events:PutEvents` is checked by the endpoint before this is called.
   */
  putEvents(entries: readonly PutEventsEntry[], caller: string | AwsPrincipal): PutEventsAnswer {
    const callerArn =
      typeof caller === 'string' ? caller : principalArnOf(caller, this.options.stack.account);
    const callerAccount =
      /^arn:[^:]+:[^:]+:[^:]*:(\d{12}):/.exec(callerArn)?.[1] ?? this.options.stack.account;
    const now = this.now();
    checkPutEventsRequest(entries);
    const results = entries.map(readPutEventsEntry).map((read) => {
      if (!read.ok) return read;
      const busName = busNameOf(read.entry.EventBusName);
      if (!this.buses.has(busName)) {
        return {
          ok: false as const,
          code: 'ResourceNotFoundException',
          message: `Event bus ${busName} does not exist.`,
        };
      }
      const event: EventEnvelope = {
        version: '0',
        id: randomUUID(),
        'detail-type': read.entry.DetailType,
        source: read.entry.Source,
        account: callerAccount,
        time: eventTime(read.time ?? now),
        region: this.options.stack.region,
        resources: [...(read.entry.Resources ?? [])],
        detail: read.detail,
      };
      this.route(event, busName, 0);
      return { ok: true as const, eventId: event.id };
    });
    return toPutEventsAnswer(results);
  }

  /**
   * Fires the scheduled rule `ruleLogicalId` now: its targets receive the `Scheduled Event` EventBridge
   * sends at each tick of `ScheduleExpression`. Returns the event.
   */
  fireSchedule(ruleLogicalId: string): EventEnvelope {
    const rule = this.rule(ruleLogicalId);
    if (rule.scheduleExpression === undefined)
      throw new Error(`rule ${ruleLogicalId} has no ScheduleExpression`);
    if (!rule.enabled) throw new Error(`rule ${ruleLogicalId} is disabled: its schedule does not fire`);
    const event: EventEnvelope = {
      version: '0',
      id: randomUUID(),
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: this.options.stack.account,
      time: eventTime(this.now()),
      region: this.options.stack.region,
      resources: [rule.arn],
      detail: {},
    };
    for (const target of rule.targets) this.track(this.deliver(rule, target, event, 0));
    return event;
  }

  /** Puts an AWS service's event (e.g. EC2's `EC2 Instance State-change Notification`) on the default bus. */
  emitServiceEvent(serviceEvent: Readonly<ServiceEvent>): EventEnvelope {
    const event: EventEnvelope = {
      version: '0',
      id: randomUUID(),
      'detail-type': serviceEvent['detail-type'],
      source: serviceEvent.source,
      account: this.options.stack.account,
      time: eventTime(serviceEvent.time ?? this.now()),
      region: this.options.stack.region,
      resources: [...(serviceEvent.resources ?? [])],
      detail: serviceEvent.detail,
    };
    this.route(event, 'default', 0);
    return event;
  }

  /** Resolves once every delivery started so far (and those they started) is done or given up. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** Gives up pending retries and waits for the deliveries in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.settled();
  }

  private now(): Date {
    return this.options.clock?.() ?? new Date();
  }

  private track(delivery: Promise<void>): void {
    this.pending.add(delivery);
    void delivery.finally(() => this.pending.delete(delivery));
  }

  private route(event: EventEnvelope, busName: string, hops: number): void {
    const rules = this.rules.filter((r) => r.busName === busName && r.enabled && r.matches?.(event));
    if (rules.length === 0) this.unmatched++;
    for (const rule of rules) {
      for (const target of rule.targets) this.track(this.deliver(rule, target, event, hops));
    }
  }

  private async deliver(
    rule: EventBridgeRule,
    target: EventBridgeTarget,
    event: EventEnvelope,
    hops: number,
  ): Promise<void> {
    const retries = Math.min(target.maximumRetryAttempts, this.options.retryLimit ?? 2);
    const deadline = Date.now() + target.maximumEventAgeSeconds * 1000;
    for (let attempt = 1; ; attempt++) {
      const failure = await this.attempt(rule, target, event, hops).catch(
        (error: unknown): AttemptFailure => ({ reason: String(error), retryable: true }),
      );
      if (!failure) return;
      const giveUp = !failure.retryable || attempt > retries || this.stopped || Date.now() > deadline;
      if (giveUp) {
        const record = {
          ruleArn: rule.arn,
          targetArn: target.arn,
          event,
          reason: failure.reason,
          attempts: attempt,
        };
        this.deliveryFailures.push(record);
        (this.options.log ?? ((m, f) => console.warn(m, f)))('EventBridge could not deliver an event', {
          ...record,
          event: event.id,
        });
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, (this.options.retryDelayMs ?? 100) * attempt));
    }
  }

  /** One delivery attempt; the failure, or undefined when delivered. */
  private async attempt(
    rule: EventBridgeRule,
    target: EventBridgeTarget,
    event: EventEnvelope,
    hops: number,
  ): Promise<AttemptFailure | undefined> {
    const { stack } = this.options;
    const fromRule = {
      'aws:SourceArn': rule.arn,
      'aws:SourceAccount': stack.account,
      'aws:SecureTransport': 'true',
    };
    const events = { type: 'service', service: 'events.amazonaws.com' } as const;
    const ask = async (request: AuthorizationRequest): Promise<AttemptFailure | undefined> => {
      try {
        const decision = await this.options.authorize(request);
        return decision.allowed ? undefined : { reason: decision.message, retryable: false };
      } catch (error) {
        return { reason: `authorizing ${request.action}: ${error}`, retryable: false };
      }
    };
    let input: string;
    try {
      input =
        target.kind === 'event-bus'
          ? JSON.stringify(event)
          : targetInputText(target.input, { ...event }, rule);
    } catch (error) {
      return { reason: String(error), retryable: false };
    }
    switch (target.kind) {
      case 'sqs': {
        const denied = await ask({
          principal: events,
          action: 'sqs:SendMessage',
          resource: target.arn,
          context: fromRule,
        });
        if (denied) return denied;
        const fifo = target.arn.endsWith('.fifo');
        await this.options.sendToQueue(target.arn, input, target.messageGroupId, fifo ? event.id : undefined);
        break;
      }
      case 'lambda': {
        const denied = await ask({
          principal: events,
          action: 'lambda:InvokeFunction',
          resource: target.arn,
          context: fromRule,
        });
        if (denied) return denied;
        let payload: unknown = input;
        try {
          payload = JSON.parse(input);
        } catch {
          // a non-JSON input template reaches the function as a string
        }
        await this.options.invokeAsync(target.arn, payload);
        break;
      }
      case 'event-bus': {
        if (!target.roleArn)
          return { reason: `rule ${rule.name} has no RoleArn for bus ${target.arn}`, retryable: false };
        if (hops + 1 > MAX_HOPS)
          return { reason: `event ${event.id} crossed ${MAX_HOPS} buses: a loop`, retryable: false };
        const denied = await ask({
          principal: { type: 'role', roleArn: target.roleArn, sessionName: rule.name.slice(0, 64) },
          action: 'events:PutEvents',
          resource: target.arn,
        });
        if (denied) return denied;
        this.route(event, busNameOf(target.arn), hops + 1);
        break;
      }
    }
    this.deliveries.push({ ruleArn: rule.arn, targetArn: target.arn, event, input });
    return undefined;
  }
}
