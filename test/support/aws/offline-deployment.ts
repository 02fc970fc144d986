/**
 * The stack as `cdk deploy` would run it, offline: the synthesized template "deployed" into one
 * account (deployed-stack.ts), its three bundles running in processes of their own as Lambda loads
 * them (lambda-host.ts), invoked as their event source mappings and EventBridge rules say
 * (sqs-event-source-mapping.ts, event-bridge.ts), every AWS call they make signed with their own
 * role's credentials and authorized against the template's policies by a real IAM evaluator at a
 * local AWS endpoint (aws-gateway.ts, iam-authorizer.ts), SQS on fauxqs, and the Kubernetes API a
 * simulated cluster serving HTTPS with RBAC that verifies the EKS tokens the functions make and
 * maps their roles through the template's access entries.
 *
 * Not covered, since only an account shows it: the DescribeCluster custom resource (its answer is
 * the simulator's endpoint and CA), the creation of the access entries themselves, VPC networking,
 * CloudWatch (logs, metrics, alarms), the archive and replays.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { startFauxqs } from 'fauxqs';
import { createRbacObjects } from '../../../lib/cli/least-privilege-sim.ts';
import type { ManagedKind } from '../../../lib/kube/managed-kind.ts';
import type { EverynodeFunction } from '../../../lib/kube/rbac/function-groups.ts';
import { type SimCluster, startSimCluster } from '../../../lib/sim/start-sim-cluster.ts';
import { clusterViews, type PipelineWorld, runKubectl, waitUntil } from '../pipeline-harness.ts';
import { principalArnOf } from './authorization.ts';
import { type AwsGateway, type IssuedCredentials, startAwsGateway } from './aws-gateway.ts';
import { type DeployedQueue, deployQueues } from './deployed-queues.ts';
import { type CfnTemplate, type DeployedStack, logicalIdAt } from './deployed-stack.ts';
import { LocalEventBridge } from './event-bridge.ts';
import { type LocalLambdaFunction, startLambdaFunction } from './lambda-host.ts';
import { type SqsEventSourceMapping, startSqsEventSourceMapping } from './sqs-event-source-mapping.ts';
import type { SynthesizedApp } from './synthesized-app.ts';

/** The queues of the stack, by role. */
export type QueueName = 'ingress' | 'ingressDlq' | 'work' | 'workDlq';

/** Options of {@link startOfflineDeployment}. */
export interface OfflineDeploymentOptions {
  readonly app: SynthesizedApp;
  /** Changes the template before it is deployed (the mutation tests). */
  readonly mutate?: (template: CfnTemplate) => void;
  /** Simulated time of the cluster (pods' start, readiness, grace periods); default 0.1. */
  readonly timeScale?: number;
  /** Containers the reconcile function may run at once (Lambda would scale to the mapping's limit); default 2. */
  readonly reconcileContainers?: number;
  /**
   * Waits before a failed asynchronous invocation is retried; default 1 s then 2 s, Lambda's one
   * then two minutes shortened so that a test sees the retries. A test of what happens before
   * Lambda retries (the relay's watchdog after a crash) passes Lambda's own.
   */
  readonly asyncRetryDelaysMs?: readonly number[];
}

/** A running offline deployment. */
export interface OfflineDeployment extends Pick<PipelineWorld, 'pods' | 'placement' | 'until'> {
  readonly stack: DeployedStack;
  readonly sim: SimCluster;
  readonly gateway: AwsGateway;
  readonly eventBridge: LocalEventBridge;
  readonly functions: Readonly<Record<EverynodeFunction, LocalLambdaFunction>>;
  readonly mappings: readonly SqsEventSourceMapping[];
  /** The operator: an IAM user allowed everything, with an SQS client through the local endpoint. */
  readonly operator: { readonly sqs: SQSClient; readonly env: Readonly<Record<string, string>> };
  /** kubectl as the cluster's administrator. */
  kubectl(args: readonly string[], stdin?: string): Promise<string>;
  /** `everynode <args>` in a process of its own, as the operator; resolves to its output. */
  operatorCli(args: readonly string[]): Promise<string>;
  queueUrl(name: QueueName): string;
  /** The body of every message queue `name` holds (ready, delayed or in flight), seen without receiving. */
  queueBodies(name: QueueName): string[];
  /** Every line the function's containers printed so far. */
  logs(fn: EverynodeFunction): string[];
  stop(): Promise<void>;
}

const ACCOUNT = '111122223333';
const REGION = 'us-east-1';
const OPERATOR_ARN = `arn:aws:iam::${ACCOUNT}:user/operator`;
const everynodeBin = fileURLToPath(new URL('../../../bin/everynode.js', import.meta.url));

/** Where each piece the harness needs by role sits in the construct tree. */
const paths = {
  queues: {
    ingress: 'Queues/Ingress/Resource',
    ingressDlq: 'Queues/IngressDlq/Resource',
    work: 'Queues/Work/Resource',
    workDlq: 'Queues/WorkDlq/Resource',
  },
  functions: {
    relay: 'Functions/Relay/Resource',
    router: 'Functions/Router/Resource',
    reconcile: 'Functions/Reconcile/Resource',
  },
  relaySchedule: 'Triggers/RelaySchedule/Resource',
  describeCluster: 'ClusterAccess/DescribeCluster/Resource/Default',
} as const;

/** An SQS client signing with `credentials`, through the gateway, trusting its CA. */
function sqsClientOf(gateway: AwsGateway, credentials: IssuedCredentials): SQSClient {
  return new SQSClient({
    endpoint: gateway.url,
    region: REGION,
    credentials,
    requestHandler: { httpsAgent: new Agent({ ca: gateway.caPem, keepAlive: true }) },
  });
}

function credentialEnv(credentials: IssuedCredentials): Record<string, string> {
  return {
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    ...(credentials.sessionToken ? { AWS_SESSION_TOKEN: credentials.sessionToken } : {}),
  };
}

/** Deploys `options.app` offline and starts the relay (its schedule rule fired once). */
export async function startOfflineDeployment(options: OfflineDeploymentOptions): Promise<OfflineDeployment> {
  const stopping: Array<() => Promise<unknown> | unknown> = [];
  const stopAll = async () => {
    for (const stop of stopping.reverse()) await Promise.resolve(stop()).catch(() => undefined);
  };
  try {
    return await deploy(options, stopping, stopAll);
  } catch (error) {
    await stopAll();
    throw error;
  }
}

async function deploy(
  options: OfflineDeploymentOptions,
  stopping: Array<() => Promise<unknown> | unknown>,
  stopAll: () => Promise<void>,
): Promise<OfflineDeployment> {
  const { app } = options;
  const template = structuredClone(app.template);
  options.mutate?.(template);
  const at = (path: string) => logicalIdAt(template, path, app.stackName, app.constructId);
  const stateDir = mkdtempSync(join(tmpdir(), 'everynode-offline-'));
  stopping.push(() => rmSync(stateDir, { recursive: true, force: true }));

  const fauxqs = await startFauxqs({ port: 0, logger: false, host: '127.0.0.1' });
  stopping.push(() => fauxqs.stop());
  let sim: SimCluster | undefined;
  let eventBridge: LocalEventBridge | undefined;
  const customResources: Record<string, Record<string, string>> = {};
  // The functions start after the gateway (their environment names it): filled once they run.
  const byArn = new Map<string, LocalLambdaFunction>();
  const gateway = await startAwsGateway({
    template,
    target: { account: ACCOUNT, region: REGION, stackName: app.stackName, customResources },
    sqsEndpoint: fauxqs.address,
    putEvents: (entries, principal) => {
      if (!eventBridge) throw new Error('the event bus is not up yet');
      return eventBridge.putEvents(entries, principal);
    },
    invokeFunction: ({ functionArn, payload, traceHeader }) => {
      const fn = byArn.get(functionArn);
      if (!fn) throw new Error(`the harness does not run ${functionArn}`);
      return fn.invokeAsync(payload, { traceHeader });
    },
    instances: () =>
      (sim?.store.list('nodes', {}) ?? []).map((node) => ({
        instanceId: instanceIdOfNode(node),
        privateDnsName: node.metadata.name ?? '',
        state: 'running',
      })),
  });
  stopping.push(() => gateway.stop());
  const stack = gateway.stack;
  const queues = await deployQueues(stack, fauxqs.address);
  const queueByArn = new Map<string, DeployedQueue>(queues.map((q) => [q.arn, q]));
  const queueUrls = Object.fromEntries(
    (Object.keys(paths.queues) as QueueName[]).map((name) => [name, stack.ref(at(paths.queues[name]))]),
  ) as Record<QueueName, string>;

  // Each function's role gets credentials of its own, named for the function as Lambda names sessions.
  const functionIds = Object.fromEntries(
    (Object.keys(paths.functions) as EverynodeFunction[]).map((fn) => [fn, at(paths.functions[fn])]),
  ) as Record<EverynodeFunction, string>;
  const identities = Object.fromEntries(
    (Object.keys(functionIds) as EverynodeFunction[]).map((fn) => {
      const roleArn = stack.resolve<string>(stack.resource(functionIds[fn]).Properties?.Role);
      const sessionName = stack.ref(functionIds[fn]);
      const principal = { type: 'role', roleArn, sessionName } as const;
      return [fn, { principal, credentials: gateway.issueRoleCredentials(roleArn, sessionName) }];
    }),
  ) as Record<
    EverynodeFunction,
    { principal: { type: 'role'; roleArn: string; sessionName: string }; credentials: IssuedCredentials }
  >;

  // Literal values of the template (the endpoint and CA come from the cluster, started next).
  const environment = stack.resource(functionIds.reconcile).Properties?.Environment as
    | { Variables?: Record<string, unknown> }
    | undefined;
  const rawEnv = environment?.Variables ?? {};
  const clusterName = String(rawEnv.EVERYNODE_CLUSTER_NAME);
  const managedKind = String(rawEnv.EVERYNODE_MANAGED_KIND) as ManagedKind;
  const kubeconfigPath = join(stateDir, 'kubeconfig');
  sim = await startSimCluster({
    nodes: 6,
    kubeconfigPath,
    bookmarkIntervalMs: 1_000,
    timing: { timeScale: options.timeScale ?? 0.1 },
    tls: true,
    authorizationMode: 'RBAC',
    eks: {
      clusterName,
      credentials: Object.values(identities).map(({ principal, credentials }) => ({
        accessKeyId: credentials.accessKeyId,
        secretAccessKey: credentials.secretAccessKey,
        ...(credentials.sessionToken ? { sessionToken: credentials.sessionToken } : {}),
        arn: principalArnOf(principal, ACCOUNT),
      })),
      accessEntries: stack.resourcesOfType('AWS::EKS::AccessEntry').map(([id]) => {
        const entry = stack.properties<{
          PrincipalArn: string;
          KubernetesGroups?: string[];
          Username?: string;
        }>(id);
        return {
          principalArn: entry.PrincipalArn,
          groups: entry.KubernetesGroups ?? [],
          ...(entry.Username ? { username: entry.Username } : {}),
        };
      }),
    },
  });
  const cluster = sim;
  stopping.push(() => cluster.stop());
  await createRbacObjects(cluster, managedKind);
  customResources[at(paths.describeCluster)] = {
    'cluster.endpoint': cluster.url,
    'cluster.certificateAuthority.data': Buffer.from(cluster.caCertificate ?? '').toString('base64'),
  };

  const caFile = join(stateDir, 'aws-endpoint-ca.pem');
  writeFileSync(caFile, gateway.caPem);
  const awsEnv = {
    AWS_ENDPOINT_URL: gateway.url,
    NODE_EXTRA_CA_CERTS: caFile,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  const functions = {} as Record<EverynodeFunction, LocalLambdaFunction>;
  for (const fn of Object.keys(functionIds) as EverynodeFunction[]) {
    const started = await startLambdaFunction({
      stack,
      logicalId: functionIds[fn],
      cdkOut: app.outDir,
      env: { ...awsEnv, ...credentialEnv(identities[fn].credentials) },
      sandboxParent: stateDir,
      asyncRetryDelaysMs: options.asyncRetryDelaysMs ?? [1_000, 2_000],
      ...(fn === 'reconcile' ? { maxContainers: options.reconcileContainers ?? 2 } : {}),
    });
    functions[fn] = started;
    stopping.push(() => started.stop());
  }
  for (const fn of Object.values(functions)) byArn.set(fn.arn, fn);

  const fauxqsClient = new SQSClient({
    endpoint: fauxqs.address,
    region: REGION,
    credentials: { accessKeyId: 'eventbridge', secretAccessKey: 'eventbridge' },
  });
  stopping.push(() => fauxqsClient.destroy());
  const bridge = new LocalEventBridge({
    stack,
    authorize: gateway.authorize,
    // EventBridge delivers as the service, authorized by the queue's policy: straight to the queue.
    sendToQueue: async (queueArn, body, messageGroupId, deduplicationId) => {
      const queue = queueByArn.get(queueArn);
      if (!queue) throw new Error(`no queue ${queueArn}`);
      await fauxqsClient.send(
        new SendMessageCommand({
          QueueUrl: queue.fauxqsUrl,
          MessageBody: body,
          ...(messageGroupId ? { MessageGroupId: messageGroupId } : {}),
          ...(deduplicationId ? { MessageDeduplicationId: deduplicationId } : {}),
        }),
      );
    },
    invokeAsync: async (functionArn, event) => {
      const fn = byArn.get(functionArn);
      if (!fn) throw new Error(`no function ${functionArn}`);
      await fn.invokeAsync(event);
    },
    log: () => undefined,
  });
  eventBridge = bridge;
  stopping.push(() => bridge.stop());

  const mappings: SqsEventSourceMapping[] = [];
  for (const [id] of stack.resourcesOfType('AWS::Lambda::EventSourceMapping')) {
    const target = stack.properties<{ FunctionName: string }>(id).FunctionName;
    const fn = (Object.keys(functions) as EverynodeFunction[]).find(
      (f) => functions[f].name === target || functions[f].arn === target,
    );
    if (!fn) throw new Error(`${id} invokes ${target}, which the harness does not run`);
    const sqs = sqsClientOf(gateway, identities[fn].credentials);
    const mapping = startSqsEventSourceMapping({
      stack,
      logicalId: id,
      sqs,
      fn: functions[fn],
      log: () => undefined,
    });
    mappings.push(mapping);
    stopping.push(async () => {
      await mapping.stop();
      sqs.destroy();
    });
  }

  const operatorCredentials = gateway.registerUser(OPERATOR_ARN, {
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }],
  });
  const operatorSqs = sqsClientOf(gateway, operatorCredentials);
  stopping.push(() => operatorSqs.destroy());
  const operatorEnv = { ...awsEnv, ...credentialEnv(operatorCredentials), AWS_REGION: REGION };

  bridge.fireSchedule(at(paths.relaySchedule));
  const views = clusterViews(cluster);
  return {
    stack,
    sim: cluster,
    gateway,
    eventBridge: bridge,
    functions,
    mappings,
    operator: { sqs: operatorSqs, env: operatorEnv },
    ...views,
    until: waitUntil,
    kubectl: (args, stdin) => runKubectl(kubeconfigPath, stateDir, args, stdin),
    operatorCli: (args) => runCli(args, { PATH: process.env.PATH ?? '', HOME: stateDir, ...operatorEnv }),
    queueUrl: (name) => queueUrls[name],
    queueBodies: (name) => {
      const queue = queues.find((q) => q.url === queueUrls[name]);
      const held = queue && fauxqs.inspectQueue(queue.name)?.messages;
      if (!held) throw new Error(`queue ${name} is not deployed`);
      return [...held.ready, ...held.delayed, ...held.inflight.map((m) => m.message)].map((m) => m.body);
    },
    logs: (fn) => functions[fn].logs.map((l) => l.line),
    stop: stopAll,
  };
}

/**
 * The EC2 instance behind a simulated node: the one its `spec.providerID` names, else one named after
 * the node (a node registered without a provider id, found by its private DNS name = its name).
 */
export function instanceIdOfNode(node: {
  readonly metadata?: { readonly name?: string };
  readonly spec?: unknown;
}): string {
  const fromProvider = String((node.spec as { providerID?: string } | undefined)?.providerID ?? '')
    .split('/')
    .pop();
  if (fromProvider?.startsWith('i-')) return fromProvider;
  return `i-${createHash('sha256')
    .update(node.metadata?.name ?? '')
    .digest('hex')
    .slice(0, 17)}`;
}

/** Runs the everynode CLI in its own process group; resolves to stdout and stderr, rejects on failure. */
function runCli(args: readonly string[], env: Readonly<Record<string, string>>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [everynodeBin, ...args], { env, detached: true });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const timer = setTimeout(() => {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    }, 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`everynode ${args.join(' ')} exited ${code}: ${output}`));
    });
  });
}
