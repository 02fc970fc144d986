/**
 * A DaemonSet's rollout history as kubectl reads it (kubectl polymorphichelpers history.go
 * daemonSetHistory / controlledHistory and rollback.go findHistory): the ControllerRevisions of its
 * namespace that its selector matches and that it controls, by revision number; and the pod
 * template a revision restores (applyDaemonSetHistory: its data is a strategic merge patch of
 * spec.template, which `$patch: replace` makes the whole template).
 */
import type { V1ControllerRevision, V1LabelSelector, V1PodTemplateSpec } from '@kubernetes/client-node';
import { isControlledBy } from '../core/controller-ref.ts';
import { labelSelectorMatches } from '../core/label-selector.ts';
import type { KubeObject, PluginApi } from './plugin-api.ts';

/** The revisions `ds` controls, sorted by revision number (oldest first). */
export async function daemonSetHistory(
  api: PluginApi,
  ds: Readonly<KubeObject>,
): Promise<V1ControllerRevision[]> {
  const namespace = ds.metadata?.namespace ?? 'default';
  const selector = (ds.spec as { selector?: V1LabelSelector } | undefined)?.selector;
  const { items } = await api.listControllerRevisions(namespace, '');
  return (items as unknown as V1ControllerRevision[])
    .filter(
      (revision) => labelSelectorMatches(selector, revision.metadata?.labels) && isControlledBy(revision, ds),
    )
    .sort((a, b) => a.revision - b.revision);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `patch` merged into `base` as a JSON merge patch (null deletes), for a revision without `$patch`. */
function merged(base: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return patch;
  const result: Record<string, unknown> = isRecord(base) ? { ...base } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = merged(result[key], value);
  }
  return result;
}

/**
 * The template `ds` gets when `revision` is applied to it: the revision's template as it is when
 * it replaces the whole template (`$patch: replace`, as every controller writes it), else merged
 * into the current one.
 */
export function templateOfRevision(
  ds: Readonly<KubeObject>,
  revision: Readonly<V1ControllerRevision>,
): V1PodTemplateSpec {
  const data = revision.data as { spec?: { template?: Record<string, unknown> } } | undefined;
  const { $patch, ...template } = data?.spec?.template ?? {};
  if ($patch === 'replace') return template as V1PodTemplateSpec;
  const current = (ds.spec as { template?: unknown } | undefined)?.template;
  return merged(current, template) as V1PodTemplateSpec;
}
