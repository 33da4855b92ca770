import { createSlicer } from '../core/async/create-slicer.js';
import { ALL_UNITS, type CatalogSnapshot } from '../core/catalog/catalog.js';
import type { ChangeLog } from '../core/catalog/change-log.js';
import { createEnrichedProducts } from '../core/catalog/family-enrichment.js';
import type { CompiledFeed } from '../core/feeds/compiled-feed.js';
import type { FeedReport } from '../core/feeds/feed-report.js';
import { jsonItemText } from '../core/feeds/render-json-feed.js';
import { toFeedItem } from '../core/feeds/to-feed-item.js';
import { type EncodedFeed, encodeBody, encodedFeed, encodedSize } from './feeds/encoded-feed.js';
import { type FeedRequest, type FeedServiceOptions, type FeedVariant, feedKey, itemOptionsOf } from './feeds/feed-builder.js';
import type { CachedFeed, FeedCache } from './feeds/feed-cache.js';
import type { FeedRenderer, RenderedBody } from './feeds/feed-renderer.js';
import { createRenderScheduler } from './feeds/render-scheduler.js';
import { XLSX_CONTENT_TYPE, XLSX_FEED_FILE } from './feeds/xlsx-feed.js';

export type { EncodedFeed } from './feeds/encoded-feed.js';
export type { FeedRequest, FeedServiceOptions, FeedVariant } from './feeds/feed-builder.js';

export type FeedFormat = 'json' | 'csv' | 'xml' | 'tsv' | 'xlsx';

/** One feed URL kind: a built-in (JSON, CSV) or a template from `templates/`. */
export interface FeedDescriptor {
  readonly name: string;
  readonly title: string;
  /** URL segment: `/feeds/{unit}/{file}`. */
  readonly file: string;
  readonly format: FeedFormat;
  readonly contentType: string;
  /** Rendered ahead of requests (`prewarm`): the feeds channels poll. Downloads for people are rendered on request. */
  readonly prewarmed: boolean;
  servesView(view: string): boolean;
}

export interface RenderedFeed {
  readonly feed: EncodedFeed;
  readonly report: FeedReport | undefined;
}

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

export interface RenderTiming {
  /** A request waits for a render of its version when the render is estimated at most this long (ms). */
  readonly waitForRenderMs: number;
  /** A feed's first render is waited for when it is estimated at most this long (ms). */
  readonly waitForFirstRenderMs: number;
  /** Renders are estimated from the catalog's size at this much per product (ms). */
  readonly renderMsPerProduct: number;
  /** Renders of one feed start at least this far apart (ms), and two render times. */
  readonly minRenderGapMs: number;
}

/** Defaults: a 100,000-item feed takes ~4 s to render (bench/render-feeds.ts), a 500-item one a few ms. */
const DEFAULT_TIMING: RenderTiming = {
  waitForRenderMs: 100,
  waitForFirstRenderMs: 1_000,
  renderMsPerProduct: 0.04,
  minRenderGapMs: 1_000,
};

export type ChangesResult = { readonly ok: true; readonly feed: EncodedFeed } | { readonly ok: false; readonly next: string };

/** A feed whose first render is under way and would keep the request waiting too long. */
export interface PendingFeed {
  readonly pending: true;
  /** About when to ask again. */
  readonly retryAfterSeconds: number;
}

export interface RenderOptions {
  /** Wait for the snapshot's own version even when a render of an older one is at hand (files, tests). */
  readonly fresh?: boolean;
}

export interface FeedService {
  readonly feeds: readonly FeedDescriptor[];
  /** The compiled templates and the options feeds are rendered with (a product's page renders its items alike). */
  readonly templates: readonly CompiledFeed[];
  readonly options: FeedServiceOptions;
  find(file: string): FeedDescriptor | undefined;
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
   * at most every couple of render times), or, when the feed has never been rendered and its first render
   * would take more than a second (a large catalog), `pending` while that render runs.
   */
  serve(snapshot: CatalogSnapshot, file: string, view: string, variant?: FeedVariant): Promise<RenderedFeed | PendingFeed>;
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

const JSON_TYPE = 'application/json; charset=utf-8';
const CSV_TYPE = 'text/csv; charset=utf-8; header=present';
/** Changes feeds kept (they are cheap and many cursors are in use at once). */
const MAX_CHANGES_ENTRIES = 64;
/** Versions whose order is remembered (more than any cache holds). */
const MAX_VERSION_ORDER = 10_000;

export function createFeedService(deps: FeedServiceDeps): FeedService {
  const { templates, cache, changeLog, options } = deps;
  let lastPrewarmBytes: number | undefined;
  const timing: RenderTiming = { ...DEFAULT_TIMING, ...deps.timing };
  const builtIns: FeedDescriptor[] = [
    {
      name: 'products-json',
      title: 'Catalog (JSON)',
      file: 'products.json',
      format: 'json',
      contentType: JSON_TYPE,
      prewarmed: true,
      servesView: () => true,
    },
    {
      name: 'products-csv',
      title: 'Catalog (CSV)',
      file: 'products.csv',
      format: 'csv',
      contentType: CSV_TYPE,
      prewarmed: true,
      servesView: () => true,
    },
    {
      // The spreadsheet download (typed cells, opens right in every locale): a few seconds of the render
      // thread at 100,000 products, so it is not rendered with every version, only when asked for.
      name: 'products-xlsx',
      title: 'Catalog (Excel workbook)',
      file: XLSX_FEED_FILE,
      format: 'xlsx',
      contentType: XLSX_CONTENT_TYPE,
      prewarmed: false,
      servesView: () => true,
    },
  ];
  const feeds: FeedDescriptor[] = [
    ...builtIns,
    ...templates.map((template) => ({
      name: template.name,
      title: template.title,
      file: template.file,
      format: template.kind,
      contentType: template.contentType,
      prewarmed: true,
      servesView: (view: string) => template.servesView(view),
    })),
  ];
  const byFile = new Map(feeds.map((feed) => [feed.file, feed]));

  /** Served versions in order, so that a render never replaces a newer one. */
  const versionOrder = new Map<string, number>();
  let versionCount = 0;
  function isNewer(a: string, b: string): boolean {
    const ia = versionOrder.get(a);
    const ib = versionOrder.get(b);
    return ia !== undefined && ib !== undefined ? ia > ib : a > b;
  }
  const scheduler = createRenderScheduler(deps.renderer, isNewer);
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

  async function renderNow(snapshot: CatalogSnapshot, request: FeedRequest, descriptor: FeedDescriptor): Promise<CachedFeed> {
    lastStarted.set(feedKey(request), performance.now());
    const render = await scheduler.request(snapshot, request);
    let entry = entries.get(render.body);
    if (entry === undefined) {
      const key = feedKey(request);
      const feed = encodedFeed(render.body, {
        key,
        version: render.snapshot.version,
        lastModified: new Date(render.snapshot.generatedAt),
        contentType: descriptor.contentType,
        fileName: fileNameOf(request),
      });
      entry = { feed, report: render.body.report, renderMs: render.renderMs };
      entries.set(render.body, entry);
      cache.put(key, entry, isNewer);
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

  async function serve(
    snapshot: CatalogSnapshot,
    file: string,
    view: string,
    variant: FeedVariant = {},
  ): Promise<RenderedFeed | PendingFeed> {
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
    if (cached === undefined) {
      if (estimateMs > timing.waitForFirstRenderMs) {
        renderNow(snapshot, request, descriptor).catch((error: unknown) => deps.onRenderError?.(error, request));
        return { pending: true, retryAfterSeconds: Math.ceil(estimateMs / 1000) };
      }
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
    if (mode.fresh !== true) {
      const served = await serve(snapshot, file, view, variant);
      if (!('pending' in served)) return served;
    }
    const descriptor = descriptorOf(file);
    const request: FeedRequest = { file, view, variant };
    const cached = cache.latest(feedKey(request));
    if (cached !== undefined && !isNewer(snapshot.version, cached.feed.version)) return cached;
    return renderNow(snapshot, request, descriptor);
  }

  const changesCache = new Map<string, Promise<EncodedFeed>>();

  async function changesBody(
    snapshot: CatalogSnapshot,
    view: string,
    since: string | undefined,
    list: readonly { id: string; change: string; fields?: readonly string[] }[],
  ): Promise<EncodedFeed> {
    const itemOpts = itemOptionsOf(snapshot, options);
    const positionOf = new Map<string, number>();
    const slicer = createSlicer();
    if (list.length > 0) {
      for (const [position, product] of snapshot.products.entries()) {
        positionOf.set(product.id, position);
        if ((position & 1023) === 1023) await slicer.next();
      }
    }
    // With their enrichment values, which the served catalog keeps off its products (family-enrichment.ts).
    const products = createEnrichedProducts(snapshot);
    const lines: string[] = [];
    for (const entry of list) {
      const position = positionOf.get(entry.id);
      const product = position === undefined ? undefined : products.at(position);
      const item = entry.change === 'removed' || product === undefined ? undefined : toFeedItem(product, view, itemOpts);
      const head = JSON.stringify(entry);
      lines.push(item === undefined ? head : `${head.slice(0, -1)},"item":${jsonItemText(item)}}`);
      await slicer.next();
    }
    const head = JSON.stringify({
      unit: view,
      since: since ?? null,
      next: snapshot.version,
      generatedAt: snapshot.generatedAt,
      count: list.length,
    });
    const body = Buffer.from(`${head.slice(0, -1)},"changes":[\n${lines.join(',\n')}\n]}\n`);
    return encodedFeed(await encodeBody(body), {
      key: `changes.json|${view}|${since ?? ''}`,
      version: snapshot.version,
      lastModified: new Date(snapshot.generatedAt),
      contentType: JSON_TYPE,
    });
  }

  async function changes(snapshot: CatalogSnapshot, view: string, since: string | undefined): Promise<ChangesResult> {
    let list: { id: string; change: string; fields?: readonly string[] }[];
    if (since === undefined) {
      list = [];
      for (const product of snapshot.products) {
        if (view === ALL_UNITS || product.offers.some((offer) => offer.unit === view))
          list.push({ id: product.id, change: 'added' });
      }
    } else {
      const result = await changeLog.changesSince(since, view, snapshot.version);
      if (!result.ok) return { ok: false, next: snapshot.version };
      list = [...result.changes];
    }
    const key = `${snapshot.version}|${view}|${since ?? ''}`;
    let feed = changesCache.get(key);
    if (feed === undefined) {
      feed = changesBody(snapshot, view, since, list);
      changesCache.set(key, feed);
      feed.catch(() => changesCache.delete(key));
      for (const old of changesCache.keys()) if (changesCache.size > MAX_CHANGES_ENTRIES) changesCache.delete(old);
    }
    return { ok: true, feed: await feed };
  }

  return {
    feeds,
    templates,
    options,
    find: (file) => byFile.get(file),
    render,
    serve,
    changes,
    changeLog,
    reports() {
      const reports = new Map<string, FeedReport>();
      for (const [key, entry] of cache.entries()) if (entry.report !== undefined) reports.set(key, entry.report);
      return reports;
    },
    recordChange(previous, next, changedPositions) {
      changeLog.record(previous, next, changedPositions);
      versionCount += 1;
      versionOrder.set(next.version, versionCount);
      for (const old of versionOrder.keys()) if (versionOrder.size > MAX_VERSION_ORDER) versionOrder.delete(old);
      const views = new Set([ALL_UNITS, ...next.units.map((unit) => unit.code)]);
      cache.retain((key) => views.has(key.split('|')[1] ?? ''));
      changesCache.clear();
    },
    async prewarm(snapshot, isCurrent) {
      if (!isCurrent()) return;
      const wanted = feeds.filter((descriptor) => descriptor.prewarmed && descriptor.servesView(ALL_UNITS));
      // Pinned before they are put: the pass's feeds must not evict each other (feed-cache.ts).
      cache.pin(wanted.map((descriptor) => feedKey({ file: descriptor.file, view: ALL_UNITS, variant: {} })));
      const rendered = await Promise.all(
        wanted.map((descriptor) => render(snapshot, descriptor.file, ALL_UNITS, {}, { fresh: true })),
      );
      lastPrewarmBytes = rendered.reduce((sum, { feed }) => sum + encodedSize(feed), 0);
    },
    prewarmFit: () =>
      lastPrewarmBytes === undefined || deps.cacheBytes === undefined
        ? undefined
        : { bytes: lastPrewarmBytes, budget: deps.cacheBytes },
    idle: () => scheduler.idle(),
    async close() {
      for (const entry of putOff.values()) clearTimeout(entry.timer);
      putOff.clear();
      await scheduler.idle();
      await deps.renderer.close();
    },
  };
}
