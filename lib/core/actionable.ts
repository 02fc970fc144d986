/**
 * Whether a DaemonSet's pods may be touched at all by a step that does not report on it (pair,
 * node): the DaemonSet step records why not (a condition and a Warning event).
 */
import type { DaemonSet } from './daemon-set.ts';
import { isEmptyLabelSelector } from './label-selector.ts';
import { validateDaemonSet } from './validation.ts';

/**
 * True when the pair and node steps may act for `ds`: it is not being deleted (garbage collection
 * owns its pods then), its selector selects something (upstream SelectingAll), and its spec is
 * valid (an invalid spec touches no pod).
 */
export function isActionable(ds: Readonly<DaemonSet>): boolean {
  if (ds.metadata?.deletionTimestamp) return false;
  const selector = ds.spec?.selector;
  if (selector === undefined || isEmptyLabelSelector(selector)) return false;
  return isValid(ds);
}

/**
 * Validation verdicts by object: the steps of a warm process plan from the same cached DaemonSet
 * objects again and again (read-only, one per resourceVersion), and validating a whole pod
 * template each time costs a node step more than its planning.
 */
const verdicts = new WeakMap<object, boolean>();

function isValid(ds: Readonly<DaemonSet>): boolean {
  let valid = verdicts.get(ds);
  if (valid === undefined) {
    valid = validateDaemonSet(ds).length === 0;
    verdicts.set(ds, valid);
  }
  return valid;
}
