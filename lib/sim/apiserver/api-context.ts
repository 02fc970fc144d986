/**
 * What every resource handler of the simulated API server gets: the store, the request, where it
 * is addressed, and the shared per-server state.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AccessControl } from '../auth/access-control.ts';
import type { UserInfo } from '../auth/user-info.ts';
import type { RequestCounters } from '../counters.ts';
import type { FaultInjector } from '../faults.ts';
import type { ResourceDefinition } from '../schema/resources.ts';
import type { KubeObject } from '../schema/store-types.ts';
import type { ClusterStore } from '../storage/store.ts';
import type { ResourceRequest } from './api-request.ts';

/** Sorted list results kept so continue pages are served from the same state (a consistent list). */
export class ListSnapshots {
  private readonly entries = new Map<string, readonly KubeObject[]>();

  constructor(private readonly capacity = 16) {}

  /** The snapshot under `id`, computed with `make` when missing; the oldest is dropped past capacity. */
  get(id: string, make: () => readonly KubeObject[]): readonly KubeObject[] {
    const found = this.entries.get(id);
    if (found) return found;
    const made = make();
    this.entries.set(id, made);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    return made;
  }
}

/** Server-wide state and settings the handlers share. */
export interface ServerState {
  readonly store: ClusterStore;
  readonly faults: FaultInjector | undefined;
  readonly snapshots: ListSnapshots;
  readonly now: () => Date;
  /** Milliseconds between watch BOOKMARK events when bookmarks are allowed. */
  readonly bookmarkIntervalMs: number;
  /** Open watch streams, closed when the server closes. */
  readonly watches: Set<() => void>;
  /** Milliseconds a watch without timeoutSeconds stays open (drawn anew for each watch). */
  readonly defaultWatchTimeoutMs: () => number;
  /** Who may do what (default: every request is an administrator's). */
  readonly access: AccessControl;
  /** Where requests are counted and LIST sizes noted, if anywhere. */
  readonly counters?: RequestCounters;
}

/** One resource request being handled. */
export interface HandlerContext {
  readonly server: ServerState;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly request: ResourceRequest;
  readonly resource: ResourceDefinition;
  /** Who the request authenticated as. */
  readonly user: UserInfo;
}

/** `apiVersion` of a resource (`v1`, `apps/v1`). */
export function apiVersionOf(resource: Readonly<ResourceDefinition>): string {
  return resource.group ? `${resource.group}/${resource.version}` : resource.version;
}
