/**
 * The relay's view of the ControllerRevisions, for the revision hash its hints carry: per managed
 * DaemonSet, the controller-revision-hash of its new pods, planned from its namespace's revisions as
 * the DaemonSet step plans them (the matching revision's hash, or that of the revision it will
 * create), and remembered until the DaemonSet or the namespace's revisions change.
 */
import type { V1ControllerRevision } from '@kubernetes/client-node';
import { controllerOf } from '../../core/controller-ref.ts';
import type { DaemonSet } from '../../core/daemon-set.ts';
import { planRevisions } from '../../core/revision-history.ts';

/** A DaemonSet's hash, as of its version and its namespace's revisions' version. */
interface KnownHash {
  readonly resourceVersion: string;
  readonly revisionsVersion: number;
  readonly hash: string;
}

function identity(revision: Readonly<V1ControllerRevision>): { uid: string; namespace: string } {
  return { uid: revision.metadata?.uid ?? '', namespace: revision.metadata?.namespace ?? 'default' };
}

/**
 * Just the identity of a revision another kind of controller (a StatefulSet) owns — its name and
 * its owner: all a name collision with a DaemonSet's next revision needs (a revision is a
 * DaemonSet's only by its controller reference, never by its name). Its data is not kept.
 */
function nameOf(revision: Readonly<V1ControllerRevision>): V1ControllerRevision {
  const { name, namespace, uid, ownerReferences } = revision.metadata ?? {};
  return { metadata: { name, namespace, uid, ownerReferences }, revision: revision.revision };
}

/**
 * What the relay keeps of `revision`: a DaemonSet's (or an ownerless one, which a DaemonSet may
 * adopt) whole, another controller's as its identity only.
 */
export function keptRevisionOf(revision: Readonly<V1ControllerRevision>): Readonly<V1ControllerRevision> {
  const kind = controllerOf(revision)?.kind;
  return kind === undefined || kind === 'DaemonSet' ? revision : nameOf(revision);
}

/** ControllerRevisions by namespace and uid, and the hashes planned from them. */
export class RelayRevisionHashes {
  /** Undefined until listed: a relay that does not watch revisions knows no hash. */
  #revisions: Map<string, Map<string, V1ControllerRevision>> | undefined;
  /** A counter per namespace, moved by every change of its revisions. */
  readonly #versions = new Map<string, number>();
  readonly #hashes = new Map<string, KnownHash>();

  /** Replaces every revision by the listed `revisions`. */
  seed(revisions: readonly Readonly<V1ControllerRevision>[]): void {
    this.#revisions = new Map();
    this.#hashes.clear();
    for (const revision of revisions) this.put(revision);
  }

  /** Remembers `revision` (added or modified). */
  put(revision: Readonly<V1ControllerRevision>): void {
    const { uid, namespace } = identity(revision);
    if (!uid || this.#revisions === undefined) return;
    const kept = keptRevisionOf(revision);
    let inNamespace = this.#revisions.get(namespace);
    if (inNamespace === undefined) {
      inNamespace = new Map();
      this.#revisions.set(namespace, inNamespace);
    }
    inNamespace.set(uid, kept);
    this.#moved(namespace);
  }

  /** Forgets `revision` (deleted). */
  drop(revision: Readonly<V1ControllerRevision>): void {
    const { uid, namespace } = identity(revision);
    this.#revisions?.get(namespace)?.delete(uid);
    this.#moved(namespace);
  }

  /** Forgets the hash of the DaemonSet `uid` (deleted, or every DaemonSet relisted). */
  forget(uid?: string): void {
    if (uid === undefined) this.#hashes.clear();
    else this.#hashes.delete(uid);
  }

  /** The revision hash of `ds`'s new pods; undefined before the revisions were listed. */
  hashOf(ds: Readonly<DaemonSet>): string | undefined {
    if (this.#revisions === undefined) return undefined;
    const { uid = '', resourceVersion = '', namespace = 'default' } = ds.metadata ?? {};
    const revisionsVersion = this.#versions.get(namespace) ?? 0;
    const known = this.#hashes.get(uid);
    if (known?.resourceVersion === resourceVersion && known.revisionsVersion === revisionsVersion)
      return known.hash;
    const revisions = [...(this.#revisions.get(namespace)?.values() ?? [])];
    const hash = planRevisions(ds, revisions, []).currentHash;
    this.#hashes.set(uid, { resourceVersion, revisionsVersion, hash });
    return hash;
  }

  #moved(namespace: string): void {
    this.#versions.set(namespace, (this.#versions.get(namespace) ?? 0) + 1);
  }
}
