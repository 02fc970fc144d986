/**
 * Which DaemonSets a `kubectl everynode rollout` command line names, read as kubectl's resource
 * builder reads `TYPE/NAME…`, `TYPE NAME…` or `TYPE` (every one in the namespace): everynode's
 * own `everynode.dev/v1` DaemonSet (`eds`, `daemonset.everynode.dev`, `daemonsets.everynode.dev`)
 * or the built-in `apps/v1` one (`ds`, `daemonset`, `daemonset.apps`) everynode may manage.
 */
import { type ManagedKind, managedResourceOf } from '../kube/managed-kind.ts';
import { KubectlError } from './kubectl-error.ts';

/** The DaemonSets one command acts on. */
export interface DaemonSetTarget {
  readonly kind: ManagedKind;
  /** The names given, in order; undefined for every DaemonSet of the kind in the namespace. */
  readonly names: readonly string[] | undefined;
}

/** Each resource type kubectl accepts for the two kinds (lower case, as kubectl matches them). */
const TYPES: Readonly<Record<string, ManagedKind>> = Object.fromEntries([
  ...['eds', 'daemonset.everynode.dev', 'daemonsets.everynode.dev'].flatMap((type) => [
    [type, 'everynode.dev/v1'],
    [type.replace('.everynode.dev', '.v1.everynode.dev'), 'everynode.dev/v1'],
  ]),
  ...['ds', 'daemonset', 'daemonsets', 'daemonset.apps', 'daemonsets.apps'].flatMap((type) => [
    [type, 'apps/v1'],
    [type.replace('.apps', '.v1.apps'), 'apps/v1'],
  ]),
]);

/** kubectl's words for `TYPE TYPE/NAME` (its message lacks the closing parenthesis). */
const MIXED_FORMS =
  "there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>'";

function kindOf(type: string): ManagedKind {
  const kind = TYPES[type.toLowerCase()];
  if (kind === undefined)
    throw new KubectlError(`the server doesn't have a resource type ${JSON.stringify(type)}`);
  return kind;
}

/**
 * The target of `args` (the arguments after the subcommand); throws kubectl's errors for none, for
 * `TYPE TYPE/NAME` mixed forms, for two kinds in one command and for a type that is no DaemonSet.
 */
export function daemonSetTarget(args: readonly string[]): DaemonSetTarget {
  const [first, ...rest] = args;
  if (first === undefined) throw new KubectlError('required resource not specified');
  if (first.includes('/')) {
    // The resource builder's splitResourceTypeName for every argument, before any type is mapped.
    const split = args.map((arg) => {
      if (!arg.includes('/')) throw new KubectlError(MIXED_FORMS);
      const [type = '', name = '', ...more] = arg.split('/');
      if (more.length > 0)
        throw new KubectlError('arguments in resource/name form may not have more than one slash');
      if (type === '' || name === '')
        throw new KubectlError('arguments in resource/name form must have a single resource and name');
      return { type, name };
    });
    const pairs = split.map(({ type, name }) => ({ kind: kindOf(type), name }));
    const kinds = new Set(pairs.map((pair) => pair.kind));
    if (kinds.size > 1)
      throw new KubectlError('everynode.dev/v1 and apps/v1 DaemonSets cannot be mixed in one command');
    return { kind: pairs[0]?.kind ?? 'everynode.dev/v1', names: pairs.map((pair) => pair.name) };
  }
  if (rest.some((arg) => arg.includes('/'))) {
    throw new KubectlError(MIXED_FORMS);
  }
  return { kind: kindOf(first), names: rest.length > 0 ? rest : undefined };
}

/**
 * How kubectl names a DaemonSet of `kind` in its messages (the name printer's
 * `<kind>.<group>/<name>`): `daemonset.everynode.dev/NAME` or `daemonset.apps/NAME`.
 */
export function printedName(kind: ManagedKind, name: string): string {
  return `daemonset.${managedResourceOf(kind).group}/${name}`;
}
