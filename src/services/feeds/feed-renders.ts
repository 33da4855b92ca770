import type { CatalogSnapshot } from '../../core/catalog/catalog.js';
import type { FeedReport } from '../../core/feeds/feed-report.js';
import { type EncodedFeed, encodedFeed } from './encoded-feed.js';
import { type FeedRequest, type FeedVariant, feedKey } from './feed-builder.js';
import type { CachedFeed, FeedCache } from './feed-cache.js';
import type { FeedDescriptor } from './feed-descriptors.js';
import type { FeedFileStore } from './feed-files.js';
import type { FeedRenderer, RenderedBody } from './feed-renderer.js';
import { createRenderScheduler } from './render-scheduler.js';

export interface RenderTiming {
  /** A request waits for a render of its version when the render is estimated at most this long (ms). */
  readonly waitForRenderMs: number;
  /** Renders are estimated from the catalog's size at this much per product (ms). */
  readonly renderMsPerProduct: number;
  /** Renders of one feed start at least this far apart (ms), and two render times. */
  readonly minRenderGapMs: number;
}

/** Defaults: a 100,000-item feed takes ~4 s to render (bench/render-feeds.ts), a 500-item one a few ms. */
const DEFAULT_TIMING: RenderTiming = {
  waitForRenderMs: 100,
  renderMsPerProduct: 0.04,
  minRenderGapMs: 1_000,
};

export interface RenderedFeed {
  readonly feed: EncodedFeed;
  readonly report: FeedReport | undefined;
}

export interface RenderOptions {
  /** Wait for the snapshot's own version even when a render of an older one is at hand (files, tests). */
  readonly fresh?: boolean;
}

/** Versions whose order is remembered (more than any cache holds). */
const MAX_VERSION_ORDER = 10_000;

export interface FeedRendersDeps {
  readonly renderer: FeedRenderer;
  readonly cache: FeedCache;
  /** Where the renderer's files are named (docs/decisions/0016-feed-files.md); absent, bodies are in memory. */
  readonly files?: FeedFileStore;
  readonly byFile: ReadonlyMap<string, FeedDescriptor>;
  /** Told when a render fails that no request waited for (a background render while serving stale). */
  readonly onRenderError?: (error: unknown, request: FeedRequest) => void;
  /** Told when a finished render could not be named in, or a replaced one removed from, the feed files. */
  readonly onFilesError?: (error: unknown, key: string) => void;
  readonly timing?: Partial<RenderTiming>;
}

/** Rendering feeds on request, once per version, serving stale while a long render runs (see `FeedService`). */
export interface FeedRenders {
  /**
   * The encoded feed of `file` in `view`, rendered once per version. While the snapshot's own version is
   * being rendered and rendering this feed takes long (a large catalog), the newest complete render is
   * served instead, so that a poll never waits seconds behind a render: stale-while-revalidate.
   */
  render(
    snapshot: CatalogSnapshot,
    file: string,
    view: string,
    variant?: FeedVariant,
    options?: RenderOptions,
  ): Promise<RenderedFeed>;
  /**
   * `render` for a request that must not wait long: the newest complete render (a new one is started,
   * at most every couple of render times). A feed never rendered is waited for: once a catalog exists,
   * no feed answers "try again later".
   */
  serve(snapshot: CatalogSnapshot, file: string, view: string, variant?: FeedVariant): Promise<RenderedFeed>;
  /** A version served after every one noted before it. */
  noteVersion(version: string): void;
  idle(): Promise<void>;
  close(): Promise<void>;
}

export function createFeedRenders(deps: FeedRendersDeps): FeedRenders {
  const { cache, byFile } = deps;
  const timing: RenderTiming = { ...DEFAULT_TIMING, ...deps.timing };
  /** Served versions in order, so that a render never replaces a newer one. */
  const versionOrder = new Map<string, number>();
  let versionCount = 0;
  function isNewer(a: string, b: string): boolean {
    const ia = versionOrder.get(a);
    const ib = versionOrder.get(b);
    return ia !== undefined && ib !== undefined ? ia > ib : a > b;
  }
  const scheduler = createRenderScheduler(deps.renderer, isNewer, (key) => cache.isPinned(key));
  /** One cache entry per finished render, however many requests waited for it. */
  const entries = new WeakMap<RenderedBody, CachedFeed>();
  /** Per feed key: when its last render started, and a render put off to keep renders apart. */
  const lastStarted = new Map<string, number>();
  const putOff = new Map<string, { snapshot: CatalogSnapshot; readonly timer: NodeJS.Timeout }>();

  function fileNameOf({ file, view, variant }: FeedRequest): string {
    const suffix = variant.csvProfile === 'excel' ? '-excel' : '';
    const dot = file.lastIndexOf('.');
    return `${file.slice(0, dot)}-${view}${suffix}${file.slice(dot)}`;
  }

  /** Keeps a finished render: in the cache, and named in the feed files once it is the newest of its key. */
  function keep(key: string, entry: CachedFeed): void {
    const outcome = cache.put(key, entry, isNewer);
    const { files } = deps;
    if (files === undefined) return;
    const failed = (error: unknown) => deps.onFilesError?.(error, key);
    if (!outcome.kept) {
      files.discard(key, entry, { forget: false }).catch(failed);
      return;
    }
    const { replaced } = outcome;
    files
      .commit(key, entry)
      .then(() => (replaced === undefined ? undefined : files.discard(key, replaced, { forget: false })))
      .catch(failed);
  }

  async function renderNow(snapshot: CatalogSnapshot, request: FeedRequest, descriptor: FeedDescriptor): Promise<CachedFeed> {
    const key = feedKey(request);
    lastStarted.set(key, performance.now());
    let render: Awaited<ReturnType<typeof scheduler.request>>;
    try {
      render = await scheduler.request(snapshot, request);
    } catch (error) {
      deps.files?.noteError(key, error);
      throw error;
    }
    let entry = entries.get(render.body);
    if (entry === undefined) {
      const feed = encodedFeed(render.body, {
        key,
        version: render.snapshot.version,
        lastModified: new Date(render.snapshot.generatedAt),
        contentType: descriptor.contentType,
        fileName: fileNameOf(request),
      });
      entry = { feed, report: render.body.report, renderMs: render.renderMs };
      entries.set(render.body, entry);
      keep(key, entry);
    }
    return entry;
  }

  function descriptorOf(file: string): FeedDescriptor {
    const descriptor = byFile.get(file);
    if (descriptor === undefined) throw new Error(`Unknown feed ${file}`);
    return descriptor;
  }

  /** A render of `snapshot` for a stale feed, now or once the gap since the last one has passed. */
  function refresh(snapshot: CatalogSnapshot, request: FeedRequest, descriptor: FeedDescriptor, cached: CachedFeed): void {
    const key = feedKey(request);
    const waiting = putOff.get(key);
    if (waiting !== undefined) {
      if (isNewer(snapshot.version, waiting.snapshot.version)) waiting.snapshot = snapshot;
      return;
    }
    const gap =
      Math.max(timing.minRenderGapMs, 2 * cached.renderMs) -
      (performance.now() - (lastStarted.get(key) ?? Number.NEGATIVE_INFINITY));
    const start = (target: CatalogSnapshot) =>
      renderNow(target, request, descriptor).catch((error: unknown) => deps.onRenderError?.(error, request));
    if (gap <= 0) {
      void start(snapshot);
      return;
    }
    const timer = setTimeout(() => {
      const entry = putOff.get(key);
      putOff.delete(key);
      if (entry !== undefined) void start(entry.snapshot);
    }, gap);
    timer.unref();
    putOff.set(key, { snapshot, timer });
  }

  async function serve(snapshot: CatalogSnapshot, file: string, view: string, variant: FeedVariant = {}): Promise<RenderedFeed> {
    const descriptor = descriptorOf(file);
    const request: FeedRequest = { file, view, variant };
    const cached = cache.latest(feedKey(request));
    if (cached !== undefined && !isNewer(snapshot.version, cached.feed.version)) return cached;
    // Estimated from the catalog's size, not timed: how long a render takes on a busy machine varies, and a
    // small shop must always get the version it asks for.
    const estimateMs = snapshot.products.length * timing.renderMsPerProduct;
    if (cached !== undefined && estimateMs > timing.waitForRenderMs) {
      refresh(snapshot, request, descriptor, cached);
      return cached;
    }
    return renderNow(snapshot, request, descriptor);
  }

  async function render(
    snapshot: CatalogSnapshot,
    file: string,
    view: string,
    variant: FeedVariant = {},
    mode: RenderOptions = {},
  ): Promise<RenderedFeed> {
    if (mode.fresh !== true) return serve(snapshot, file, view, variant);
    const descriptor = descriptorOf(file);
    const request: FeedRequest = { file, view, variant };
    const cached = cache.latest(feedKey(request));
    if (cached !== undefined && !isNewer(snapshot.version, cached.feed.version)) return cached;
    return renderNow(snapshot, request, descriptor);
  }

  return {
    render,
    serve,
    noteVersion(version) {
      versionCount += 1;
      versionOrder.set(version, versionCount);
      for (const old of versionOrder.keys()) if (versionOrder.size > MAX_VERSION_ORDER) versionOrder.delete(old);
    },
    idle: () => scheduler.idle(),
    async close() {
      for (const entry of putOff.values()) clearTimeout(entry.timer);
      putOff.clear();
      await scheduler.idle();
      await deps.renderer.close();
    },
  };
}
