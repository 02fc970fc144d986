import { Duration } from 'aws-cdk-lib';
import { type Archive, EventBus, Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { EventBus as EventBusTarget, LambdaFunction, SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { RELAY_WATCHDOG_SECONDS } from '../../lib/relay/run/handover.ts';

/** Event sources that the relay publishes with; the router matches on them too. */
export const relaySource = 'everynode.relay';

export interface TriggerBusProps {
  readonly ingress: IQueue;
  readonly relay: IFunction;
  /** How often every managed DaemonSet is re-checked. */
  readonly resyncEvery: Duration;
  /** How long the archive keeps events for replay. */
  readonly archiveRetention: Duration;
}

/**
 * The trigger bus (docs/design.md, 1. The pipeline): a custom EventBridge bus `everynode` that
 * every trigger crosses and that archives them all for `StartReplay`. EC2 instance state changes
 * and the schedules start on the default bus (scheduled rules only exist there) and are forwarded
 * here; from here, the relay's watchdog ticks go to the relay function and everything else to the
 * ingress queue the router consumes.
 */
export class TriggerBus extends Construct {
  public readonly bus: EventBus;
  public readonly archive: Archive;
  /**
   * The relay's watchdog (docs/design.md, 25. The relay's hand-over on AWS): runs hand the watch to
   * their successors themselves; a tick only starts a run when no run holds a fresh lease.
   */
  public readonly relaySchedule: Rule;
  public readonly resyncSchedule: Rule;
  public readonly ec2Forward: Rule;
  public readonly toIngress: Rule;
  public readonly resyncToIngress: Rule;
  public readonly toRelay: Rule;

  constructor(scope: Construct, id: string, props: TriggerBusProps) {
    super(scope, id);
    this.bus = new EventBus(this, 'Bus', { eventBusName: 'everynode' });
    this.archive = this.bus.archive('Archive', {
      description: 'Every everynode trigger, for replay',
      eventPattern: { account: [this.bus.env.account] },
      retention: props.archiveRetention,
    });
    const forward = new EventBusTarget(this.bus);
    this.relaySchedule = new Rule(this, 'RelaySchedule', {
      description:
        `everynode relay watchdog, every ${RELAY_WATCHDOG_SECONDS} s: starts a relay run when no run ` +
        'holds the lease (after a crash, a lost successor or an API outage); runs hand over themselves',
      schedule: Schedule.rate(Duration.seconds(RELAY_WATCHDOG_SECONDS)),
      targets: [forward],
    });
    this.resyncSchedule = new Rule(this, 'ResyncSchedule', {
      description: 'Re-checks every managed DaemonSet',
      schedule: Schedule.rate(props.resyncEvery),
      targets: [forward],
    });
    this.ec2Forward = new Rule(this, 'Ec2StateChange', {
      description: 'Forwards EC2 instance state changes to the everynode bus',
      eventPattern: { source: ['aws.ec2'], detailType: ['EC2 Instance State-change Notification'] },
      targets: [forward],
    });
    this.toRelay = new Rule(this, 'ToRelay', {
      eventBus: this.bus,
      eventPattern: { source: ['aws.events'], resources: [this.relaySchedule.ruleArn] },
      targets: [new LambdaFunction(props.relay, { retryAttempts: 0 })],
    });
    this.toIngress = new Rule(this, 'ToIngress', {
      eventBus: this.bus,
      eventPattern: { source: [relaySource, 'aws.ec2'] },
      targets: [new SqsQueue(props.ingress)],
    });
    this.resyncToIngress = new Rule(this, 'ResyncToIngress', {
      eventBus: this.bus,
      eventPattern: { source: ['aws.events'], resources: [this.resyncSchedule.ruleArn] },
      targets: [new SqsQueue(props.ingress)],
    });
  }
}
