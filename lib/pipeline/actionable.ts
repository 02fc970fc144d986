/**
 * Whether a DaemonSet's pods may be touched at all by a step that does not report on it (pair,
 * node): the DaemonSet step records why not (a condition and a Warning event).
 */
import type { DaemonSet } from '../core/daemon-set.ts';
import { isEmptyLabelSelector } from '../core/label-selector.ts';
import { validateDaemonSet } from '../core/validation.ts';

/**
 * True when the pair and node steps may act for `ds`: it is not being deleted (garbage collection
 * owns its pods then), its selector selects something (upstream SelectingAll), and its spec is
 * valid (an invalid spec touches no pod).
 */
export function isActionable(ds: Readonly<DaemonSet>): boolean {
  if (ds.metadata?.deletionTimestamp) return false;
  const selector = ds.spec?.selector;
  if (selector === undefined || isEmptyLabelSelector(selector)) return false;
  return validateDaemonSet(ds).length === 0;
}
