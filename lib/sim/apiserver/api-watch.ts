/**
 * Watch streams (`?watch=true`): newline-delimited JSON events as the apiserver's WatchServer
 * writes them (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/watch.go), fed by the store in
 * resourceVersion order: initial ADDED events for resourceVersion "" / "0" / sendInitialEvents,
 * replay from the watch window for a given resourceVersion (ERROR 410 Expired when it is too old),
 * BOOKMARK events when allowed, and the end of the stream at timeoutSeconds, or when absent after
 * the server's random --min-request-timeout lifetime. A watch from a version the store has not
 * reached sends nothing until the store passes it, as the watch cache's cacheWatcher only sends
 * events newer than the version asked for (cacher.go `cacheWatcher.process`); with
 * sendInitialEvents it first waits for that version, then answers ERROR 504 Too large resource
 * version (cacher.go `waitUntilWatchCacheFreshAndForceAllEvents`).
 */

import { SimApiError } from '../schema/api-error.ts';
import { jsonText } from '../schema/store-json.ts';
import type { KubeObject } from '../schema/store-types.ts';
import { apiVersionOf, type HandlerContext } from './api-context.ts';
import { listQueryOf, validateListQuery } from './api-list-options.ts';
import { renderingFor } from './api-response.ts';
import { waitUntilFresh } from './api-wait-until-fresh.ts';
import { type Selection, selectionOf, selects, type WireEvent, watchEventFor } from './api-watch-filter.ts';
import { toTable } from './table.ts';

/** A live watch stream. */
class WatchStream {
  private closed = false;
  private headersSent = false;
  private readonly cleanups: (() => void)[] = [];

  constructor(
    private readonly ctx: HandlerContext,
    private readonly asTable: boolean,
  ) {}

  /** Registers what to undo when the stream ends. */
  onClose(cleanup: () => void): void {
    if (this.closed) cleanup();
    else this.cleanups.push(cleanup);
  }

  /** Writes one event line; drops the connection first when the fault injector says so. */
  send(type: string, object: unknown): void {
    if (this.closed) return;
    if (this.ctx.server.faults?.shouldDropWatch()) {
      this.abort();
      return;
    }
    const payload =
      this.asTable && (type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED')
        ? this.tableOf(object as KubeObject)
        : object;
    this.ctx.res.write(`{"type":"${type}","object":${jsonText(payload)}}\n`);
  }

  /** One-row Table of `obj`; column definitions only on the first (handlers/rest.go: NoHeaders after the first). */
  private tableOf(obj: KubeObject): unknown {
    const includeObject = (this.ctx.request.query.get('includeObject') ?? 'Metadata') as
      | 'None'
      | 'Metadata'
      | 'Object';
    const table = toTable(this.ctx.resource.key, [obj], {
      now: this.ctx.server.now(),
      wide: true,
      includeObject,
      listMeta: { resourceVersion: obj.metadata.resourceVersion },
    });
    if (this.headersSent) table.columnDefinitions = [];
    this.headersSent = true;
    return table;
  }

  /** Ends the stream cleanly (what the client sees at timeoutSeconds). */
  end(): void {
    if (this.closed) return;
    this.ctx.res.end();
    this.finish();
  }

  /** Cuts the connection without ending the chunked body. */
  abort(): void {
    if (this.closed) return;
    this.ctx.res.destroy();
    this.finish();
  }

  private finish(): void {
    this.closed = true;
    for (const cleanup of this.cleanups.splice(0)) cleanup();
  }
}

/** The BOOKMARK object: only kind, apiVersion and metadata.resourceVersion (plus annotations when given). */
function bookmark(
  ctx: HandlerContext,
  resourceVersion: number,
  annotations?: Record<string, string>,
): object {
  return {
    kind: ctx.resource.kind,
    apiVersion: apiVersionOf(ctx.resource),
    metadata: { resourceVersion: String(resourceVersion), ...(annotations ? { annotations } : {}) },
  };
}

/** The events to send before live changes, and the version live changes start after. */
function initialEvents(
  ctx: HandlerContext,
  selection: Selection,
  resourceVersion: string,
  sendInitial: boolean | undefined,
): WireEvent[] {
  const { store } = ctx.server;
  const fromState =
    sendInitial === true ||
    (sendInitial === undefined && (resourceVersion === '' || resourceVersion === '0'));
  if (fromState) {
    return store
      .view(ctx.resource.key, { namespace: selection.namespace })
      .filter((o) => selects(selection, o))
      .map((object) => ({ type: 'ADDED', object }));
  }
  if (resourceVersion === '') return [];
  const since = Number(resourceVersion);
  if (!Number.isInteger(since)) throw SimApiError.badRequest(`invalid resource version: ${resourceVersion}`);
  return store.changesSince(ctx.resource.key, since).flatMap((entry) => {
    const event = watchEventFor(selection, entry.event);
    return event ? [event] : [];
  });
}

/**
 * The version live events must be newer than: the one asked for, unless the watch starts from
 * state. Bookmarks need only not be older (a bookmark at it moves the client nowhere; one below it
 * would move it back).
 */
function watchedAfter(q: ReturnType<typeof listQueryOf>): number {
  const version = Number(q.resourceVersion);
  return q.sendInitialEvents === true || !Number.isInteger(version) ? 0 : version;
}

/** Starts the stream: headers, initial events, then live events until timeout, client close or server close. */
function run(
  ctx: HandlerContext,
  stream: WatchStream,
  selection: Selection,
  initial: WireEvent[],
  q: ReturnType<typeof listQueryOf>,
): void {
  const { store } = ctx.server;
  const after = watchedAfter(q);
  for (const event of initial) stream.send(event.type, event.object);
  if (q.sendInitialEvents)
    stream.send('BOOKMARK', bookmark(ctx, store.resourceVersion, { 'k8s.io/initial-events-end': 'true' }));
  stream.onClose(
    store.subscribe((change) => {
      const event = watchEventFor(selection, change);
      if (event && Number(change.object.metadata.resourceVersion) > after)
        stream.send(event.type, event.object);
    }),
  );
  if (q.allowWatchBookmarks) {
    const timer = setInterval(() => {
      if (store.resourceVersion >= after) stream.send('BOOKMARK', bookmark(ctx, store.resourceVersion));
    }, ctx.server.bookmarkIntervalMs);
    stream.onClose(() => clearInterval(timer));
  }
  // timeoutSeconds as given (negative ends at once); absent or 0 takes the server's random lifetime.
  const timeoutMs =
    q.timeoutSeconds !== undefined && q.timeoutSeconds !== 0
      ? Math.max(0, q.timeoutSeconds * 1000)
      : ctx.server.defaultWatchTimeoutMs();
  // setTimeout fires at once past 2^31-1 ms; such watches just stay open that long.
  const timer = setTimeout(() => stream.end(), Math.min(timeoutMs, 2 ** 31 - 1));
  stream.onClose(() => clearTimeout(timer));
  const drop = () => stream.abort();
  if (ctx.server.faults) stream.onClose(ctx.server.faults.onDropWatches(drop));
  ctx.server.watches.add(drop);
  stream.onClose(() => ctx.server.watches.delete(drop));
  ctx.req.on('close', () => stream.end());
  ctx.res.on('close', () => stream.end());
}

/** Answers a watch request. */
export async function handleWatch(ctx: HandlerContext): Promise<void> {
  const q = listQueryOf(ctx.request.query, true);
  validateListQuery(q);
  const name = ctx.request.name;
  const fieldSelector = name
    ? [q.fieldSelector, `metadata.name=${name}`].filter(Boolean).join(',')
    : q.fieldSelector;
  const selection = selectionOf(ctx.resource.key, ctx.request.namespace, q.labelSelector, fieldSelector);
  const asTable = renderingFor(ctx.req.headers.accept) === 'Table';
  const stream = new WatchStream(ctx, asTable);
  let initial: WireEvent[] = [];
  let gone: SimApiError | undefined;
  try {
    if (ctx.server.faults?.takeForcedGone(ctx.resource.key))
      throw SimApiError.expired(
        `too old resource version: ${q.resourceVersion || 0} (${ctx.server.store.resourceVersion})`,
      );
    const requested = Number(q.resourceVersion);
    if (q.sendInitialEvents && Number.isInteger(requested)) await waitUntilFresh(ctx.server.store, requested);
    initial = initialEvents(ctx, selection, q.resourceVersion, q.sendInitialEvents);
  } catch (error) {
    // Past validation, the watch cache answers with an ERROR event (cacher.go `newErrWatcher`).
    if (!(error instanceof SimApiError) || (error.status !== 410 && error.status !== 504)) throw error;
    gone = error;
  }
  ctx.res.writeHead(200, {
    'Content-Type': asTable ? 'application/json;as=Table;v=v1;g=meta.k8s.io' : 'application/json',
    'Cache-Control': 'no-cache, private',
    'Transfer-Encoding': 'chunked',
  });
  ctx.res.flushHeaders();
  if (gone) {
    stream.send('ERROR', gone.toStatus());
    stream.end();
    return;
  }
  run(ctx, stream, selection, initial, q);
}
