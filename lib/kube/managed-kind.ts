/**
 * The DaemonSet resource everynode manages, chosen by configuration
 * (docs/design.md, 19. Managed kinds): its own `everynode.dev/v1` DaemonSet (default; on EKS the
 * built-in controller owns `apps/v1`), or `apps/v1` for clusters whose kube-controller-manager runs
 * without its DaemonSet controller.
 */

/** The managed kinds, default first. */
export const managedKinds = ['everynode.dev/v1', 'apps/v1'] as const;

/** The apiVersion of the DaemonSets everynode manages. */
export type ManagedKind = (typeof managedKinds)[number];

/** The managed kind used when configuration names none. */
export const DEFAULT_MANAGED_KIND: ManagedKind = 'everynode.dev/v1';

/** Where a managed kind is served: API group, version and plural resource name. */
export interface ManagedResource {
  readonly group: string;
  readonly version: string;
  readonly plural: 'daemonsets';
  readonly apiVersion: ManagedKind;
  readonly kind: 'DaemonSet';
}

/** The API group, version and plural of `kind`. */
export function managedResourceOf(kind: ManagedKind): ManagedResource {
  const [group = '', version = ''] = kind.split('/');
  return { group, version, plural: 'daemonsets', apiVersion: kind, kind: 'DaemonSet' };
}

/**
 * The managed kind named by `value` (an environment variable or CLI option), the default when it
 * is empty, or undefined when it names no managed kind.
 */
export function parseManagedKind(value: string | undefined): ManagedKind | undefined {
  if (value === undefined || value === '') return DEFAULT_MANAGED_KIND;
  return managedKinds.find((kind) => kind === value);
}
