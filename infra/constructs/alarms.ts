import { Duration } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  Metric,
  Stats,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { RELAY_HEARTBEAT_METRIC } from '../../lib/relay/run/heartbeat-metric.ts';

export interface PipelineAlarmsProps {
  readonly workDlq: IQueue;
  readonly ingressDlq: IQueue;
  readonly work: IQueue;
  readonly ingress: IQueue;
  readonly functions: Readonly<Record<'relay' | 'router' | 'reconcile', IFunction>>;
  /** Age of the oldest work message that means the pipeline is falling behind. */
  readonly maxWorkAge: Duration;
  /** Notified by every alarm, on alarm and back to OK; none: the alarms notify nobody. */
  readonly alarmTopic?: ITopic | undefined;
  /** The dashboard's name; CloudFormation names it when none is given. */
  readonly dashboardName?: string | undefined;
}

/**
 * What an operator is paged for: a message in either DLQ (it needs a look, then `everynode
 * redrive`), work waiting too long, any function error, and no relay run watching (no watch means
 * no reaction to node or pod changes). Plus one dashboard with the queues and functions.
 */
export class PipelineAlarms extends Construct {
  public readonly workDlqNotEmpty: Alarm;
  public readonly ingressDlqNotEmpty: Alarm;
  public readonly workAge: Alarm;
  public readonly functionErrors: Alarm[];
  /**
   * No relay heartbeat in a minute: the lease holder publishes one with every checkpoint write
   * (every 5 s), so a whole minute without one means nobody watched the cluster for that long,
   * whether the runs crash, the hand-over or the watchdog fails, or the API server is unreachable.
   */
  public readonly relayNotWatching: Alarm;
  public readonly dashboard: Dashboard;
  /** Every alarm above. */
  public readonly all: readonly Alarm[];

  constructor(scope: Construct, id: string, props: PipelineAlarmsProps) {
    super(scope, id);
    this.workDlqNotEmpty = atLeastOne(
      this,
      'WorkDlqNotEmpty',
      props.workDlq.metricApproximateNumberOfMessagesVisible(),
    );
    this.ingressDlqNotEmpty = atLeastOne(
      this,
      'IngressDlqNotEmpty',
      props.ingressDlq.metricApproximateNumberOfMessagesVisible(),
    );
    this.workAge = new Alarm(this, 'WorkAge', {
      alarmDescription: 'The oldest work message waits longer than allowed: reconcile is falling behind',
      metric: props.work.metricApproximateAgeOfOldestMessage({
        period: Duration.minutes(1),
        statistic: Stats.MAXIMUM,
      }),
      threshold: props.maxWorkAge.toSeconds(),
      evaluationPeriods: 3,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.functionErrors = Object.entries(props.functions).map(([name, fn]) =>
      atLeastOne(
        this,
        `${name}Errors`,
        fn.metricErrors({ period: Duration.minutes(5), statistic: Stats.SUM }),
      ),
    );
    this.relayNotWatching = new Alarm(this, 'RelayNotWatching', {
      alarmDescription: 'No relay heartbeat in a minute: nobody has watched the cluster for about a minute',
      metric: new Metric({
        namespace: RELAY_HEARTBEAT_METRIC.namespace,
        metricName: RELAY_HEARTBEAT_METRIC.name,
        dimensionsMap: { service: RELAY_HEARTBEAT_METRIC.service },
        period: Duration.minutes(1),
        statistic: Stats.SUM,
      }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.BREACHING,
    });
    this.all = [
      this.workDlqNotEmpty,
      this.ingressDlqNotEmpty,
      this.workAge,
      ...this.functionErrors,
      this.relayNotWatching,
    ];
    if (props.alarmTopic) {
      const action = new SnsAction(props.alarmTopic);
      for (const alarm of this.all) {
        alarm.addAlarmAction(action);
        alarm.addOkAction(action);
      }
    }
    this.dashboard = new Dashboard(this, 'Dashboard', {
      ...(props.dashboardName ? { dashboardName: props.dashboardName } : {}),
    });
    this.dashboard.addWidgets(
      graph(
        'Queue depth',
        [props.ingress, props.work, props.workDlq, props.ingressDlq].map((q) =>
          q.metricApproximateNumberOfMessagesVisible(),
        ),
      ),
      graph('Oldest work message (s)', [props.work.metricApproximateAgeOfOldestMessage()]),
      graph(
        'Invocations',
        Object.values(props.functions).map((fn) => fn.metricInvocations()),
      ),
      graph(
        'Errors',
        Object.values(props.functions).map((fn) => fn.metricErrors()),
      ),
      graph(
        'Duration p99',
        Object.values(props.functions).map((fn) => fn.metricDuration({ statistic: 'p99' })),
      ),
    );
  }
}

function atLeastOne(scope: Construct, id: string, metric: IMetric): Alarm {
  return new Alarm(scope, id, {
    alarmDescription: `${id}: at least one in the last period`,
    metric,
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
}

function graph(title: string, metrics: IMetric[]): GraphWidget {
  return new GraphWidget({ title, left: metrics, width: 12 });
}
