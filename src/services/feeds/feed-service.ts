import { ALL_UNITS, type CatalogSnapshot } from '../../core/catalog/catalog.js';
import type { ChangeLog } from '../../core/catalog/change-log.js';
import type { CompiledFeed } from '../../core/feeds/compiled-feed.js';
import type { FeedReport } from '../../core/feeds/feed-report.js';
import { type ChangesResult, createChangesFeed } from './changes-feed.js';
import { encodedSize } from './encoded-feed.js';
import { type FeedRequest, type FeedServiceOptions, feedKey } from './feed-builder.js';
import type { FeedCache } from './feed-cache.js';
import { type FeedDescriptor, feedDescriptorsOf } from './feed-descriptors.js';
import type { FeedRenderer } from './feed-renderer.js';
import { createFeedRenders, type FeedRenders, type RenderTiming } from './feed-renders.js';

export type { ChangesResult } from './changes-feed.js';
export type { EncodedFeed } from './encoded-feed.js';
export type { FeedRequest, FeedServiceOptions, FeedVariant } from './feed-builder.js';
export type { FeedDescriptor, FeedFormat } from './feed-descriptors.js';
export type { PendingFeed, RenderedFeed, RenderOptions, RenderTiming } from './feed-renders.js';

export interface FeedServiceDeps {
  readonly templates: readonly CompiledFeed[];
  readonly renderer: FeedRenderer;
  readonly cache: FeedCache;
  /** The cache's budget (`FEED_CACHE_MB`), for `prewarmFit`; without it, no fit is reported. */
  readonly cacheBytes?: number;
  readonly changeLog: ChangeLog;
  readonly options: FeedServiceOptions;
  /** Told when a render fails that no request waited for (a background render while serving stale). */
  readonly onRenderError?: (error: unknown, request: FeedRequest) => void;
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
  /** The changes feed since a cursor (a version id); `ok: false` when the cursor is unknown. */
  changes(snapshot: CatalogSnapshot, view: string, since: string | undefined): Promise<ChangesResult>;
  /** Reports of the newest render of each feed, by `file|view|profile` key. */
  reports(): ReadonlyMap<string, FeedReport>;
  /** The change log behind `changes`, read by the channel push too (docs/decisions/0013-channel-push.md, section 2). */
  readonly changeLog: Pick<ChangeLog, 'changesSince'>;
  /** Records the change between two served versions (changes feed, version order, feeds of removed units). */
  recordChange(previous: CatalogSnapshot | undefined, next: CatalogSnapshot, changedPositions?: readonly number[]): void;
  /**
   * Renders every prewarmed feed of the `all` view (one pass over the catalog), so the first poll after a
   * change is fast. The workbook is not among them: people download it, channels do not poll it. Their
   * keys are pinned in the cache: never evicted to make room, even beyond the budget.
   */
  prewarm(snapshot: CatalogSnapshot, isCurrent: () => boolean): Promise<void>;
  /**
   * The bytes the cache holds for the last pre-render pass (`encodedSize`: gzip and br), beside the cache's
   * budget: a pass larger than the budget is kept anyway (pinned), over the budget, and every other feed
   * gives way to it (`undefined` before the first pass).
   */
  prewarmFit(): { readonly bytes: number; readonly budget: number } | undefined;
  /** Settles when no render is queued or running. */
  idle(): Promise<void>;
  /** Waits for renders in flight, then releases the renderer (its worker thread). */
  close(): Promise<void>;
}

export function createFeedService(deps: FeedServiceDeps): FeedService {
  const { templates, cache, changeLog, options } = deps;
  let lastPrewarmBytes: number | undefined;
  const feeds = feedDescriptorsOf(templates);
  const byFile = new Map(feeds.map((feed) => [feed.file, feed]));
  const renders = createFeedRenders({
    renderer: deps.renderer,
    cache,
    byFile,
    ...(deps.onRenderError === undefined ? {} : { onRenderError: deps.onRenderError }),
    ...(deps.timing === undefined ? {} : { timing: deps.timing }),
  });
  const changesFeed = createChangesFeed(changeLog, options);

  return {
    feeds,
    templates,
    options,
    find: (file) => byFile.get(file),
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
    async prewarm(snapshot, isCurrent) {
      if (!isCurrent()) return;
      const wanted = feeds.filter((descriptor) => descriptor.prewarmed && descriptor.servesView(ALL_UNITS));
      // Pinned before they are put: the pass's feeds must not evict each other (feed-cache.ts).
      cache.pin(wanted.map((descriptor) => feedKey({ file: descriptor.file, view: ALL_UNITS, variant: {} })));
      const rendered = await Promise.all(
        wanted.map((descriptor) => renders.render(snapshot, descriptor.file, ALL_UNITS, {}, { fresh: true })),
      );
      lastPrewarmBytes = rendered.reduce((sum, { feed }) => sum + encodedSize(feed), 0);
    },
    prewarmFit: () =>
      lastPrewarmBytes === undefined || deps.cacheBytes === undefined
        ? undefined
        : { bytes: lastPrewarmBytes, budget: deps.cacheBytes },
    idle: () => renders.idle(),
    close: () => renders.close(),
  };
}
