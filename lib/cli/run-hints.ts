/**
 * What `everynode run` prints when it starts: which cluster, where the kubeconfig and the journal
 * are, how to put the `kubectl-everynode` plugin on the PATH, and on the simulated cluster the
 * kubectl commands worth trying.
 */
import type { ManagedKind } from '../kube/managed-kind.ts';
import type { RunCluster } from './run-cluster.ts';

/** What the hints describe. */
export interface RunHintsInput {
  readonly cluster: Readonly<RunCluster>;
  readonly managedKind: ManagedKind;
  readonly journalPath: string;
  /** The demo DaemonSets applied (`namespace/name`). */
  readonly demo: readonly string[];
  readonly exitWhenConverged: boolean;
  /** The folder holding the `kubectl-everynode` plugin link (kubectl-plugin-link.ts), when made. */
  readonly pluginDir?: string | undefined;
}

/** The shell line that puts the kubectl plugin on the PATH. */
function pathExport(pluginDir: string): string {
  return `export PATH="${pluginDir}:$PATH"`;
}

/**
 * The header line saying how to put the kubectl plugin on the PATH and what it adds: every rollout
 * command for eds, which kubectl rollout does not know; pause and resume (everynode's) for ds.
 */
function pluginLine(pluginDir: string, managedKind: ManagedKind): string {
  const commands =
    managedKind === 'apps/v1' ? 'pause|resume ds/NAME' : 'status|history|undo|restart|pause|resume eds/NAME';
  return `  plugin:     ${pathExport(pluginDir)}   (kubectl everynode rollout ${commands})`;
}

/** `[command, comment]` pairs as lines: each comment above its command, shell style. */
function commented(pairs: ReadonlyArray<readonly [string, string]>): string[] {
  return pairs.flatMap(([command, comment]) =>
    comment ? [`  # ${comment}`, `  ${command}`] : [`  ${command}`],
  );
}

function simulatedClusterHints(input: Readonly<RunHintsInput>): string[] {
  const resource = input.managedKind === 'apps/v1' ? 'ds' : 'eds';
  const node = JSON.stringify({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'worker-2', labels: { 'kubernetes.io/os': 'linux' } },
  });
  const image = JSON.stringify([
    { op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'busybox:1.37' },
  ]);
  const rollout: Array<readonly [string, string]> =
    input.managedKind === 'apps/v1'
      ? [
          ['kubectl -n kiada set image ds/demo demo=busybox:1.37', 'roll out a new image'],
          ['kubectl -n kiada rollout status ds/demo', 'and watch it complete'],
        ]
      : [
          [`kubectl -n kiada patch eds demo --type=json -p '${image}'`, 'roll out a new image'],
          ...(input.pluginDir === undefined
            ? []
            : ([
                [
                  pathExport(input.pluginDir),
                  'kubectl rollout knows no eds: put the kubectl-everynode plugin on the PATH',
                ],
                ['kubectl everynode -n kiada rollout status eds/demo', 'and watch it complete'],
              ] as const)),
        ];
  return [
    'Try, in another terminal:',
    ...commented([
      [`export KUBECONFIG=${input.cluster.kubeconfigPath}`, ''],
      [`kubectl get ${resource} -A`, 'the DaemonSets: DESIRED CURRENT READY UP-TO-DATE AVAILABLE'],
      ['kubectl get pods -A -o wide', 'their pods: one per eligible node'],
      [`echo '${node}' | kubectl apply -f -`, 'add a node: its daemon pods appear'],
      ['kubectl taint node worker-1 dedicated=infra:NoExecute', 'taint a node: its daemon pods leave'],
      ['kubectl label node worker-ssd disk-', 'unlabel a node'],
      ...rollout,
    ]),
  ];
}

/** The start-up text (ends with a blank line). */
export function runHints(input: Readonly<RunHintsInput>): string {
  const lines = [
    `everynode run: ${input.cluster.description}, managing ${input.managedKind} DaemonSets`,
    `  kubeconfig: ${input.cluster.kubeconfigPath}`,
    `  journal:    ${input.journalPath}   (everynode replay --journal ${input.journalPath})`,
    ...(input.pluginDir === undefined ? [] : [pluginLine(input.pluginDir, input.managedKind)]),
    ...(input.demo.length > 0 ? [`  applied the seed DaemonSets ${input.demo.join(', ')}`] : []),
    ...(input.cluster.sim ? simulatedClusterHints(input) : []),
    input.exitWhenConverged ? 'Waiting until every DaemonSet has converged.' : 'Press Ctrl-C to stop.',
    '',
  ];
  return `${lines.join('\n')}\n`;
}
