/**
 * everynode for one EKS cluster, as a construct to add to any CDK stack (docs/design.md, 1. The
 * pipeline): the queues, the trigger bus and its rules, the three functions with exactly the
 * rights each needs, their access entries to the cluster, the alarms, and — for a cluster with a
 * kubectl provider — the CRD and RBAC in the cluster.
 *
 * ```ts
 * import { Everynode } from 'everynode/cdk';
 * const everynode = new Everynode(this, 'Everynode', { cluster, alarmTopic });
 * ```
 */
import { Duration, Token } from 'aws-cdk-lib';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import { EnvironmentName } from '../lib/config/environment-names.ts';
import { RECONCILE_AWS_CALLS } from '../lib/reconcile/setup/reconcile-aws-calls.ts';
import { RELAY_AWS_CALLS } from '../lib/relay/setup/relay-aws-calls.ts';
import { ROUTER_AWS_CALLS } from '../lib/router/router-aws-calls.ts';
import { PipelineAlarms } from './constructs/alarms.ts';
import { ClusterAccess } from './constructs/cluster-access.ts';
import { appliesManifests, ClusterManifests } from './constructs/cluster-manifests.ts';
import { grantAwsCalls } from './constructs/function-grants.ts';
import { PipelineFunctions } from './constructs/pipeline-functions.ts';
import { TriggerBus } from './constructs/trigger-bus.ts';
import { WorkQueues } from './constructs/work-queues.ts';
import { type EverynodeProps, type EverynodeSettings, everynodeSettings } from './everynode-props.ts';

const reconcileTimeout = Duration.minutes(1);
const routerTimeout = Duration.seconds(30);

/** The whole everynode pipeline for one EKS cluster. */
export class Everynode extends Construct {
  /** The settings the props resolved to, defaults applied. */
  public readonly settings: EverynodeSettings;
  /** The FIFO work queue the reconcile function consumes. */
  public readonly workQueue: IQueue;
  /** The work DLQ: work that can never succeed, each message with its `reason`. */
  public readonly deadLetterQueue: IQueue;
  /** The ingress queue the trigger bus feeds and the router consumes, and its DLQ. */
  public readonly ingressQueue: IQueue;
  public readonly ingressDeadLetterQueue: IQueue;
  public readonly functions: Readonly<Record<'relay' | 'router' | 'reconcile', IFunction>>;
  /** Every alarm, each notifying the `alarmTopic` when one is given. */
  public readonly alarms: readonly Alarm[];
  public readonly queues: WorkQueues;
  public readonly pipelineFunctions: PipelineFunctions;
  public readonly triggers: TriggerBus;
  public readonly access: ClusterAccess;
  public readonly pipelineAlarms: PipelineAlarms;
  public readonly relayCheckpoint: StringParameter;
  /** The CRD and RBAC applied to a cluster with a kubectl provider; undefined otherwise. */
  public readonly manifests: ClusterManifests | undefined;

  constructor(scope: Construct, id: string, props: EverynodeProps) {
    super(scope, id);
    const s = everynodeSettings(props);
    this.settings = s;
    this.queues = new WorkQueues(this, 'Queues', {
      routerTimeout,
      reconcileTimeout,
      maxReceiveCount: s.maxReceiveCount,
    });
    this.access = new ClusterAccess(this, 'ClusterAccess', { clusterName: s.clusterName });
    this.relayCheckpoint = new StringParameter(this, 'RelayCheckpoint', {
      description: 'Resource versions the everynode relay resumes its watches from',
      stringValue: '{}',
    });
    const vpc = props.vpc && {
      vpc: props.vpc,
      vpcSubnets: props.vpcSubnets,
      securityGroups: props.securityGroups,
    };
    this.pipelineFunctions = new PipelineFunctions(this, 'Functions', {
      reconcileTimeout,
      routerTimeout,
      relayTimeout: Duration.seconds(Math.min(900, s.relayPeriod.toSeconds() + 60)),
      relayMemoryMb: s.relayMemoryMb,
      vpc,
      environment: this.environment(s),
    });
    const { relay, router, reconcile } = this.pipelineFunctions;
    this.functions = { relay, router, reconcile };
    this.triggers = new TriggerBus(this, 'Triggers', {
      ingress: this.queues.ingress,
      relay,
      resyncEvery: s.resyncPeriod,
      archiveRetention: s.archiveRetention,
    });
    relay.addEnvironment(EnvironmentName.eventBusName, this.triggers.bus.eventBusName);
    this.wire(s);
    this.pipelineAlarms = new PipelineAlarms(this, 'Alarms', {
      ...this.queues,
      functions: this.functions,
      maxWorkAge: Duration.minutes(5),
      alarmTopic: props.alarmTopic,
      dashboardName: Token.isUnresolved(s.clusterName) ? undefined : `everynode-${s.clusterName}`,
    });
    this.alarms = this.pipelineAlarms.all;
    this.workQueue = this.queues.work;
    this.deadLetterQueue = this.queues.workDlq;
    this.ingressQueue = this.queues.ingress;
    this.ingressDeadLetterQueue = this.queues.ingressDlq;
    this.manifests =
      s.cluster && appliesManifests(s.cluster)
        ? new ClusterManifests(this, 'Manifests', { cluster: s.cluster, managedKind: s.managedKind })
        : undefined;
  }

  /** What every function is told of the cluster, the queues and its limits. */
  private environment(s: EverynodeSettings): Record<string, string> {
    return {
      [EnvironmentName.managedKind]: s.managedKind,
      [EnvironmentName.clusterName]: s.clusterName,
      [EnvironmentName.clusterEndpoint]: this.access.endpoint,
      [EnvironmentName.clusterCa]: this.access.certificateAuthority,
      [EnvironmentName.apiQps]: String(s.apiQps),
      [EnvironmentName.workQueueUrl]: this.queues.work.queueUrl,
      [EnvironmentName.workDlqUrl]: this.queues.workDlq.queueUrl,
      [EnvironmentName.ingressQueueUrl]: this.queues.ingress.queueUrl,
      [EnvironmentName.relayCheckpointParameter]: this.relayCheckpoint.parameterName,
      [EnvironmentName.relayRunSeconds]: String(s.relayPeriod.toSeconds()),
      POWERTOOLS_METRICS_NAMESPACE: 'everynode',
    };
  }

  /** Event sources, and exactly the AWS rights each function's table of calls names. */
  private wire(s: EverynodeSettings): void {
    const { relay, router, reconcile } = this.pipelineFunctions;
    const { ingress, work, workDlq } = this.queues;
    // addEventSourceMapping, not SqsEventSource: the latter grants sqs:GetQueueUrl besides what
    // polling needs; grantAwsCalls grants the consume rights instead.
    router.addEventSourceMapping('IngressEventSource', {
      eventSourceArn: ingress.queueArn,
      batchSize: 10,
      maxBatchingWindow: Duration.seconds(1),
      reportBatchItemFailures: true,
      maxConcurrency: s.routerMaxConcurrency,
    });
    reconcile.addEventSourceMapping('WorkEventSource', {
      eventSourceArn: work.queueArn,
      batchSize: 10,
      reportBatchItemFailures: true,
      maxConcurrency: s.reconcileMaxConcurrency,
    });
    const arns: Partial<Record<EnvironmentName, string>> = {
      [EnvironmentName.ingressQueueUrl]: ingress.queueArn,
      [EnvironmentName.workQueueUrl]: work.queueArn,
      [EnvironmentName.workDlqUrl]: workDlq.queueArn,
      [EnvironmentName.eventBusName]: this.triggers.bus.eventBusArn,
      [EnvironmentName.relayCheckpointParameter]: this.relayCheckpoint.parameterArn,
    };
    const arnOf = (variable: EnvironmentName): string => {
      const arn = arns[variable];
      if (!arn) throw new Error(`no resource is handed to the functions through ${variable}`);
      return arn;
    };
    grantAwsCalls(relay, RELAY_AWS_CALLS, arnOf);
    grantAwsCalls(router, ROUTER_AWS_CALLS, arnOf);
    grantAwsCalls(reconcile, RECONCILE_AWS_CALLS, arnOf);
    const kubernetesUsers = [
      ['Relay', relay, 'relay'],
      ['Router', router, 'router'],
      ['Reconcile', reconcile, 'reconcile'],
    ] as const;
    for (const [id, fn, group] of kubernetesUsers) {
      if (fn.role) this.access.grantKubernetesAccess(`${id}AccessEntry`, fn.role, group);
    }
  }
}
