/**
 * The store's in-process writes (what the scheduler, kubelets and controllers use instead of the
 * API): read-modify-write of a copy (mutate), and the cheaper rewrite, which builds the next
 * version from the stored one, sharing what does not change. No conflict check, no validation.
 */
import type { ResourceKey } from '../schema/resources.ts';
import { cloneJson, jsonEqual, toWireJsonSharing } from '../schema/store-json.ts';
import type { KubeObject, UpdateOptions } from '../schema/store-types.ts';
import type { StoreCore } from './store-core.ts';
import { statusUpdateOf, strategyOf } from './store-strategy.ts';
import { commitUpdate, keepServerMetadata } from './store-write.ts';

/**
 * What a /status write keeps of the proposed object, as wire JSON: the status and the finalizers
 * (the rest is taken from the stored object, so copying it would be wasted).
 */
function statusPartOf(proposed: Readonly<KubeObject>, old: Readonly<KubeObject>): KubeObject {
  const { status, finalizers } = toWireJsonSharing(
    { status: proposed.status, finalizers: proposed.metadata.finalizers },
    { status: old.status, finalizers: old.metadata.finalizers },
  );
  return { ...(status === undefined ? {} : { status }), metadata: { finalizers } } as KubeObject;
}

/** `proposed` as wire JSON sharing the parts of `old` it kept, with metadata of its own to edit. */
function mainPartOf(proposed: Readonly<KubeObject>, old: Readonly<KubeObject>): KubeObject {
  const changed = toWireJsonSharing(proposed, old) as KubeObject;
  if (changed.metadata === old.metadata) changed.metadata = { ...old.metadata };
  return changed;
}

/**
 * In-process write of the next version of a stored object: `rewrite` gets the stored (frozen)
 * object and returns the next version — keeping by reference the parts that do not change, never
 * changing them — or undefined to write nothing. Returns the stored result, or undefined when the
 * object does not exist. Identity metadata is kept, generation follows spec changes, and a no-op
 * keeps the resourceVersion; with `subresource: 'status'` only status and finalizers are taken.
 */
export function rewriteObject(
  core: StoreCore,
  key: ResourceKey,
  namespace: string | undefined,
  name: string,
  rewrite: (old: Readonly<KubeObject>) => KubeObject | undefined,
  options: Readonly<UpdateOptions> = {},
): KubeObject | undefined {
  const old = core.find(key, namespace, name);
  if (!old) return undefined;
  const proposed = rewrite(old);
  if (proposed === undefined || proposed === old) return old;
  const status = options.subresource === 'status';
  const changed = status ? statusPartOf(proposed, old) : mainPartOf(proposed, old);
  const next = status ? statusUpdateOf(changed, old) : changed;
  keepServerMetadata(next, old);
  next.metadata.finalizers = changed.metadata.finalizers;
  if (next.metadata.finalizers === undefined) delete next.metadata.finalizers;
  if (strategyOf(key).hasGeneration && !status) {
    const { status: _s, metadata: _m, ...spec } = next;
    const { status: _os, metadata: _om, ...oldSpec } = old;
    if (!jsonEqual(spec, oldSpec)) next.metadata.generation = (old.metadata.generation ?? 1) + 1;
  }
  return commitUpdate(core, key, next, old);
}

/**
 * In-process read-modify-write: `change` edits a copy of the stored object; otherwise as
 * {@link rewriteObject}.
 */
export function mutateObject(
  core: StoreCore,
  key: ResourceKey,
  namespace: string | undefined,
  name: string,
  change: (obj: KubeObject) => void,
  options: Readonly<UpdateOptions> = {},
): KubeObject | undefined {
  const edit = (old: Readonly<KubeObject>) => {
    const draft = cloneJson(old);
    change(draft);
    return draft;
  };
  return rewriteObject(core, key, namespace, name, edit, options);
}
