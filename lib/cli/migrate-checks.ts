/**
 * What `everynode migrate` checks before it changes anything: the permissions every step needs
 * (asked of the API server, as `kubectl auth can-i` does), that the record cannot be taken for a
 * revision of the DaemonSet, and that no rollout is under way.
 */
import type { V1LabelSelector } from '@kubernetes/client-node';
import { labelSelectorMatches } from '../core/label-selector.ts';
import { type DaemonSetKind, MIGRATION_RECORD_LABEL } from '../core/migration/migration-record.ts';
import type { JsonObject, KubeJsonApi } from '../kube/requests/json-api.ts';

/** One permission a migration needs. */
interface Permission {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
}

/** What the steps do, by resource: read and orphan the source, create the target, keep the record. */
function permissionsFor(from: DaemonSetKind, to: DaemonSetKind): Permission[] {
  const group = (kind: DaemonSetKind) => kind.split('/')[0] ?? '';
  return [
    { verb: 'get', group: group(from), resource: 'daemonsets' },
    { verb: 'delete', group: group(from), resource: 'daemonsets' },
    { verb: 'get', group: group(to), resource: 'daemonsets' },
    { verb: 'create', group: group(to), resource: 'daemonsets' },
    { verb: 'list', group: '', resource: 'pods' },
    ...['get', 'list', 'create', 'delete'].map((verb) => ({
      verb,
      group: 'apps',
      resource: 'controllerrevisions',
    })),
  ];
}

const resourceName = (p: Permission) => (p.group === '' ? p.resource : `${p.resource}.${p.group}`);

/** Whether the API server lets the caller do `p` in `namespace` (a SelfSubjectAccessReview). */
async function allowed(api: KubeJsonApi, namespace: string, p: Permission): Promise<boolean> {
  const review = await api.create(
    { group: 'authorization.k8s.io', version: 'v1', plural: 'selfsubjectaccessreviews' },
    {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { namespace, verb: p.verb, group: p.group, resource: p.resource } },
    },
  );
  return (review.status as { allowed?: boolean } | undefined)?.allowed === true;
}

/** The permissions the caller lacks in `namespace`, as `VERB RESOURCE` each; empty when it has them all. */
export async function missingPermissions(
  api: KubeJsonApi,
  namespace: string,
  from: DaemonSetKind,
  to: DaemonSetKind,
): Promise<string[]> {
  const wanted = permissionsFor(from, to);
  const answers = await Promise.all(wanted.map((p) => allowed(api, namespace, p)));
  return wanted.filter((_, i) => !answers[i]).map((p) => `${p.verb} ${resourceName(p)}`);
}

/**
 * Why the record of this DaemonSet could be mistaken for one of its revisions, or undefined: its
 * controller adopts every ownerless ControllerRevision its selector matches, and a selector of only
 * `NotIn` and `DoesNotExist` requirements matches the record's label too.
 */
export function recordCollision(source: Readonly<JsonObject>, recordLabel: string): string | undefined {
  const selector = (source.spec as { selector?: V1LabelSelector } | undefined)?.selector;
  if (selector === undefined || !labelSelectorMatches(selector, { [MIGRATION_RECORD_LABEL]: recordLabel }))
    return undefined;
  return `its selector also matches the migration record's label ${MIGRATION_RECORD_LABEL}=${recordLabel}, so its controller would adopt the record as a revision`;
}
