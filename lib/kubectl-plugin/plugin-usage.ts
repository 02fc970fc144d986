/**
 * The help texts of `kubectl everynode`: the plugin, `rollout`, and each rollout subcommand with
 * its flags — kubectl's own flags, so its documentation applies.
 */

/** The flags every command takes. */
const GLOBAL_FLAGS = `Global flags:
      --context NAME         the kubeconfig context to use
      --kubeconfig PATH      the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)
  -n, --namespace NAME       the namespace (default: the context's, else default)
      --request-timeout=0    how long one request may take (seconds, or a duration like 1s, 2m;
                             0: no limit)
  -h, --help                 this help
`;

const TYPES = `DaemonSets are named as eds/NAME, daemonset.everynode.dev/NAME or daemonsets.everynode.dev/NAME
(everynode.dev/v1), ds/NAME or daemonset.apps/NAME (apps/v1), or as TYPE NAME...; TYPE alone
means every DaemonSet of that type in the namespace.
`;

/** Usage of `kubectl everynode`. */
export const PLUGIN_USAGE = `kubectl everynode: kubectl's rollout commands for everynode's DaemonSets.

kubectl rollout knows the built-in kinds only; this plugin runs them for everynode.dev/v1
DaemonSets (and the apps/v1 ones everynode manages), with kubectl's flags, output and exit codes.

Usage:
  kubectl everynode [flags] rollout SUBCOMMAND (TYPE NAME | TYPE/NAME) [flags]

Commands:
  rollout status     Show the status of the rollout
  rollout history    View rollout history
  rollout undo       Undo a previous rollout
  rollout restart    Restart a resource
  rollout pause      Mark the provided resource as paused
  rollout resume     Resume a paused resource, or end the pause step of its rollout
  rollout retry      Retry a halted rollout
  rollout plan       Show how the rest of a rollout would go, and how long it would take

Examples:
  kubectl everynode -n kiada rollout status eds/demo
  kubectl everynode -n kiada rollout history eds/demo --revision=2
  kubectl everynode -n kiada rollout plan eds/demo

${GLOBAL_FLAGS}`;

/** Usage of `kubectl everynode rollout`. */
export const ROLLOUT_USAGE = `Manage the rollout of everynode's DaemonSets.

Usage:
  kubectl everynode rollout SUBCOMMAND (TYPE NAME | TYPE/NAME) [flags]

Subcommands:
  status     Show the status of the rollout       --watch=false, --timeout=DURATION, --revision=N
  history    View rollout history                 --revision=N
  undo       Undo a previous rollout              --to-revision=N
  restart    Restart a resource
  pause      Mark the provided resource as paused
  resume     Resume a paused resource, or end the pause step of its rollout
  retry      Retry a halted rollout
  plan       Show how the rollout would go        --pod-ready-seconds=30

${TYPES}
${GLOBAL_FLAGS}`;

const SUBCOMMANDS: Readonly<Record<string, { summary: string; flags: string }>> = {
  status: {
    summary: `Show the status of the rollout.

By default 'rollout status' watches the status of the latest rollout until it's done; with
--watch=false it prints the status once. For a DaemonSet with a safe rollout (steps, a topology
key) the lines name the step and the domain the rollout holds at; a halted rollout is an error.`,
    flags: `  -w, --watch=true           watch the status of the rollout until it's done
      --timeout=0s           how long to watch before giving up (0: forever; e.g. 30s, 2m, 1h)
      --revision=0           accepted as kubectl does, and ignored for DaemonSets`,
  },
  history: {
    summary: 'View previous rollout revisions and configurations.',
    flags: '      --revision=0           show the pod template of this revision',
  },
  undo: {
    summary: 'Roll back to a previous rollout.',
    flags: '      --to-revision=0        the revision to roll back to (0: the one before the latest)',
  },
  restart: {
    summary: 'Restart a resource: its pods are replaced within its update budget.',
    flags: '',
  },
  pause: {
    summary: 'Mark the provided resource as paused: no old pod is replaced until it is resumed.',
    flags: '',
  },
  resume: {
    summary: `Resume a paused resource. When its safe rollout holds at a pause step, end that step too
(the everynode.dev/rollout-resume annotation).`,
    flags: '',
  },
  retry: {
    summary: `Retry a halted rollout: lift the halt of its current revision, so that the controller moves
nodes to it again (the everynode.dev/rollout-retry annotation).`,
    flags: '',
  },
  plan: {
    summary: `Show, without changing anything, the order in which the rest of the rollout would move the
nodes (steps, pauses, then domain by domain in batches of maxUnavailable) and how long it would
take; for a DaemonSet that is rolled out, how a new revision would roll.`,
    flags: '      --pod-ready-seconds=30 how long a new pod takes to become available, in seconds',
  },
};

/** The rollout subcommands. */
export const ROLLOUT_SUBCOMMANDS = Object.keys(SUBCOMMANDS);

/** Usage of `kubectl everynode rollout <subcommand>`. */
export function subcommandUsage(subcommand: string): string {
  const entry = SUBCOMMANDS[subcommand];
  if (!entry) return ROLLOUT_USAGE;
  const flags = entry.flags === '' ? '' : `Flags:\n${entry.flags}\n\n`;
  return `${entry.summary}

Usage:
  kubectl everynode rollout ${subcommand} (TYPE NAME | TYPE/NAME) [flags]

${TYPES}
${flags}${GLOBAL_FLAGS}`;
}
