/**
 * The props of the `Everynode` construct, with their defaults, and their check at synth: a prop out
 * of range is an `EverynodePropsError` naming it, thrown from the constructor, before anything is
 * built.
 */
import { Duration, Size, Token } from 'aws-cdk-lib';
import type { ISecurityGroup, IVpc, SubnetSelection } from 'aws-cdk-lib/aws-ec2';
import type { ICluster } from 'aws-cdk-lib/aws-eks-v2';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { type ManagedKind, managedKinds } from '../lib/kube/managed-kind.ts';

/** Props of {@link Everynode}. Every setting but the cluster has a default. */
export interface EverynodeProps {
  /**
   * The EKS cluster everynode runs the DaemonSets of (`aws-cdk-lib/aws-eks-v2`). When it has a
   * kubectl provider, the construct also applies the CRD (for `everynode.dev/v1`) and the RBAC of
   * the managed kind, so one `cdk deploy` installs everything; without one, run
   * `everynode install`. Give this or {@link clusterName}.
   */
  readonly cluster?: ICluster;
  /** The name of an EKS cluster defined elsewhere; then `everynode install` applies the manifests. */
  readonly clusterName?: string;
  /**
   * The DaemonSet resource everynode manages: its own `everynode.dev/v1` (default), or the
   * built-in `apps/v1` (then the built-in controller must not run them too).
   * @default 'everynode.dev/v1'
   */
  readonly managedKind?: ManagedKind;
  /**
   * How long each relay run watches before its successor takes over, 1 to 14 minutes; the relay
   * function's timeout is this plus a minute.
   * @default Duration.minutes(5)
   */
  readonly relayPeriod?: Duration;
  /**
   * How often every managed DaemonSet is reconciled in full, whatever the watch saw; at least a
   * minute.
   * @default Duration.hours(1)
   */
  readonly resyncPeriod?: Duration;
  /**
   * How long the trigger bus archive keeps events for `everynode replay`; at least a day.
   * @default Duration.days(14)
   */
  readonly archiveRetention?: Duration;
  /**
   * Memory of the relay function, 128 MiB to 10 GiB: it holds every node and daemon pod of the
   * cluster (about 700 bytes each; README, benchmarks).
   * @default Size.mebibytes(1216)
   */
  readonly relayMemory?: Size;
  /**
   * Kubernetes API requests per second each function process may make.
   * @default 50
   */
  readonly apiQps?: number;
  /**
   * The most reconcile functions running at once (2 to 1000, the SQS event source's range).
   * @default 20
   */
  readonly reconcileMaxConcurrency?: number;
  /**
   * The most router functions running at once (2 to 1000).
   * @default 5
   */
  readonly routerMaxConcurrency?: number;
  /**
   * Receives after which SQS moves a message whose requeue could not be sent to its DLQ (1 to 1000).
   * @default 5
   */
  readonly maxReceiveCount?: number;
  /** The VPC the functions run in, to reach a private cluster endpoint; none by default. */
  readonly vpc?: IVpc;
  /** The subnets of {@link vpc} the functions use; the VPC's private subnets by default. */
  readonly vpcSubnets?: SubnetSelection;
  /** Security groups of the functions in {@link vpc}; one allowing all outbound traffic by default. */
  readonly securityGroups?: ISecurityGroup[];
  /**
   * The SNS topic every alarm notifies (alarm and back to OK). Without it the alarms notify nobody:
   * they show in the CloudWatch console only.
   */
  readonly alarmTopic?: ITopic;
}

/** A prop of {@link EverynodeProps} that cannot be built: names the prop and what it must be. */
export class EverynodePropsError extends Error {
  constructor(prop: string, must: string) {
    super(`Everynode: ${prop} must be ${must}`);
    this.name = 'EverynodePropsError';
  }
}

/** The props with every default applied, checked. */
export interface EverynodeSettings {
  readonly cluster: ICluster | undefined;
  readonly clusterName: string;
  readonly managedKind: ManagedKind;
  readonly relayPeriod: Duration;
  readonly resyncPeriod: Duration;
  readonly archiveRetention: Duration;
  readonly relayMemoryMb: number;
  readonly apiQps: number;
  readonly reconcileMaxConcurrency: number;
  readonly routerMaxConcurrency: number;
  readonly maxReceiveCount: number;
}

/** `value` checked to lie in [min, max] (integers only when `integer`), unless it is a token. */
function inRange(prop: string, value: number, min: number, max: number, integer = true): number {
  if (Token.isUnresolved(value)) return value;
  const kind = integer ? 'an integer' : 'a number';
  if (!Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value)))
    throw new EverynodePropsError(prop, `${kind} from ${min} to ${max}, not ${value}`);
  return value;
}

/** `value` in seconds checked to lie in [min, max] seconds, unless it is a token. */
function durationInRange(prop: string, value: Duration, min: number, max: number, unit: string): Duration {
  if (value.isUnresolved()) return value;
  const seconds = value.toSeconds();
  if (seconds < min || seconds > max)
    throw new EverynodePropsError(prop, `${unit}, not ${value.toHumanString()}`);
  return value;
}

/** The settings of `props`: the defaults applied, each prop checked ({@link EverynodePropsError}). */
export function everynodeSettings(props: Readonly<EverynodeProps>): EverynodeSettings {
  const { cluster } = props;
  if ((cluster === undefined) === (props.clusterName === undefined))
    throw new EverynodePropsError('cluster or clusterName', 'given, one of them and not both');
  const clusterName = cluster?.clusterName ?? props.clusterName ?? '';
  if (!Token.isUnresolved(clusterName) && !/^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$/.test(clusterName))
    throw new EverynodePropsError('clusterName', `an EKS cluster name, not '${clusterName}'`);
  const managedKind = props.managedKind ?? 'everynode.dev/v1';
  if (!managedKinds.includes(managedKind))
    throw new EverynodePropsError('managedKind', `one of ${managedKinds.join(', ')}, not ${managedKind}`);
  if (props.vpc === undefined && (props.vpcSubnets !== undefined || props.securityGroups !== undefined))
    throw new EverynodePropsError('vpcSubnets and securityGroups', 'given with a vpc');
  const relayMemory = props.relayMemory ?? Size.mebibytes(1216);
  return {
    cluster,
    clusterName,
    managedKind,
    relayPeriod: durationInRange(
      'relayPeriod',
      props.relayPeriod ?? Duration.minutes(5),
      60,
      840,
      'from 1 to 14 minutes',
    ),
    resyncPeriod: durationInRange(
      'resyncPeriod',
      props.resyncPeriod ?? Duration.hours(1),
      60,
      365 * 86_400,
      'at least a minute',
    ),
    archiveRetention: durationInRange(
      'archiveRetention',
      props.archiveRetention ?? Duration.days(14),
      86_400,
      Number.MAX_SAFE_INTEGER,
      'at least a day',
    ),
    relayMemoryMb: inRange('relayMemory (MiB)', relayMemory.toMebibytes(), 128, 10_240),
    apiQps: inRange('apiQps', props.apiQps ?? 50, 1, 10_000, false),
    reconcileMaxConcurrency: inRange('reconcileMaxConcurrency', props.reconcileMaxConcurrency ?? 20, 2, 1000),
    routerMaxConcurrency: inRange('routerMaxConcurrency', props.routerMaxConcurrency ?? 5, 2, 1000),
    maxReceiveCount: inRange('maxReceiveCount', props.maxReceiveCount ?? 5, 1, 1000),
  };
}
