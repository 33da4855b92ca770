import { once } from 'node:events';
import { readdir, readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from './adapters/logger/create-logger.js';
import { createMetrics, type Metrics } from './adapters/metrics/create-metrics.js';
import { createPosClient, type PosClient } from './adapters/pos/pos-client.js';
import { openKeyv } from './adapters/store/create-keyv.js';
import { createKeyvCatalogStore } from './adapters/store/keyv-catalog-store.js';
import type { Config } from './config/load-config.js';
import { createMutex } from './core/async/create-mutex.js';
import type { CatalogSnapshot, InternalProductData, Product } from './core/catalog/catalog.js';
import { createChangeLog } from './core/catalog/change-log.js';
import type { CompiledFeed } from './core/feeds/compiled-feed.js';
import { loadTemplates } from './core/feeds/load-templates.js';
import { createHttpApp } from './http/create-http-app.js';
import { createAdminRoutes } from './http/routes/admin-routes.js';
import { createFeedRoutes } from './http/routes/feed-routes.js';
import type { ReadinessReport } from './http/routes/health-routes.js';
import { createMetricsRoutes } from './http/routes/metrics-routes.js';
import { createStatusRoutes } from './http/routes/status-routes.js';
import { createScheduler, type Scheduler } from './jobs/scheduler.js';
import { type RunningSandbox, startSandbox } from './sandbox/start-sandbox.js';
import {
  type CatalogMeta,
  type CatalogService,
  catalogServiceOptions,
  createCatalogService,
  type SyncJob,
} from './services/catalog-service.js';
import { createFeedCache } from './services/feed-cache.js';
import { createFeedService, type FeedService } from './services/feed-service.js';

export interface AppDeps {
  readonly logger: Logger;
  readonly now?: () => Date;
  /** Defaults to a fresh registry with the process metrics. */
  readonly metrics?: Metrics;
}

export interface RunningApp {
  /** Base URL of the bridge's HTTP server as reachable from this machine. */
  readonly url: string;
  /** Base URL of the POS the bridge reads: the configured one, or the in-process sandbox. */
  readonly posUrl: string;
  readonly sandbox: RunningSandbox | undefined;
  readonly catalog: CatalogService;
  readonly feeds: FeedService;
  readonly jobs: Scheduler;
  /** The first sync when the store had no catalog at start (already settled otherwise). */
  readonly initialSync: Promise<void>;
  stop(): Promise<void>;
}

const JOBS: readonly SyncJob[] = ['sync-catalog', 'sync-stock'];

/** The templates/ folder shipped beside src/ and dist/. */
const SHIPPED_TEMPLATES = fileURLToPath(new URL('../templates/', import.meta.url));

/** Reads and compiles every `*.json` feed template; any problem stops the start (TemplateLoadError). */
export async function loadTemplateDir(dir: string): Promise<CompiledFeed[]> {
  const names = (await readdir(dir)).filter((name) => name.endsWith('.json')).sort();
  const files = await Promise.all(
    names.map(async (name) => ({ name: join(dir, name), text: await readFile(join(dir, name), 'utf8') })),
  );
  return loadTemplates(files);
}

/**
 * Composition root: the only place that wires real adapters. Start-up serves the stored catalog at once
 * and syncs immediately when there is none. Shutdown order: stop accepting HTTP, stop the scheduler and
 * wait for running jobs, close the POS client and the store, stop the sandbox.
 */
export async function startApp(config: Config, deps: AppDeps): Promise<RunningApp> {
  const { logger } = deps;
  const now = deps.now ?? (() => new Date());
  const metrics = deps.metrics ?? createMetrics();
  // Templates first: a broken template stops the start before anything listens or syncs.
  const templates = await loadTemplateDir(config.feed.templatesDir ?? SHIPPED_TEMPLATES);
  const sandbox =
    config.pos.baseUrl === undefined
      ? await startSandbox({
          units: config.sandbox.units,
          articles: config.sandbox.articles,
          seed: config.sandbox.seed,
          salesPerMinute: config.sandbox.salesPerMinute,
          apiKey: config.sandbox.apiKey,
          host: '127.0.0.1',
          port: 0,
          logger: logger.child({ component: 'sandbox' }),
        })
      : undefined;
  const posUrl = config.pos.baseUrl ?? sandbox?.url ?? '';
  const apiKey = config.pos.apiKey ?? config.sandbox.apiKey;

  const opened = openKeyv(config.store.url);
  const store = createKeyvCatalogStore<CatalogMeta, Product>(opened.keyv);
  const internalStore = createKeyvCatalogStore<{ version: string }, InternalProductData>(opened.keyv, { prefix: 'internal' });
  const pos: PosClient = createPosClient({
    config: { ...config.pos, baseUrl: posUrl, apiKey },
    logger: logger.child({ component: 'pos-client' }),
  });
  const catalog = createCatalogService({
    pos,
    store,
    internalStore,
    logger: logger.child({ component: 'catalog' }),
    now,
    options: catalogServiceOptions(config),
  });

  const feeds = createFeedService({
    templates,
    cache: createFeedCache({ maxBytes: config.feed.cacheBytes }),
    changeLog: createChangeLog({ maxTransitions: 100 }),
    options: {
      currency: config.feed.currency,
      brand: config.feed.brand,
      baseUrl: config.http.publicBaseUrl ?? '',
      links: {
        storeCodes: config.feed.unitStoreCodes,
        ...linkTemplates(config, sandbox),
      },
    },
  });
  let previous: CatalogSnapshot | undefined;
  catalog.onChange((snapshot) => {
    recordCatalogMetrics(metrics, snapshot);
    feeds.recordChange(previous, snapshot);
    previous = snapshot;
    void feeds
      .prewarm(snapshot, () => catalog.current() === snapshot)
      .catch((error: unknown) => {
        logger.warn({ err: error, version: snapshot.version }, 'pre-rendering feeds failed');
      });
  });

  const jobs = createScheduler({
    timezone: config.sync.timezone,
    logger: logger.child({ component: 'scheduler' }),
    now,
    onOutcome(outcome) {
      const report = outcome.ok ? (outcome.result as { outcome?: string; error?: { code: string } } | undefined) : undefined;
      metrics.jobRuns.inc({ job: outcome.job, outcome: outcome.ok ? (report?.outcome ?? 'ok') : 'crashed' });
      metrics.jobDuration.observe({ job: outcome.job }, outcome.durationMs / 1000);
      if (report?.error !== undefined) metrics.posErrors.inc({ family: report.error.code, operation: outcome.job });
    },
  });
  const exclusive = createMutex();
  jobs.schedule({ name: 'sync-catalog', cron: config.sync.catalogCron, run: () => exclusive(() => catalog.syncCatalog()) });
  jobs.schedule({ name: 'sync-stock', cron: config.sync.stockCron, run: () => exclusive(() => catalog.syncStock()) });

  function readiness(): ReadinessReport {
    const snapshot = catalog.current();
    const lastRuns: Record<string, unknown> = {};
    for (const job of JOBS) {
      const report = catalog.lastReport(job);
      lastRuns[job] = report
        ? {
            outcome: report.outcome,
            finishedAt: report.finishedAt,
            durationMs: report.durationMs,
            ...(report.error ? { error: report.error } : {}),
            ...(report.reason ? { reason: report.reason } : {}),
          }
        : null;
    }
    const catalogReport = catalog.lastReport('sync-catalog');
    const degraded = JOBS.some((job) => {
      const outcome = catalog.lastReport(job)?.outcome;
      return outcome === 'failed' || outcome === 'refused';
    });
    if (snapshot === undefined) {
      return {
        ready: false,
        reason: catalogReport ? 'the first catalog could not be built yet' : 'the first sync is running',
        jobs: lastRuns,
      };
    }
    return {
      ready: true,
      degraded,
      version: snapshot.version,
      generatedAt: snapshot.generatedAt,
      ageSeconds: Math.max(0, Math.round((now().getTime() - Date.parse(snapshot.generatedAt)) / 1000)),
      products: snapshot.products.length,
      units: snapshot.units.map((unit) => unit.code),
      jobs: lastRuns,
    };
  }

  let initialSync: Promise<void> = Promise.resolve();
  try {
    const stored = await catalog.loadFromStore();
    if (stored === undefined) {
      initialSync = jobs.runNow('sync-catalog').then(() => undefined);
    } else {
      logger.info({ version: stored.version, products: stored.products.length }, 'serving the stored catalog');
    }
  } catch (error) {
    // A broken store must not keep the service down: log, sync afresh, and let /readyz tell.
    logger.error({ err: error }, 'could not load the stored catalog');
    initialSync = jobs.runNow('sync-catalog').then(() => undefined);
  }
  jobs.start();

  const httpApp = createHttpApp({
    logger,
    health: { readiness },
    routers: [
      createStatusRoutes({
        feeds,
        current: () => catalog.current(),
        lastReport: (job) => catalog.lastReport(job),
        nextRuns: () =>
          Object.fromEntries(Object.entries(jobs.status()).map(([job, status]) => [job, status.nextRun?.toISOString()])),
        publicBaseUrl: config.http.publicBaseUrl,
        token: config.feed.token,
        storeCodes: config.feed.unitStoreCodes,
      }),
      createFeedRoutes({
        feeds,
        current: () => catalog.current(),
        token: config.feed.token,
        onRequest: (feed, status) => metrics.feedRequests.inc({ feed, status: String(status) }),
      }),
      createMetricsRoutes(metrics.registry),
      createAdminRoutes({ token: config.admin.token, runJob: (job) => jobs.runNow(job) }),
    ],
  });
  const server = httpApp.listen(config.http.port, config.http.host);
  try {
    await once(server, 'listening');
  } catch (error) {
    await jobs.stop();
    await pos.close();
    await store.close();
    await sandbox?.stop();
    throw error;
  }
  const url = localUrlOf(server, config.http.host);
  if (config.sandbox.webhookUrl !== undefined) sandbox?.setWebhookUrl(config.sandbox.webhookUrl);

  let stopping: Promise<void> | undefined;
  return {
    url,
    posUrl,
    sandbox,
    catalog,
    feeds,
    jobs,
    initialSync,
    stop() {
      stopping ??= (async () => {
        await closeServer(server);
        await jobs.stop();
        await pos.close();
        await store.close();
        await sandbox?.stop();
      })();
      return stopping;
    },
  };
}

function recordCatalogMetrics(metrics: Metrics, snapshot: CatalogSnapshot): void {
  metrics.catalogItems.set({ unit: 'all' }, snapshot.products.length);
  for (const unit of snapshot.units) {
    let count = 0;
    for (const product of snapshot.products) if (product.offers.some((offer) => offer.unit === unit.code)) count++;
    metrics.catalogItems.set({ unit: unit.code }, count);
  }
  metrics.catalogGeneratedAt.set(Date.parse(snapshot.generatedAt) / 1000);
}

/** FEED_PRODUCT_URL / FEED_IMAGE_URL, defaulting to the sandbox's own pages in sandbox mode. */
function linkTemplates(config: Config, sandbox: RunningSandbox | undefined): { productUrl?: string; imageUrl?: string } {
  const productUrl = config.feed.productUrl ?? (sandbox ? `${sandbox.url}/sandbox/products/{id}` : undefined);
  const imageUrl = config.feed.imageUrl ?? (sandbox ? `${sandbox.url}/sandbox/images/{id}.png` : undefined);
  return { ...(productUrl === undefined ? {} : { productUrl }), ...(imageUrl === undefined ? {} : { imageUrl }) };
}

function localUrlOf(server: Server, host: string): string {
  const { port } = server.address() as AddressInfo;
  const reachableHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${reachableHost}:${port}`;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Pollers keep connections alive; without this close() waits for them to time out.
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 5_000).unref();
  });
}
