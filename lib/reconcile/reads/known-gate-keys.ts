/**
 * The node readiness gate keys a DaemonSet's pods tolerate as far as this process knows
 * (docs/design.md, 26. Node readiness gates): core places and creates pods with the keys it is
 * given; which keys are in use is the process cache's to say, so this lives in reconcile.
 */
import type { DaemonSet } from '../../core/daemon-set.ts';
import { gateKeysFor } from '../../core/node-gates/gate-declaration.ts';
import type { DepsPart } from '../deps/reconcile-deps.ts';

/**
 * The gate keys `ds`'s pods tolerate as far as this process knows: its own gate's and those of the
 * DaemonSets it has read (the pair and DaemonSet steps read one DaemonSet; the node step lists them
 * all and passes them to `gateKeysFor` itself).
 */
export function knownGateKeys(deps: DepsPart<never, 'objects'>, ds: Readonly<DaemonSet>): string[] {
  return gateKeysFor(ds, deps.memory.objects.knownDaemonSets());
}
