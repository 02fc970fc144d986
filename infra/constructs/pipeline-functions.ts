import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Duration, Validations } from 'aws-cdk-lib';
import type { ISecurityGroup, IVpc, SubnetSelection } from 'aws-cdk-lib/aws-ec2';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  Architecture,
  Code,
  type FunctionProps,
  Function as LambdaFunction,
  LoggingFormat,
  RecursiveLoop,
  Runtime,
} from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { RELAY_RESERVED_CONCURRENCY } from '../../lib/relay/run/handover.ts';
import { BUNDLE_SETTINGS } from '../bundling/bundle-settings.ts';

/** Where the functions run and what they share. */
export interface PipelineFunctionsProps {
  readonly environment: Record<string, string>;
  readonly reconcileTimeout: Duration;
  readonly routerTimeout: Duration;
  readonly relayTimeout: Duration;
  /** The relay's memory in MB; the router and reconcile get 512. */
  readonly relayMemoryMb: number;
  readonly vpc?:
    | { vpc: IVpc; vpcSubnets?: SubnetSelection | undefined; securityGroups?: ISecurityGroup[] | undefined }
    | undefined;
}

const functionsDir = fileURLToPath(new URL('../../functions/', import.meta.url));

/** The folder of the prebuilt bundle of function `name` (the npm package's), if there is one. */
function prebuiltBundle(name: string): string | undefined {
  const dir = fileURLToPath(new URL(`../../bundles/${name}/`, import.meta.url));
  return existsSync(`${dir}index.mjs`) ? dir : undefined;
}

/**
 * The three functions of the pipeline, each one ESM file bundled by esbuild
 * (infra/bundling/bundle-settings.ts), on Node.js 22, arm64.
 * They share no role: each gets only the permissions its own work needs.
 */
export class PipelineFunctions extends Construct {
  public readonly relay: LambdaFunction;
  public readonly router: LambdaFunction;
  public readonly reconcile: LambdaFunction;

  constructor(scope: Construct, id: string, props: PipelineFunctionsProps) {
    super(scope, id);
    // A run and its successor overlap during a hand-over (docs/design.md, 25. The relay's hand-over
    // on AWS); the triggers both publish meanwhile are de-duplicated by the work queue. Each run
    // invokes the next: Lambda's recursive loop detection would stop that chain after 16 links.
    this.relay = this.pipelineFunction('Relay', 'relay', props.relayTimeout, props, {
      reservedConcurrentExecutions: RELAY_RESERVED_CONCURRENCY,
      memorySize: props.relayMemoryMb,
      recursiveLoop: RecursiveLoop.ALLOW,
    });
    this.router = this.pipelineFunction('Router', 'router', props.routerTimeout, props);
    this.reconcile = this.pipelineFunction('Reconcile', 'reconcile', props.reconcileTimeout, props);
    this.allowInstanceLookups(this.router.role as Role);
  }

  /**
   * The router matches EC2 events to nodes without spec.providerID by the instance's private DNS
   * name; the stack grants ec2:DescribeInstances on `*` from the router's table of AWS calls.
   */
  private allowInstanceLookups(role: Role): void {
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'ec2:DescribeInstances does not support resource-level permissions; it only reads.',
    });
  }

  private pipelineFunction(
    id: string,
    name: string,
    timeout: Duration,
    props: PipelineFunctionsProps,
    own: Pick<FunctionProps, 'reservedConcurrentExecutions' | 'memorySize' | 'recursiveLoop'> = {},
  ) {
    const logGroup = new LogGroup(this, `${id}Logs`, { retention: RetentionDays.ONE_MONTH });
    // An own role instead of AWSLambdaBasicExecutionRole: logs go to this function's group only.
    const role = new Role(this, `${id}Role`, { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    logGroup.grantWrite(role);
    if (props.vpc) this.allowVpcNetworking(role);
    const common = {
      role,
      ...own,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: own.memorySize ?? 512,
      timeout,
      logGroup,
      loggingFormat: LoggingFormat.JSON,
      environment: { ...props.environment, POWERTOOLS_SERVICE_NAME: `everynode-${name}` },
      ...(props.vpc
        ? {
            vpc: props.vpc.vpc,
            ...(props.vpc.vpcSubnets ? { vpcSubnets: props.vpc.vpcSubnets } : {}),
            ...(props.vpc.securityGroups ? { securityGroups: props.vpc.securityGroups } : {}),
          }
        : {}),
    };
    // The npm package ships each bundle prebuilt, so a user's synth builds nothing; the repository
    // bundles at synth, with the same settings (infra/bundling/bundle-settings.ts).
    const prebuilt = prebuiltBundle(name);
    const fn = prebuilt
      ? new LambdaFunction(this, id, { ...common, code: Code.fromAsset(prebuilt), handler: 'index.handler' })
      : new NodejsFunction(this, id, {
          ...common,
          entry: `${functionsDir}${name}/index.ts`,
          handler: 'handler',
          bundling: {
            format: OutputFormat.ESM,
            minify: true,
            sourceMap: false,
            target: BUNDLE_SETTINGS.target,
            mainFields: [...BUNDLE_SETTINGS.mainFields],
            banner: BUNDLE_SETTINGS.banner,
            externalModules: [...BUNDLE_SETTINGS.external],
            define: { ...BUNDLE_SETTINGS.define },
            esbuildArgs: { '--alias:whatwg-url': BUNDLE_SETTINGS.alias['whatwg-url'] },
          },
        });
    Validations.of(fn).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'Pinned to nodejs22.x on purpose: the Node major the code is built and tested for; bumped deliberately.',
    });
    return fn;
  }

  /** The ENI rights a function in a VPC needs (what AWSLambdaVPCAccessExecutionRole grants). */
  private allowVpcNetworking(role: Role): void {
    role.addToPolicy(
      new PolicyStatement({
        actions: [
          'ec2:CreateNetworkInterface',
          'ec2:DescribeNetworkInterfaces',
          'ec2:DeleteNetworkInterface',
          'ec2:AssignPrivateIpAddresses',
          'ec2:UnassignPrivateIpAddresses',
        ],
        resources: ['*'],
      }),
    );
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Lambda VPC networking: EC2 network-interface actions do not support resource-level permissions.',
    });
  }
}
