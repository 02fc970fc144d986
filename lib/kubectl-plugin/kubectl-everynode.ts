/**
 * `kubectl everynode`: reads the command line as kubectl would (global flags anywhere, then
 * `rollout <subcommand>`, its flags and the DaemonSets), runs the subcommand and reports its
 * errors in kubectl's words. Every failure exits 1, as kubectl's do; help exits 0.
 */
import { daemonSetTarget } from './daemon-set-target.ts';
import { KubectlError, kubectlErrorText } from './kubectl-error.ts';
import { type FlagSpec, leadingWords, parseFlags } from './plugin-flags.ts';
import { PLUGIN_USAGE, ROLLOUT_SUBCOMMANDS, ROLLOUT_USAGE, subcommandUsage } from './plugin-usage.ts';
import type { RolloutCommandContext } from './rollout-command-context.ts';

/** Where the plugin writes. */
export interface PluginIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

const GLOBAL_FLAGS: readonly FlagSpec[] = [
  { name: 'namespace', short: 'n', type: 'string' },
  { name: 'kubeconfig', type: 'string' },
  { name: 'context', type: 'string' },
  { name: 'request-timeout', type: 'string' },
  { name: 'help', short: 'h', type: 'bool' },
];

/** The flags of each rollout subcommand, as kubectl names them. */
const SUBCOMMAND_FLAGS: Readonly<Record<string, readonly FlagSpec[]>> = {
  status: [
    { name: 'watch', short: 'w', type: 'bool' },
    { name: 'revision', type: 'int' },
    { name: 'timeout', type: 'duration' },
  ],
  history: [{ name: 'revision', type: 'int' }],
  undo: [{ name: 'to-revision', type: 'int' }],
  restart: [],
  pause: [],
  resume: [],
  retry: [],
  plan: [{ name: 'pod-ready-seconds', type: 'int' }],
};

type Subcommand = (context: RolloutCommandContext) => Promise<unknown[]>;

/** Each subcommand's module, loaded when it runs. */
const SUBCOMMANDS: Readonly<Record<string, () => Promise<Subcommand>>> = {
  status: async () => (await import('./rollout-status.ts')).rolloutStatus,
  history: async () => (await import('./rollout-history.ts')).rolloutHistory,
  undo: async () => (await import('./rollout-undo.ts')).rolloutUndo,
  restart: async () => (await import('./rollout-restart.ts')).rolloutRestart,
  pause: async () => {
    const { rolloutPause } = await import('./rollout-pause.ts');
    return (context) => rolloutPause(context, true);
  },
  resume: async () => {
    const { rolloutPause } = await import('./rollout-pause.ts');
    return (context) => rolloutPause(context, false);
  },
  retry: async () => (await import('./rollout-retry.ts')).rolloutRetry,
  plan: async () => {
    const { rolloutPlan } = await import('./rollout-plan.ts');
    return (context) => rolloutPlan(context);
  },
};

const wantsHelp = (args: readonly string[]) =>
  args.some((arg) => arg === '-h' || arg === '--help' || arg === '--help=true');

/** The subcommand a command line names, or the exit code after printing usage. */
function chooseSubcommand(args: readonly string[], io: PluginIo): string | number {
  const allFlags = [...GLOBAL_FLAGS, ...Object.values(SUBCOMMAND_FLAGS).flat()];
  const [command, subcommand] = leadingWords(args, allFlags, 2);
  const help = wantsHelp(args);
  if (command === undefined) {
    (help ? io.stdout : io.stderr)(PLUGIN_USAGE);
    return help ? 0 : 1;
  }
  if (command !== 'rollout') {
    // cobra's legacyArgs on the root command, as `kubectl frobnicate` prints it.
    io.stderr(`error: unknown command ${JSON.stringify(command)} for "kubectl everynode"\n`);
    return 1;
  }
  if (subcommand === undefined) {
    (help ? io.stdout : io.stderr)(ROLLOUT_USAGE);
    return help ? 0 : 1;
  }
  if (!ROLLOUT_SUBCOMMANDS.includes(subcommand)) {
    // kubectl rollout's DefaultSubCommandRun: RequireNoArguments names every argument left.
    const words = leadingWords(args, GLOBAL_FLAGS, args.length).slice(1);
    io.stderr(
      `error: unknown command ${JSON.stringify(words.join(' '))}\nSee 'kubectl everynode rollout -h' for help and examples\n`,
    );
    return 1;
  }
  return subcommand;
}

/** Runs `kubectl everynode` with `args` (those after the plugin's name); resolves to the exit code. */
export async function kubectlEverynode(args: readonly string[], io: PluginIo): Promise<number> {
  const subcommand = chooseSubcommand(args, io);
  if (typeof subcommand === 'number') return subcommand;
  const hint = `See 'kubectl everynode rollout ${subcommand} --help' for usage.`;
  try {
    const specs = [...GLOBAL_FLAGS, ...(SUBCOMMAND_FLAGS[subcommand] ?? [])];
    const { values, positionals } = parseFlags(args, specs, hint);
    if (values.get('help') === true) {
      io.stdout(subcommandUsage(subcommand));
      return 0;
    }
    const text = (name: string) => {
      const value = values.get(name);
      return typeof value === 'string' ? value : undefined;
    };
    // client-node's kubeconfig support is large: loaded only for a command that talks to a cluster.
    const { pluginCluster } = await import('./plugin-cluster.ts');
    const { api, namespace } = pluginCluster({
      kubeconfig: text('kubeconfig'),
      context: text('context'),
      namespace: text('namespace'),
      requestTimeout: text('request-timeout'),
    });
    // As kubectl: the kubeconfig is read (Complete) before the arguments are checked (Validate).
    const target = daemonSetTarget(positionals.slice(2));
    const own = new Set((SUBCOMMAND_FLAGS[subcommand] ?? []).map((spec) => spec.name));
    const flags = new Map([...values].filter(([name]) => own.has(name)));
    const load = SUBCOMMANDS[subcommand];
    if (!load) throw new KubectlError(`unknown command ${JSON.stringify(subcommand)}`);
    const run = await load();
    const errors = await run({ api, namespace, target, flags, stdout: io.stdout, stderr: io.stderr });
    if (errors.length === 0) return 0;
    io.stderr(kubectlErrorText(errors));
    return 1;
  } catch (error) {
    io.stderr(kubectlErrorText([error]));
    return 1;
  }
}
