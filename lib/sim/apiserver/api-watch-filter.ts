/**
 * Turning store changes into the watch events one watcher sees, as the watch cache does
 * (staging/src/k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go convertToWatchEvent): an object
 * entering the selection is ADDED, one leaving it is DELETED (carrying its previous state at the
 * new resourceVersion), events at or below the watcher's starting version are not sent.
 */
import type { LabelRequirement } from '../../core/label-selector-grammar.ts';
import type { ResourceKey } from '../schema/resources.ts';
import type { KubeObject, StoreEvent } from '../schema/store-types.ts';
import {
  type FieldRequirement,
  matchesLabelSelector,
  parseFieldSelector,
  parseLabelSelectorQuery,
} from '../storage/selectors.ts';
import { checkSelectableField, selectableField } from '../storage/store-fields.ts';

/** A compiled selection: namespace, labels, fields. */
export interface Selection {
  readonly key: ResourceKey;
  readonly namespace: string | undefined;
  readonly labels: readonly LabelRequirement[];
  readonly fields: readonly FieldRequirement[];
}

/** Compiles selectors; throws 400 like the real server for malformed ones. */
export function selectionOf(
  key: ResourceKey,
  namespace: string | undefined,
  labelSelector: string,
  fieldSelector: string,
): Selection {
  const fields = parseFieldSelector(fieldSelector);
  for (const f of fields) checkSelectableField(key, f.field);
  return { key, namespace, labels: parseLabelSelectorQuery(labelSelector), fields };
}

/** Whether `obj` is selected. */
export function selects(selection: Readonly<Selection>, obj: Readonly<KubeObject>): boolean {
  if (selection.namespace && obj.metadata.namespace !== selection.namespace) return false;
  if (!matchesLabelSelector(selection.labels, obj.metadata.labels)) return false;
  return selection.fields.every(
    (f) => (selectableField(selection.key, obj, f.field) === f.value) === (f.operator === '='),
  );
}

/** A watch event as sent on the wire. */
export interface WireEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly object: Readonly<KubeObject>;
}

/** The event a watcher with `selection` sees for a store change, or undefined when none. */
export function watchEventFor(
  selection: Readonly<Selection>,
  event: Readonly<StoreEvent>,
): WireEvent | undefined {
  if (event.key !== selection.key) return undefined;
  const now = selects(selection, event.object);
  if (event.type === 'ADDED') return now ? { type: 'ADDED', object: event.object } : undefined;
  const before = event.oldObject ? selects(selection, event.oldObject) : false;
  if (event.type === 'DELETED') return before || now ? { type: 'DELETED', object: event.object } : undefined;
  if (now && before) return { type: 'MODIFIED', object: event.object };
  if (now) return { type: 'ADDED', object: event.object };
  if (before && event.oldObject) {
    const rv = event.object.metadata.resourceVersion;
    return {
      type: 'DELETED',
      object: { ...event.oldObject, metadata: { ...event.oldObject.metadata, resourceVersion: rv } },
    };
  }
  return undefined;
}
