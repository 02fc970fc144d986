import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import type { ISecurityGroup, ISubnet, IVpc } from 'aws-cdk-lib/aws-ec2';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import { EnvironmentName } from '../lib/config/environment-names.ts';
import { RECONCILE_AWS_CALLS } from '../lib/reconcile/setup/reconcile-aws-calls.ts';
import { RELAY_AWS_CALLS } from '../lib/relay/setup/relay-aws-calls.ts';
import { ROUTER_AWS_CALLS } from '../lib/router/router-aws-calls.ts';
import { PipelineAlarms } from './constructs/alarms.ts';
import { ClusterAccess } from './constructs/cluster-access.ts';
import { grantAwsCalls } from './constructs/function-grants.ts';
import { PipelineFunctions } from './constructs/pipeline-functions.ts';
import { TriggerBus } from './constructs/trigger-bus.ts';
import { WorkQueues } from './constructs/work-queues.ts';

/** Everything an operator may set; `infra/app.ts` reads it from CDK context. */
export interface EverynodeSettings {
  readonly clusterName: string;
  readonly managedKind: 'everynode.dev/v1' | 'apps/v1';
  /**
   * The relay's run period P: how long each run watches before its successor takes over (the
   * function's timeout is P + 60 s, at most 900 s). Not the schedule's rate: that is a watchdog
   * every `RELAY_WATCHDOG_SECONDS` (docs/design.md, 25. The relay's hand-over on AWS).
   */
  readonly relayEvery: Duration;
  readonly resyncEvery: Duration;
  readonly archiveRetention: Duration;
  /** Kubernetes API requests per second each function process may make. */
  readonly apiQps: number;
  readonly reconcileMaxConcurrency: number;
  readonly routerMaxConcurrency: number;
  readonly maxReceiveCount: number;
  /**
   * Memory of the relay function in MB: it holds every node and daemon pod of the cluster, and its
   * first LIST peaks higher (`npm run bench -- relay-memory`, the bundled relay: 795 MB RSS at
   * 5,000 nodes × 10 DaemonSets, 245 MB at 1,000).
   */
  readonly relayMemoryMb: number;
}

/** Where the functions run when they must reach a private cluster endpoint. */
export interface VpcPlacement {
  readonly vpc: IVpc;
  readonly subnets: ISubnet[];
  readonly securityGroups: ISecurityGroup[];
}

export interface EverynodeStackProps extends StackProps {
  readonly settings: EverynodeSettings;
  /** Builds the VPC placement inside the stack; without it the functions run outside any VPC. */
  readonly vpcPlacement?: (stack: EverynodeStack) => VpcPlacement | undefined;
}

const reconcileTimeout = Duration.minutes(1);
const routerTimeout = Duration.seconds(30);

/** The whole everynode pipeline for one EKS cluster (docs/design.md, 1. The pipeline). */
export class EverynodeStack extends Stack {
  public readonly queues: WorkQueues;
  public readonly functions: PipelineFunctions;
  public readonly triggers: TriggerBus;
  public readonly access: ClusterAccess;
  public readonly alarms: PipelineAlarms;
  public readonly relayCheckpoint: StringParameter;

  constructor(scope: Construct, id: string, props: EverynodeStackProps) {
    super(scope, id, props);
    const s = props.settings;
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
    this.functions = new PipelineFunctions(this, 'Functions', {
      reconcileTimeout,
      routerTimeout,
      relayTimeout: Duration.seconds(Math.min(900, s.relayEvery.toSeconds() + 60)),
      relayMemoryMb: s.relayMemoryMb,
      vpc: props.vpcPlacement?.(this),
      environment: {
        [EnvironmentName.managedKind]: s.managedKind,
        [EnvironmentName.clusterName]: s.clusterName,
        [EnvironmentName.clusterEndpoint]: this.access.endpoint,
        [EnvironmentName.clusterCa]: this.access.certificateAuthority,
        [EnvironmentName.apiQps]: String(s.apiQps),
        [EnvironmentName.workQueueUrl]: this.queues.work.queueUrl,
        [EnvironmentName.workDlqUrl]: this.queues.workDlq.queueUrl,
        [EnvironmentName.ingressQueueUrl]: this.queues.ingress.queueUrl,
        [EnvironmentName.relayCheckpointParameter]: this.relayCheckpoint.parameterName,
        [EnvironmentName.relayRunSeconds]: String(s.relayEvery.toSeconds()),
        POWERTOOLS_METRICS_NAMESPACE: 'everynode',
      },
    });
    this.triggers = new TriggerBus(this, 'Triggers', {
      ingress: this.queues.ingress,
      relay: this.functions.relay,
      resyncEvery: s.resyncEvery,
      archiveRetention: s.archiveRetention,
    });
    this.functions.relay.addEnvironment(EnvironmentName.eventBusName, this.triggers.bus.eventBusName);
    this.wire(s);
    this.alarms = new PipelineAlarms(this, 'Alarms', {
      ...this.queues,
      functions: {
        relay: this.functions.relay,
        router: this.functions.router,
        reconcile: this.functions.reconcile,
      },
      maxWorkAge: Duration.minutes(5),
    });
  }

  /** Event sources, and exactly the AWS rights each function's table of calls names. */
  private wire(s: EverynodeSettings): void {
    const { relay, router, reconcile } = this.functions;
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
