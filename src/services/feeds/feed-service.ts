import { ALL_UNITS, type CatalogSnapshot } from '../../core/catalog/catalog.js';
import type { ChangeLog } from '../../core/catalog/change-log.js';
import type { CompiledFeed } from '../../core/feeds/compiled-feed.js';
import type { FeedReport } from '../../core/feeds/feed-report.js';
import type { PolledFeed } from '../fetches/polled-feeds.js';
import { type ChangesResult, createChangesFeed } from './changes-feed.js';
import { encodedSize } from './encoded-feed.js';
import { type FeedRequest, type FeedServiceOptions, type FeedVariant, feedKey } from './feed-builder.js';
import type { FeedCache } from './feed-cache.js';
import { type FeedDescriptor, feedDescriptorsOf, WHOLE_CHANGES_FEED } from './feed-descriptors.js';
import type { FeedFileStore, FeedFilesStatus } from './feed-files.js';
import type { FeedRenderer } from './feed-renderer.js';
import { createFeedRenders, type FeedRenders, type RenderTiming } from './feed-renders.js';

export type { PolledFeed } from '../fetches/polled-feeds.js';
export type { ChangesResult } from './changes-feed.js';
export type { EncodedFeed } from './encoded-feed.js';
export type { FeedRequest, FeedServiceOptions, FeedVariant } from './feed-builder.js';
export type { FeedDescriptor, FeedFormat } from './feed-descriptors.js';
export type { RenderedFeed, RenderOptions, RenderTiming } from './feed-renders.js';

export interface FeedServiceDeps {
  readonly templates: readonly CompiledFeed[];
  readonly renderer: FeedRenderer;
  readonly cache: FeedCache;
  /** Where rendered bodies live (docs/decisions/0016-feed-files.md); absent, in memory (tools, tests). */
  readonly files?: FeedFileStore;
  /** The cache's budget (`FEED_CACHE_MB`), for `prewarmFit`; without it, no fit is reported. */
  readonly cacheBytes?: number;
  readonly changeLog: ChangeLog;
  readonly options: FeedServiceOptions;
  /** Told when a render fails that no request waited for (a background render while serving stale). */
  readonly onRenderError?: (error: unknown, request: FeedRequest) => void;
  /** Told when a finished render could not be named in, or a replaced one removed from, the feed files. */
  readonly onFilesError?: (error: unknown, key: string) => void;
  /** When requests wait for renders (defaults below; tests set their own). */
  readonly timing?: Partial<RenderTiming>;
}

/** The feeds (`render` and `serve` as `FeedRenders` describes them), their changes and their list. */
export interface FeedService extends Pick<FeedRenders, 'render' | 'serve'> {
  readonly feeds: readonly FeedDescriptor[];
  /** The compiled templates and the options feeds are rendered with (a product's page renders its items alike). */
  readonly templates: readonly CompiledFeed[];
  readonly options: FeedServiceOptions;
  find(file: string): FeedDescriptor | undefined;
  /** Whether the feed has a render of any version to serve: else a request waits for its first render. */
  isRendered(file: string, view: string, variant: FeedVariant): boolean;
  /** The changes feed since a cursor (a version id); `ok: false` when the cursor is unknown. */
  changes(snapshot: CatalogSnapshot, view: string, since: string | undefined): Promise<ChangesResult>;
  /** Reports of the newest render of each feed, by `file|view|profile` key. */
  reports(): ReadonlyMap<string, FeedReport>;
  /** The change log behind `changes`, read by the channel push too (docs/decisions/0013-channel-push.md, section 2). */
  readonly changeLog: Pick<ChangeLog, 'changesSince'>;
  /** Records the change between two served versions (changes feed, version order, feeds of removed units). */
  recordChange(previous: CatalogSnapshot | undefined, next: CatalogSnapshot, changedPositions?: readonly number[]): void;
  /**
   * Renders every prewarmed feed of the `all` view and the feeds pollers ask for (`polled`, from the fetch
   * log; the first sync renders those never rendered first, in a pass of their own), so the first poll after a
   * change is fast. The workbook is not among them: people download it, channels do not poll it. Their
   * keys are pinned in the cache: never evicted to make room, even beyond the budget. `scope: 'polled'`
   * renders the polled feeds alone (a version that changed stock only; see feed-prewarm.ts), the pins kept.
   */
  prewarm(
    snapshot: CatalogSnapshot,
    isCurrent: () => boolean,
    polled?: readonly PolledFeed[],
    scope?: PrewarmScope,
  ): Promise<void>;
  /**
   * The bytes the last pre-render pass keeps (`encodedSize`: identity, gzip and br, on disk), beside the cache's
   * budget: a pass larger than the budget is kept anyway (pinned), over the budget, and every other feed
   * gives way to it (`undefined` before the first pass).
   */
  prewarmFit(): { readonly bytes: number; readonly budget: number } | undefined;
  /**
   * Serves the feeds rendered before a restart from their files at once (before the listener opens), those
   * of the version `served` is (the stored catalog served at start; none when it is not served, such as a
   * sandbox's catalog on a store now used for a POS) or of an older one made at most
   * `FULL_PREWARM_EVERY_MS` before it: an older one is served as a stale feed (rendered again, its file served meanwhile), and a
   * newer catalog's feeds replace them as they are rendered. The files of other versions are deleted.
   * Returns how many feeds were restored.
   */
  restore(served: Pick<CatalogSnapshot, 'version' | 'generatedAt'> | undefined): Promise<number>;
  /** What the rendered feeds take (on disk for bodies in files) beside the budget, and the files' last error. */
  storage(): FeedStorage;
  /** Settles when no render is queued or running. */
  idle(): Promise<void>;
  /** Waits for renders in flight, then releases the renderer (its worker thread). */
  close(): Promise<void>;
}

/** The rendered feeds kept, for `/readyz`, the status page and metrics. */
export interface FeedStorage {
  readonly entries: number;
  readonly bytes: number;
  /** `FEED_CACHE_MB` in bytes, when known. */
  readonly budget?: number;
  /** Absent when bodies are kept in memory. */
  readonly files?: FeedFilesStatus;
}

/**
 * Every `all` feed is pre-rendered at least this often (feed-prewarm.ts), stock changes or not; and a feed
 * file may be this much older than the served catalog to be served after a restart (older ones: an instance
 * down for days, a folder another store used, are deleted and rendered again).
 */
export const FULL_PREWARM_EVERY_MS = 30 * 60_000;

/** A pre-render of every `all` feed and the polled ones, or of the polled ones alone. */
export type PrewarmScope = 'all' | 'polled';

/** Polled feeds beyond the `all` view's rendered with every version: the fetch log can be flooded. */
const MAX_POLLED = 8;

export function createFeedService(deps: FeedServiceDeps): FeedService {
  const { templates, cache, changeLog, options } = deps;
  let lastPrewarmBytes: number | undefined;
  const feeds = feedDescriptorsOf(templates);
  const byFile = new Map(feeds.map((feed) => [feed.file, feed]));
  const renders = createFeedRenders({
    renderer: deps.renderer,
    cache,
    byFile: new Map([...byFile, [WHOLE_CHANGES_FEED.file, WHOLE_CHANGES_FEED]]),
    ...(deps.files === undefined ? {} : { files: deps.files }),
    ...(deps.onRenderError === undefined ? {} : { onRenderError: deps.onRenderError }),
    ...(deps.onFilesError === undefined ? {} : { onFilesError: deps.onFilesError }),
    ...(deps.timing === undefined ? {} : { timing: deps.timing }),
  });
  const changesFeed = createChangesFeed(changeLog, options, async (snapshot, view) => {
    const served = await renders.serve(snapshot, WHOLE_CHANGES_FEED.file, view);
    return served.feed;
  });

  return {
    feeds,
    templates,
    options,
    find: (file) => byFile.get(file),
    isRendered: (file, view, variant) => cache.latest(feedKey({ file, view, variant })) !== undefined,
    render: renders.render,
    serve: renders.serve,
    changes: changesFeed.changes,
    changeLog,
    reports() {
      const reports = new Map<string, FeedReport>();
      for (const [key, entry] of cache.entries()) if (entry.report !== undefined) reports.set(key, entry.report);
      return reports;
    },
    recordChange(previous, next, changedPositions) {
      changeLog.record(previous, next, changedPositions);
      renders.noteVersion(next.version);
      const views = new Set([ALL_UNITS, ...next.units.map((unit) => unit.code)]);
      cache.retain((key) => views.has(key.split('|')[1] ?? ''));
      changesFeed.clear();
    },
    async prewarm(snapshot, isCurrent, polled = [], scope = 'all') {
      if (!isCurrent()) return;
      const views = new Set([ALL_UNITS, ...snapshot.units.map((unit) => unit.code)]);
      let units = 0;
      const asked = polled
        .filter(({ file, view }) => {
          const descriptor = byFile.get(file);
          if (!views.has(view) || descriptor?.prewarmed !== true || !descriptor.servesView(view)) return false;
          // The `all` view's feeds are few (one per template); the cap is for the units' views.
          if (view === ALL_UNITS) return true;
          units += 1;
          return units <= MAX_POLLED;
        })
        .map(({ file, view }): FeedRequest => ({ file, view, variant: {} }));
      const renderAll = (requests: readonly FeedRequest[]) =>
        Promise.all(requests.map((request) => renders.render(snapshot, request.file, request.view, {}, { fresh: true })));
      if (scope === 'polled') {
        await renderAll(asked);
        return;
      }
      const askedKeys = new Set(asked.map(feedKey));
      const others = feeds
        .filter((descriptor) => descriptor.prewarmed && descriptor.servesView(ALL_UNITS))
        .map((descriptor): FeedRequest => ({ file: descriptor.file, view: ALL_UNITS, variant: {} }))
        .filter((request) => !askedKeys.has(feedKey(request)));
      // Pinned before they are put: the pass's feeds must not evict each other (feed-cache.ts).
      cache.pin([...asked, ...others].map(feedKey));
      // A polled feed never rendered (the first sync) goes first, in a pass of its own: its poller waits for
      // it; otherwise one pass renders them all, the previous files served meanwhile.
      const first = asked.some((request) => cache.latest(feedKey(request)) === undefined) ? await renderAll(asked) : [];
      const rest = await renderAll(first.length > 0 ? others : [...asked, ...others]);
      lastPrewarmBytes = [...first, ...rest].reduce((sum, { feed }) => sum + encodedSize(feed), 0);
    },
    prewarmFit: () =>
      lastPrewarmBytes === undefined || deps.cacheBytes === undefined
        ? undefined
        : { bytes: lastPrewarmBytes, budget: deps.cacheBytes },
    async restore(served) {
      const { files } = deps;
      if (files === undefined) return 0;
      let count = 0;
      for (const [key, entry] of await files.restore()) {
        // An older version's file too (a feed left out of the pre-renders since, feed-prewarm.ts): served
        // at once, and rendered again as any stale feed is. Version ids sort by time.
        const recent =
          served !== undefined &&
          entry.feed.version <= served.version &&
          entry.feed.lastModified.getTime() >= Date.parse(served.generatedAt) - FULL_PREWARM_EVERY_MS;
        if (recent) {
          cache.put(key, entry, () => false);
          count += 1;
        } else await files.discard(key, entry, { forget: true });
      }
      return count;
    },
    storage: () => ({
      ...cache.stats(),
      ...(deps.cacheBytes === undefined ? {} : { budget: deps.cacheBytes }),
      ...(deps.files === undefined ? {} : { files: deps.files.status() }),
    }),
    idle: () => renders.idle(),
    async close() {
      await renders.close();
      await deps.files?.close();
    },
  };
}
