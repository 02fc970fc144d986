/**
 * A resource's objects as they were at an earlier resourceVersion, rebuilt by undoing the changes
 * recorded since then: how the simulator serves `resourceVersionMatch=Exact` lists and consistent
 * continuation pages without keeping snapshots.
 */
import type { ResourceKey } from '../schema/resources.ts';
import type { KubeObject, ListFilter } from '../schema/store-types.ts';
import { matchesLabelSelector, parseFieldSelector, parseLabelSelectorQuery } from './selectors.ts';
import { selectableField } from './store-fields.ts';
import type { HistoryEntry } from './store-history.ts';

const idOf = (o: Readonly<KubeObject>): string => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

/**
 * The objects matching `filter` at the version before `changes` (which must be every change since
 * that version, oldest first), given all `current` objects. Unsorted.
 */
export function stateAt(
  current: readonly KubeObject[],
  changes: readonly HistoryEntry[],
  filter: Readonly<ListFilter>,
  key: ResourceKey,
): KubeObject[] {
  const state = new Map(current.map((o) => [idOf(o), o]));
  for (let i = changes.length - 1; i >= 0; i -= 1) {
    const event = changes[i]?.event;
    if (!event) continue;
    if (event.type === 'ADDED') state.delete(idOf(event.object));
    else if (event.oldObject) state.set(idOf(event.oldObject), event.oldObject);
  }
  const labels = parseLabelSelectorQuery(filter.labelSelector ?? '');
  const fields = parseFieldSelector(filter.fieldSelector ?? '');
  return [...state.values()].filter(
    (o) =>
      (!filter.namespace || o.metadata.namespace === filter.namespace) &&
      matchesLabelSelector(labels, o.metadata.labels) &&
      fields.every((f) => (selectableField(key, o, f.field) === f.value) === (f.operator === '=')),
  );
}
