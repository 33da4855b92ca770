import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DocPages } from '../adapters/docs/doc-pages.js';
import { openFeedFileStore } from '../adapters/feed-files/feed-file-store.js';
import { temporaryFeedFilesDir } from '../adapters/feed-files/feed-files-lock.js';
import { createRedisFetchLog } from '../adapters/group/redis-fetch-log.js';
import type { Logger } from '../adapters/logger/create-logger.js';
import { besideStore, sqliteStorePath } from '../adapters/store/beside-store.js';
import { openKeyv } from '../adapters/store/create-keyv.js';
import { createKeyvFetchLog } from '../adapters/store/keyv-fetch-log.js';
import type { Config } from '../config/load-config.js';
import { type ChangeHistory, createChangeLog } from '../core/catalog/change-log.js';
import type { CompiledFeed } from '../core/feeds/compiled-feed.js';
import { loadTemplates, type TemplateFile } from '../core/feeds/load-templates.js';
import { NO_STOCK_SETTINGS, type StockSettings } from '../core/feeds/stock-policy.js';
import type { RunningSandbox } from '../sandbox/start-sandbox.js';
import type { CatalogService } from '../services/catalog/catalog-service.js';
import type { EnrichmentService } from '../services/enrichment/enrichment-service.js';
import { createFeedBuilder } from '../services/feeds/feed-builder.js';
import { createFeedCache } from '../services/feeds/feed-cache.js';
import { type FeedPrewarm, startFeedPrewarm } from '../services/feeds/feed-prewarm.js';
import { createInThreadFeedRenderer } from '../services/feeds/feed-renderer.js';
import { createFeedService, type FeedService, type PolledFeed } from '../services/feeds/feed-service.js';
import { emptyFeeds, operatorWarnings } from '../services/feeds/feed-warnings.js';
import { createFetchLog, type FetchLog } from '../services/fetches/fetch-log.js';
import { polledFeeds } from '../services/fetches/polled-feeds.js';
import { createWorkerDocPages } from '../workers/create-doc-pages.js';
import { createWorkerFeedRenderer } from '../workers/create-feed-renderer.js';
import type { AppPart, Shared } from './app-part.js';
import { isGroupStore } from './catalog-parts.js';

/**
 * The feeds wired from the configuration: the templates, the feed service and its renderer thread, the
 * pre-rendering that keeps them in step with the catalog, and the log of who fetches them. The templates and
 * the feed service are shared with the one-shot CLI (`cli/sync-once.ts`).
 */

/** The templates/ folder shipped beside src/ and dist/. */
const SHIPPED_TEMPLATES = fileURLToPath(new URL('../../templates/', import.meta.url));

/** The docs/ folder shipped beside src/ and dist/ (the Docker image copies it too). */
const SHIPPED_DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));

/** The shipped documentation as HTML pages (`GET /docs/…`, linked from the status page). */
export function createShippedDocPages(): DocPages {
  return createWorkerDocPages(SHIPPED_DOCS);
}

/** Feed templates as read (the render worker compiles the same files, with the same stock settings) and as compiled. */
export interface LoadedTemplates {
  readonly files: readonly TemplateFile[];
  /** The configuration's part of every feed's stock policy, as the templates were compiled with it. */
  readonly stock: StockSettings;
  readonly compiled: readonly CompiledFeed[];
}

/**
 * Reads and compiles every `*.json` feed template; any problem stops the start (TemplateLoadError), and so
 * does a `FEED_STOCK_POLICY` that names no template.
 */
export async function loadTemplateDir(dir: string, stock: StockSettings = NO_STOCK_SETTINGS): Promise<LoadedTemplates> {
  const names = (await readdir(dir)).filter((name) => name.endsWith('.json')).sort();
  const files = await Promise.all(
    names.map(async (name) => ({ name: join(dir, name), text: await readFile(join(dir, name), 'utf8') })),
  );
  return { files, stock, compiled: loadTemplates(files, stock) };
}

/** `UNIT_STOCK_BUFFER` and `FEED_STOCK_POLICY`, as the feed templates take them. */
export function stockSettingsOf(config: Config): StockSettings {
  return { unitBuffers: config.feed.unitStockBuffers, feedPolicies: config.feed.stockPolicies };
}

/** `FEED_TEMPLATES_DIR`, or the shipped templates, with the configured stock settings. */
export function loadConfiguredTemplates(config: Config): Promise<LoadedTemplates> {
  return loadTemplateDir(config.feed.templatesDir ?? SHIPPED_TEMPLATES, stockSettingsOf(config));
}

/** Where the rendered feed files live, and whether the folder is a temporary one (deleted at stop). */
export interface FeedFilesPlace {
  readonly dir: string;
  readonly temporary: boolean;
}

/**
 * `FEED_FILES_DIR`; else beside a SQLite store (`data/catalog.sqlite` → `data/catalog.feeds`), so a restart
 * serves the last rendered feeds at once; else (Redis, memory: no folder of the bridge's own) a temporary
 * folder.
 */
export function feedFilesPlaceOf(config: Config): FeedFilesPlace {
  if (config.feed.filesDir !== undefined) return { dir: resolve(config.feed.filesDir), temporary: false };
  const storePath = sqliteStorePath(config.store.url);
  if (storePath !== undefined) return { dir: besideStore(storePath, 'feeds', { sqlite: false }), temporary: false };
  return temporaryFeedFiles();
}

/** A fresh temporary folder (the one-shot CLI renders into one and copies the feeds out). */
export function temporaryFeedFiles(): FeedFilesPlace {
  return { dir: temporaryFeedFilesDir(), temporary: true };
}

/**
 * The feed service with the configured currency, brand, links and cache. Feeds of versions `catalog`
 * served are rendered in a worker thread from their serialized chunks into files (`place`); others in this
 * thread, in memory.
 */
export function createConfiguredFeedService(
  config: Config,
  templates: LoadedTemplates,
  sandbox: RunningSandbox | undefined,
  catalog: Pick<CatalogService, 'chunksOf'>,
  logger: Logger,
  place: FeedFilesPlace,
  history?: ChangeHistory,
): FeedService {
  const options = {
    currency: config.feed.currency,
    brand: config.feed.brand,
    // RSS 2.0 requires the channel's <link>: the documented default when PUBLIC_BASE_URL is unset.
    baseUrl: config.http.publicBaseUrl ?? `http://localhost:${config.http.port}`,
    links: { storeCodes: config.feed.unitStoreCodes, ...linkTemplates(config, sandbox) },
  };
  const inThread = createInThreadFeedRenderer(createFeedBuilder(templates.compiled, options));
  const files = openFeedFileStore({
    dir: place.dir,
    temporary: place.temporary,
    now: () => new Date(),
    onProblem: (message, error) => logger.warn({ err: error, dir: place.dir }, message),
  });
  const onFilesError = (error: unknown, key: string) =>
    logger.warn(
      { err: error, feed: key, dir: place.dir },
      'could not write or delete a feed file; the previous one stays served',
    );
  return createFeedService({
    templates: templates.compiled,
    renderer: createWorkerFeedRenderer({
      templates: templates.files,
      stock: templates.stock,
      options,
      chunksOf: (snapshot) => catalog.chunksOf(snapshot),
      fallback: inThread,
      outputDir: place.dir,
    }),
    cache: createFeedCache({
      maxBytes: config.feed.cacheBytes,
      onEvict: (key, entry) => {
        files.discard(key, entry, { forget: true }).catch((error: unknown) => onFilesError(error, key));
      },
    }),
    files,
    onFilesError,
    cacheBytes: config.feed.cacheBytes,
    changeLog: createChangeLog({
      maxTransitions: 100,
      ...(history === undefined ? {} : { history }),
      onHistoryError: (error) => logger.warn({ err: error }, 'could not read or store the changes feed history'),
    }),
    options,
    onRenderError: (error, request) =>
      logger.warn({ err: error, feed: request.file, unit: request.view }, 'rendering a feed failed'),
  });
}

/** FEED_PRODUCT_URL / FEED_IMAGE_URL, defaulting to the sandbox's own pages in sandbox mode. */
export function linkTemplates(config: Config, sandbox: RunningSandbox | undefined): { productUrl?: string; imageUrl?: string } {
  const productUrl = config.feed.productUrl ?? (sandbox ? `${sandbox.url}/sandbox/products/{id}` : undefined);
  const imageUrl = config.feed.imageUrl ?? (sandbox ? `${sandbox.url}/sandbox/images/{id}.png` : undefined);
  return { ...(productUrl === undefined ? {} : { productUrl }), ...(imageUrl === undefined ? {} : { imageUrl }) };
}

/**
 * The fetch log (docs/console.md#who-fetches-the-feeds) in the configured store: on Redis one log for the
 * whole group, on SQLite a table of its own in the catalog's file, in memory for tests.
 */
export function openConfiguredFetchLog(
  config: Config,
  channelFeeds: readonly string[],
  logger: Logger,
  now: () => Date,
): FetchLog {
  const size = config.feed.fetchLogSize;
  const store = isGroupStore(config)
    ? createRedisFetchLog(config.store.url, { size, now })
    : createKeyvFetchLog(openKeyv(config.store.url, 'catalog-bridge-fetches', { sqliteTable: 'fetch_log' }).keyv, { size, now });
  return createFetchLog({
    store,
    size,
    now,
    channelFeeds: () => channelFeeds,
    onError: (error) => logger.warn({ err: error }, 'could not store the fetch log; trying again'),
  });
}

export interface FeedParts {
  readonly feeds: FeedService;
  /** Keeps the feeds in step with the catalog and pre-renders them. */
  readonly prewarm: FeedPrewarm;
  /** Who fetches which feed (docs/console.md#who-fetches-the-feeds). */
  readonly fetches: FetchLog;
  /** What the operator should fix in the feeds' setup, for `/readyz` and the status page. */
  readonly warnings: () => readonly string[];
  /** The fetch log: read at start, stored at stop (after the feeds close). */
  readonly fetchLogPart: AppPart;
  /** Restores the feed files at start; closes the feeds' render thread and files at stop. */
  readonly feedsPart: AppPart;
  /** Stops the pre-rendering. */
  readonly prewarmPart: AppPart;
}

export function createFeedParts(
  config: Config,
  shared: Shared,
  deps: {
    readonly templates: LoadedTemplates;
    readonly sandbox: RunningSandbox | undefined;
    readonly catalog: CatalogService;
    readonly changeHistory: ChangeHistory;
    readonly enrichment: EnrichmentService | undefined;
  },
): FeedParts {
  const { logger } = shared;
  const { templates, catalog } = deps;
  const feeds = createConfiguredFeedService(
    config,
    templates,
    deps.sandbox,
    catalog,
    logger.child({ component: 'feeds' }),
    feedFilesPlaceOf(config),
    deps.changeHistory,
  );
  const fetches = openConfiguredFetchLog(
    config,
    templates.compiled.map((feed) => feed.file),
    logger.child({ component: 'fetch-log' }),
    shared.now,
  );
  const warnings = () =>
    operatorWarnings({
      feeds,
      feedNames: templates.compiled.map((feed) => feed.name),
      enrichment: () => deps.enrichment?.status(),
      lastEnrichmentMatch: () => catalog.lastReport('sync-catalog')?.sources?.enrichment,
    });
  const prewarm = startPrewarm(catalog, feeds, logger, () => polledFeeds(fetches, shared.now()));
  shared.metrics.watchFeedStorage(() => feeds.storage());
  return {
    feeds,
    prewarm,
    fetches,
    warnings,
    fetchLogPart: {
      name: 'fetch-log',
      start: () =>
        fetches.start().catch((error: unknown) => logger.warn({ err: error }, 'could not read the fetch log; trying again')),
      stop: () => fetches.close().catch((error: unknown) => logger.warn({ err: error }, 'could not store the fetch log')),
    },
    feedsPart: {
      name: 'feeds',
      start: async () => {
        const restored = await feeds.restore(catalog.current());
        if (restored > 0) logger.info({ component: 'feeds', feeds: restored }, 'serving the feeds rendered before the restart');
      },
      stop: () => feeds.close(),
    },
    prewarmPart: { name: 'feed-prewarm', stop: () => prewarm.stop() },
  };
}

/** The pre-rendering of every new version; a channel feed that comes out empty (most shops' first-run gap) is said once, plainly. */
function startPrewarm(catalog: CatalogService, feeds: FeedService, logger: Logger, polled: () => PolledFeed[]): FeedPrewarm {
  // Feeds logged as empty: said again only once a feed has had items in between.
  let loggedEmpty = new Set<string>();
  return startFeedPrewarm({
    catalog,
    feeds,
    onError: (error, version) => logger.warn({ err: error, version }, 'pre-rendering feeds failed'),
    polled,
    onPrewarmed: () => {
      const empty = emptyFeeds(feeds.reports(), feeds.feeds);
      for (const { file, warning } of empty) if (!loggedEmpty.has(file)) logger.warn({ component: 'feeds', feed: file }, warning);
      loggedEmpty = new Set(empty.map((entry) => entry.file));
    },
  });
}
