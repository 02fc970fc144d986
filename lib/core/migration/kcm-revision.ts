/**
 * The ControllerRevision kube-controller-manager takes as a DaemonSet's current one: its `data`
 * must be the very bytes of getPatch(ds) (upstream pkg/controller/daemon/update.go Match), which
 * are `{"spec":{"template":{…template, "$patch":"replace"}}}` marshalled by Go from the DaemonSet
 * as the API server stores it, defaults included.
 */
import { goJson } from './go-json.ts';

/** A Kubernetes object as plain JSON. */
export type JsonRecord = Record<string, unknown>;

function recordAt(value: unknown, key: string): JsonRecord {
  const member = typeof value === 'object' && value !== null ? (value as JsonRecord)[key] : undefined;
  return typeof member === 'object' && member !== null && !Array.isArray(member)
    ? (member as JsonRecord)
    : {};
}

/**
 * getPatch(ds): the bytes kube-controller-manager writes as a revision's data and compares in
 * Match. `ds` must be the apps/v1 DaemonSet as the API server returns it (a server-side dry-run
 * create gives that before it exists), so that every defaulted field is in the template.
 */
export function kcmRevisionPatch(ds: Readonly<JsonRecord>): string {
  const template = recordAt(ds.spec, 'template');
  return goJson({ spec: { template: { ...template, $patch: 'replace' } } });
}

/**
 * The request body creating the revision `metadata` numbered `revision` with `patch` as its data,
 * as text: the API server keeps a revision's data as the bytes it was sent, so the body is written
 * out by hand rather than by JSON.stringify, which would re-encode the patch.
 */
export function controllerRevisionBody(
  metadata: Readonly<JsonRecord>,
  revision: number,
  patch: string,
): string {
  const head = JSON.stringify({ apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata, revision });
  return `${head.slice(0, -1)},"data":${patch}}`;
}
