/**
 * One resource's objects with the indexes lists use instead of scans: by namespace, by label
 * (key → value → ids) and by indexed fields (pods by spec.nodeName).
 */
import type { LabelRequirement } from '../../core/label-selector-grammar.ts';
import type { ResourceKey } from '../schema/resources.ts';
import type { KubeObject } from '../schema/store-types.ts';
import { type FieldRequirement, matchesLabelSelector } from './selectors.ts';
import { indexedFields, selectableField } from './store-fields.ts';

type Index = Map<string, Map<string, Set<string>>>;

/** Adds or removes `id` under index[outer][inner]. */
function indexSet(index: Index, outer: string, inner: string, id: string, add: boolean): void {
  let byInner = index.get(outer);
  if (!byInner) {
    if (!add) return;
    byInner = new Map();
    index.set(outer, byInner);
  }
  let ids = byInner.get(inner);
  if (!ids) {
    if (!add) return;
    ids = new Set();
    byInner.set(inner, ids);
  }
  if (add) ids.add(id);
  else {
    ids.delete(id);
    if (ids.size === 0) byInner.delete(inner);
  }
}

/** A candidate id collection: one set, or the union of several. */
type Candidates = { size: number; sets: ReadonlySet<string>[] };

function union(sets: ReadonlySet<string>[]): Candidates {
  return { size: sets.reduce((n, s) => n + s.size, 0), sets };
}

/** The objects of one resource type, keyed by `namespace/name` (or `name` when cluster-scoped). */
export class ResourceTable {
  /** id → frozen stored object. */
  readonly objects = new Map<string, KubeObject>();
  private readonly byNamespace = new Map<string, Set<string>>();
  private readonly byLabel: Index = new Map();
  private readonly byField: Index = new Map();

  constructor(readonly key: ResourceKey) {}

  /** The storage id of an object: `namespace/name`, or `name` for cluster-scoped objects. */
  static idOf(namespace: string | undefined, name: string): string {
    return namespace ? `${namespace}/${name}` : name;
  }

  /**
   * Stores `obj` under `id`, replacing any previous object; of the label and field indexes only
   * the entries whose values changed are touched (a status write re-indexes no label).
   */
  put(id: string, obj: KubeObject): void {
    const old = this.objects.get(id);
    this.objects.set(id, obj);
    if (!old) {
      this.index(id, obj, true);
      return;
    }
    // Kept last in its namespace's set, as a fresh index would have it: a namespace being emptied
    // deletes its objects in that order.
    const inNamespace = this.byNamespace.get(obj.metadata.namespace ?? '');
    inNamespace?.delete(id);
    inNamespace?.add(id);
    this.reindexLabels(id, old.metadata.labels, obj.metadata.labels);
    for (const field of indexedFields[this.key]) {
      const before = selectableField(this.key, old, field);
      const after = selectableField(this.key, obj, field);
      if (before === after) continue;
      indexSet(this.byField, field, before, id, false);
      indexSet(this.byField, field, after, id, true);
    }
  }

  /** Removes the object stored under `id`; returns it, or undefined when there was none. */
  remove(id: string): KubeObject | undefined {
    const old = this.objects.get(id);
    if (!old) return undefined;
    this.index(id, old, false);
    this.objects.delete(id);
    return old;
  }

  private index(id: string, obj: Readonly<KubeObject>, add: boolean): void {
    const namespace = obj.metadata.namespace ?? '';
    let ids = this.byNamespace.get(namespace);
    if (!ids && add) {
      ids = new Set();
      this.byNamespace.set(namespace, ids);
    }
    if (add) ids?.add(id);
    else ids?.delete(id);
    for (const [label, value] of Object.entries(obj.metadata.labels ?? {}))
      indexSet(this.byLabel, label, value, id, add);
    for (const field of indexedFields[this.key]) {
      indexSet(this.byField, field, selectableField(this.key, obj, field), id, add);
    }
  }

  /** Moves `id` in the label index from the `before` labels to the `after` ones, where they differ. */
  private reindexLabels(
    id: string,
    before: Readonly<Record<string, string>> | undefined,
    after: Readonly<Record<string, string>> | undefined,
  ): void {
    if (before === after) return;
    for (const [label, value] of Object.entries(before ?? {}))
      if (after?.[label] !== value) indexSet(this.byLabel, label, value, id, false);
    for (const [label, value] of Object.entries(after ?? {}))
      if (before?.[label] !== value) indexSet(this.byLabel, label, value, id, true);
  }

  /** The smallest indexed candidate set that every match must be in, or undefined when none applies. */
  private candidates(
    namespace: string | undefined,
    labels: readonly LabelRequirement[],
    fields: readonly FieldRequirement[],
  ): Candidates | undefined {
    const options: Candidates[] = [];
    if (namespace) options.push(union([this.byNamespace.get(namespace) ?? new Set()]));
    for (const r of labels) {
      const byValue = this.byLabel.get(r.key);
      if (r.operator === 'In') options.push(union(r.values.map((v) => byValue?.get(v) ?? new Set<string>())));
      if (r.operator === 'Exists') options.push(union([...(byValue?.values() ?? [])]));
    }
    for (const r of fields) {
      const byValue = this.byField.get(r.field);
      if (r.operator === '=' && byValue) options.push(union([byValue.get(r.value) ?? new Set()]));
    }
    return options.reduce<Candidates | undefined>(
      (best, c) => (!best || c.size < best.size ? c : best),
      undefined,
    );
  }

  /** The stored objects in `namespace` (all when undefined) matching every requirement, unsorted. */
  select(
    namespace: string | undefined,
    labels: readonly LabelRequirement[],
    fields: readonly FieldRequirement[],
  ): KubeObject[] {
    const candidates = this.candidates(namespace, labels, fields);
    const pool: Iterable<KubeObject> = candidates
      ? candidates.sets.flatMap((s) =>
          [...s].map((id) => this.objects.get(id)).filter((o) => o !== undefined),
        )
      : this.objects.values();
    const out: KubeObject[] = [];
    for (const obj of pool) {
      if (namespace && obj.metadata.namespace !== namespace) continue;
      if (!matchesLabelSelector(labels, obj.metadata.labels)) continue;
      if (
        !fields.every((f) => (selectableField(this.key, obj, f.field) === f.value) === (f.operator === '='))
      )
        continue;
      out.push(obj);
    }
    return out;
  }
}

/** `objects` in etcd key order (namespace, then name); sorts in place and returns the array. */
export function sortByKey(objects: KubeObject[]): KubeObject[] {
  const keyed = objects.map((o) => ({ id: `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`, o }));
  keyed.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (let i = 0; i < keyed.length; i += 1) objects[i] = (keyed[i] as { o: KubeObject }).o;
  return objects;
}
