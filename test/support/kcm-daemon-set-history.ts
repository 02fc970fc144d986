/**
 * The plumbing and the history half of the kube-controller-manager DaemonSet controller the tests
 * play (kcm-daemon-set-controller.ts): a plain-JSON client, ControllerRef claiming, getPatch and
 * Match, ComputeHash, and constructHistory with snapshot, dedupCurHistories and cleanupHistory.
 * Ported from upstream's pkg/controller/daemon and pkg/controller, independently of lib/core's
 * revision code, so that it can check it.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { V1DaemonSetSpec, V1LabelSelector, V1PodSpec } from '@kubernetes/client-node';
import type { KubeConnection } from '../../lib/kube/connection/kube-connection.ts';

/** What the player counts. */
export interface KcmCounters {
  podsCreated: number;
  podsDeleted: number;
  revisionsCreated: number;
  podsAdopted: number;
  revisionsAdopted: number;
}

/** Object metadata as the player reads it (plain JSON). */
export interface KcmMeta {
  name: string;
  uid: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: { uid: string; controller?: boolean }[];
}

/** An API object as plain JSON. */
export type KcmObject = { metadata: KcmMeta };
/** An apps/v1 DaemonSet as the server returned it. */
export type KcmDaemonSet = KcmObject & {
  spec: V1DaemonSetSpec & { template: { metadata?: Partial<KcmMeta>; spec: V1PodSpec } };
  status?: Record<string, unknown> & { collisionCount?: number; observedGeneration?: number };
};
/** A pod. */
export type KcmPod = KcmObject & {
  spec: V1PodSpec;
  status?: { phase?: string; conditions?: { type: string; status: string; lastTransitionTime?: string }[] };
};
/** A ControllerRevision. */
export type KcmRevision = KcmObject & { data: unknown; revision: number };

/** apps.DefaultDaemonSetUniqueLabelKey. */
export const HASH_LABEL = 'controller-revision-hash';
const MERGE = 'application/merge-patch+json';
const STRATEGIC_MERGE = 'application/strategic-merge-patch+json';

/** An error answer of the API server: its code and its Status reason. */
export class KcmApiError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly reason: string,
  ) {
    super(message);
  }
}

/** The player's client: JSON requests over a kubeconfig's connection, on one namespace. */
export class KcmApi {
  readonly counters: KcmCounters = {
    podsCreated: 0,
    podsDeleted: 0,
    revisionsCreated: 0,
    podsAdopted: 0,
    revisionsAdopted: 0,
  };

  constructor(
    private readonly connection: KubeConnection,
    readonly namespace: string,
  ) {}

  /** The path of `resource` (pods, daemonsets, controllerrevisions) of the namespace, or of one of them. */
  path(resource: string, name?: string): string {
    const group = resource === 'pods' ? '/api/v1' : '/apis/apps/v1';
    return `${group}/namespaces/${this.namespace}/${resource}${name === undefined ? '' : `/${name}`}`;
  }

  /** `method` on `path` with `body` (a string is sent as is); the parsed answer, or a KcmApiError. */
  async call<T>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    const text = body === undefined || typeof body === 'string' ? body : JSON.stringify(body);
    const url = new URL(this.connection.server.replace(/\/+$/, '') + path);
    const type = text === undefined ? {} : { 'Content-Type': contentType };
    const headers = { ...(await this.connection.authHeaders()), Accept: 'application/json', ...type };
    const send = url.protocol === 'http:' ? http.request : https.request;
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      send(url, { method, headers, agent: this.connection.agent }, resolve).on('error', reject).end(text);
    });
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    const answer = Buffer.concat(chunks).toString('utf8');
    const code = response.statusCode ?? 0;
    if (code >= 200 && code < 300) return JSON.parse(answer) as T;
    const status = (answer.startsWith('{') ? JSON.parse(answer) : {}) as {
      message?: string;
      reason?: string;
    };
    throw new KcmApiError(
      `${method} ${path}: ${code} ${status.message ?? answer}`,
      code,
      status.reason ?? '',
    );
  }
}

/** A rejection handler that turns the API errors of `codes` into `false`. */
export function ignoreCodes(...codes: number[]): (error: unknown) => false {
  return (error) => {
    if (error instanceof KcmApiError && codes.includes(error.code)) return false;
    throw error;
  };
}

/** labels.Requirement.Matches (and the node selector's): `value` is the label's, or undefined. */
export function requirementMatches(
  operator: string,
  value: string | undefined,
  values: string[] = [],
): boolean {
  if (operator === 'In' || operator === 'NotIn') {
    return (value !== undefined && values.includes(value)) === (operator === 'In');
  }
  if (operator === 'Exists' || operator === 'DoesNotExist')
    return (value !== undefined) === (operator === 'Exists');
  if (value === undefined || !/^-?\d+$/.test(value) || values.length !== 1) return false;
  const [a, b] = [Number(value), Number(values[0])];
  return operator === 'Gt' ? a > b : operator === 'Lt' && a < b;
}

/** metav1.LabelSelectorAsSelector(selector).Matches(labels). */
function selectorMatches(selector: V1LabelSelector, labels: Record<string, string> = {}): boolean {
  const pairs = Object.entries(selector.matchLabels ?? {});
  return (
    pairs.every(([key, value]) => labels[key] === value) &&
    (selector.matchExpressions ?? []).every((e) => requirementMatches(e.operator, labels[e.key], e.values))
  );
}

/** metav1.GetControllerOf. */
function controllerOf(obj: KcmObject): { uid: string } | undefined {
  return obj.metadata.ownerReferences?.find((ref) => ref.controller === true);
}

/** metav1.NewControllerRef(ds, controllerKind). */
export function controllerRef(ds: KcmDaemonSet) {
  const { name, uid } = ds.metadata;
  return { apiVersion: 'apps/v1', kind: 'DaemonSet', name, uid, controller: true, blockOwnerDeletion: true };
}

/** RecheckDeletionTimestamp: a fresh GET of `ds`, once, before the first adoption. */
function canAdoptOnce(api: KcmApi, ds: KcmDaemonSet): () => Promise<void> {
  let check: Promise<void> | undefined;
  return () => {
    check ??= api.call<KcmDaemonSet>('GET', api.path('daemonsets', ds.metadata.name)).then((fresh) => {
      if (fresh.metadata.uid !== ds.metadata.uid) throw new Error(`DaemonSet ${ds.metadata.name} is gone`);
      if (fresh.metadata.deletionTimestamp) throw new Error(`DaemonSet ${ds.metadata.name} is being deleted`);
    });
    return check;
  };
}

/**
 * ClaimPods / ClaimControllerRevisions (claimObject): the objects `ds` controls once orphans that
 * match its selector are adopted and owned ones that no longer match are released, both with
 * upstream's strategic merge patches (the object's uid as precondition).
 */
export async function claimObjects<T extends KcmObject>(
  api: KcmApi,
  ds: KcmDaemonSet,
  objects: readonly T[],
  resource: 'pods' | 'controllerrevisions',
): Promise<T[]> {
  const canAdopt = canAdoptOnce(api, ds);
  const patch = (obj: T, refs: unknown[]) => {
    const body = { metadata: { ownerReferences: refs, uid: obj.metadata.uid } };
    return api.call('PATCH', api.path(resource, obj.metadata.name), body, STRATEGIC_MERGE);
  };
  const claimed: T[] = [];
  const errors: unknown[] = [];
  for (const obj of objects) {
    const owner = controllerOf(obj);
    const match = selectorMatches(ds.spec.selector, obj.metadata.labels);
    try {
      if (owner && owner.uid !== ds.metadata.uid) continue;
      if (owner && match) claimed.push(obj);
      else if (owner && !ds.metadata.deletionTimestamp) {
        await patch(obj, [{ $patch: 'delete', uid: ds.metadata.uid }]).catch(ignoreCodes(404, 422));
      } else if (!owner && match && !ds.metadata.deletionTimestamp && !obj.metadata.deletionTimestamp) {
        await canAdopt();
        if (await patch(obj, [controllerRef(ds)]).then(() => true, ignoreCodes(404))) {
          api.counters[resource === 'pods' ? 'podsAdopted' : 'revisionsAdopted'] += 1;
          claimed.push(obj);
        }
      }
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length > 0) throw new AggregateError(errors, `claiming ${resource}: ${errors.join('; ')}`);
  return claimed;
}

/**
 * Go's json.Marshal of a value json.Unmarshal gave: object keys sorted in byte order at every
 * depth (JSON.stringify would put integer-like keys first), compact. Strings are written as
 * JSON.stringify writes them, without Go's HTML escaping of <, > and & nor its escaping of
 * U+2028/U+2029: the simulated server hands revision data back unescaped, and the player reads it
 * through JSON.parse, which drops escapes anyway, so escaping here would only break Match.
 */
function goJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const keys = Object.keys(value).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const record = value as Record<string, unknown>;
  return `{${keys.map((key) => `${JSON.stringify(key)}:${goJson(record[key])}`).join(',')}}`;
}

/**
 * kube-controller-manager's getPatch(ds): the exact bytes it stores in a ControllerRevision's data
 * and compares in Match — `{"spec":{"template":<the template with "$patch":"replace">}}` as Go
 * marshals it.
 */
export function kcmGetPatch(ds: unknown): string {
  const template: unknown = JSON.parse(JSON.stringify((ds as KcmDaemonSet).spec?.template ?? null));
  if (template === null || typeof template !== 'object' || Array.isArray(template)) {
    throw new Error('the DaemonSet has no spec.template');
  }
  return goJson({ spec: { template: { ...template, $patch: 'replace' } } });
}

/** Match(ds, history): getPatch(ds) byte for byte equal to the revision's data as the server sent it. */
export function kcmMatch(ds: KcmDaemonSet, history: KcmRevision): boolean {
  // JSON.parse keeps the server's key order (but for integer-like keys), so this is its text.
  return kcmGetPatch(ds) === JSON.stringify(history.data);
}

/** rand.SafeEncodeString's alphabet: no vowels, no look-alikes. */
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * ComputeHash(template, collisionCount): FNV-32a, then the collision count as 4 little-endian
 * bytes when set, printed in decimal and passed through rand.SafeEncodeString. Upstream hashes
 * the Go struct as spew prints it, which cannot be reproduced here: this hashes getPatch's bytes,
 * as deterministic and as sensitive to the template.
 */
export function kcmComputeHash(patch: string, collisionCount?: number): string {
  const bytes = [...Buffer.from(patch)];
  if (collisionCount !== undefined) {
    const count = Buffer.alloc(4);
    count.writeUInt32LE(collisionCount >>> 0);
    bytes.push(...count);
  }
  let hash = 0x811c9dc5;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return [...String(hash)].map((c) => SAFE_ALPHABET[c.charCodeAt(0) % SAFE_ALPHABET.length]).join('');
}

/** maxRevision. */
function maxRevision(histories: readonly KcmRevision[]): number {
  return histories.reduce((max, history) => Math.max(max, history.revision), 0);
}

/**
 * Upstream's Update of a revision's labels or number, as a merge patch with the resourceVersion as
 * precondition: the same optimistic write, without sending data back re-serialised.
 */
function updateRevision(
  api: KcmApi,
  history: KcmRevision,
  change: { labels?: Record<string, string>; revision?: number },
): Promise<KcmRevision> {
  const { labels, revision } = change;
  const body = { metadata: { resourceVersion: history.metadata.resourceVersion, labels }, revision };
  return api.call('PATCH', api.path('controllerrevisions', history.metadata.name), body, MERGE);
}

/** controlledHistories: every revision of the namespace, claimed. */
async function controlledHistories(api: KcmApi, ds: KcmDaemonSet): Promise<KcmRevision[]> {
  const { items } = await api.call<{ items: KcmRevision[] }>('GET', api.path('controllerrevisions'));
  return claimObjects(api, ds, items, 'controllerrevisions');
}

/**
 * constructHistory: the current revision (snapshotted, deduplicated, renumbered as needed) and the
 * old ones, after labelling every revision with its hash.
 */
export async function constructHistory(
  api: KcmApi,
  ds: KcmDaemonSet,
  daemonPods: () => Promise<KcmPod[]>,
): Promise<{ cur: KcmRevision; old: KcmRevision[] }> {
  const current: KcmRevision[] = [];
  const old: KcmRevision[] = [];
  for (let history of await controlledHistories(api, ds)) {
    if (history.metadata.labels?.[HASH_LABEL] === undefined) {
      const labels = { ...history.metadata.labels, [HASH_LABEL]: history.metadata.name };
      history = await updateRevision(api, history, { labels });
    }
    (kcmMatch(ds, history) ? current : old).push(history);
  }
  const currRevision = maxRevision(old) + 1;
  if (current.length === 0) return { cur: await snapshot(api, ds, currRevision), old };
  let cur = await dedupCurHistories(api, current, daemonPods);
  if (cur.revision < currRevision) cur = await updateRevision(api, cur, { revision: currRevision });
  return { cur, old };
}

/** dedupCurHistories: keeps the highest revision, relabels the pods of the others and deletes them. */
async function dedupCurHistories(
  api: KcmApi,
  current: readonly KcmRevision[],
  daemonPods: () => Promise<KcmPod[]>,
): Promise<KcmRevision> {
  const keep = current.reduce((kept, cur) => (cur.revision >= kept.revision ? cur : kept));
  if (current.length === 1) return keep;
  const hash = keep.metadata.labels?.[HASH_LABEL] ?? '';
  for (const pod of await daemonPods()) {
    if (pod.metadata.labels?.[HASH_LABEL] === hash) continue;
    const patch = { metadata: { labels: { [HASH_LABEL]: hash } } };
    await api.call('PATCH', api.path('pods', pod.metadata.name), patch, MERGE);
  }
  for (const cur of current) {
    if (cur.metadata.name === keep.metadata.name) continue;
    await api.call('DELETE', api.path('controllerrevisions', cur.metadata.name));
  }
  return keep;
}

/**
 * snapshot: creates revision `revision` of `ds`'s template, named by its hash; on a name taken by
 * another template, bumps status.collisionCount (unless it was stale) and fails the sync.
 */
async function snapshot(api: KcmApi, ds: KcmDaemonSet, revision: number): Promise<KcmRevision> {
  const patch = kcmGetPatch(ds);
  const hash = kcmComputeHash(patch, ds.status?.collisionCount);
  const name = `${ds.metadata.name}-${hash}`;
  const metadata = {
    name,
    labels: { ...ds.spec.template.metadata?.labels, [HASH_LABEL]: hash },
    ...(ds.metadata.annotations ? { annotations: ds.metadata.annotations } : {}),
    ownerReferences: [controllerRef(ds)],
  };
  // Written by hand so that the server receives data with getPatch's key order.
  const body = `{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":${JSON.stringify(metadata)},"data":${patch},"revision":${revision}}`;
  try {
    const created = await api.call<KcmRevision>('POST', api.path('controllerrevisions'), body);
    api.counters.revisionsCreated += 1;
    return created;
  } catch (error) {
    if (!(error instanceof KcmApiError) || error.reason !== 'AlreadyExists') throw error;
    const existing = await api.call<KcmRevision>('GET', api.path('controllerrevisions', name));
    if (kcmMatch(ds, existing)) return existing;
    const fresh = await api.call<KcmDaemonSet>('GET', api.path('daemonsets', ds.metadata.name));
    const count = fresh.status?.collisionCount;
    if (count !== ds.status?.collisionCount) throw new Error(`stale collision count of ${ds.metadata.name}`);
    const status = { ...fresh.status, collisionCount: (count ?? 0) + 1 };
    await api.call('PUT', `${api.path('daemonsets', ds.metadata.name)}/status`, { ...fresh, status });
    throw error;
  }
}

/** cleanupHistory: deletes the oldest old revisions beyond revisionHistoryLimit that no pod runs. */
export async function cleanupHistory(
  api: KcmApi,
  ds: KcmDaemonSet,
  old: readonly KcmRevision[],
  daemonPods: readonly KcmPod[],
): Promise<void> {
  let toKill = old.length - (ds.spec.revisionHistoryLimit ?? 10);
  if (toKill <= 0) return;
  const liveHashes = new Set(daemonPods.map((pod) => pod.metadata.labels?.[HASH_LABEL]).filter(Boolean));
  for (const history of [...old].sort((a, b) => a.revision - b.revision)) {
    if (toKill <= 0) break;
    if (liveHashes.has(history.metadata.labels?.[HASH_LABEL])) continue;
    await api.call('DELETE', api.path('controllerrevisions', history.metadata.name));
    toKill -= 1;
  }
}
