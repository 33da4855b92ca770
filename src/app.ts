import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Router } from 'express';
import type { Logger } from './adapters/logger/create-logger.js';
import { createMetrics, type Metrics } from './adapters/metrics/create-metrics.js';
import { createEventLoopMonitor } from './adapters/metrics/event-loop-monitor.js';
import type { Config } from './config/load-config.js';
import { createMutex } from './core/async/create-mutex.js';
import type { CatalogSnapshot } from './core/catalog/catalog.js';
import { createHttpApp } from './http/create-http-app.js';
import { createAdminRoutes } from './http/routes/admin-routes.js';
import { createDocsRoutes } from './http/routes/docs-routes.js';
import { createFeedRoutes } from './http/routes/feed-routes.js';
import { createMetricsRoutes } from './http/routes/metrics-routes.js';
import { createStatusRoutes } from './http/routes/status-routes.js';
import { createWebhookRoutes } from './http/routes/webhook-routes.js';
import { createScheduler, type Scheduler } from './jobs/scheduler.js';
import type { RunningSandbox } from './sandbox/start-sandbox.js';
import type { CatalogService } from './services/catalog-service.js';
import { type FeedPrewarm, startFeedPrewarm } from './services/feed-prewarm.js';
import type { FeedService } from './services/feed-service.js';
import { createReadiness } from './services/readiness.js';
import { createWebhookProcessor, type WebhookProcessor } from './services/webhook-processor.js';
import {
  createCatalogParts,
  createConfiguredFeedService,
  createShippedDocPages,
  loadConfiguredTemplates,
  openWebhookInbox,
  startSandboxIfNeeded,
} from './wiring.js';

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
  /** Keeps the feeds in step with the catalog and pre-renders them. */
  readonly prewarm: FeedPrewarm;
  /** The POS webhook receiver's processing (docs/webhooks.md). */
  readonly webhooks: WebhookProcessor;
  /** The first sync when the store had no catalog at start (already settled otherwise). */
  readonly initialSync: Promise<void>;
  stop(): Promise<void>;
}

/**
 * Composition root: the only place that wires real adapters. Start-up serves the stored catalog at once
 * and syncs immediately when there is none. Shutdown order: stop accepting HTTP, stop the scheduler and
 * wait for running jobs, stop webhook processing and store the served catalog, then the worker threads,
 * the POS client and the store, then the sandbox.
 */
export async function startApp(config: Config, deps: AppDeps): Promise<RunningApp> {
  const { logger } = deps;
  const now = deps.now ?? (() => new Date());
  const metrics = deps.metrics ?? createMetrics();
  // Templates first: a broken template stops the start before anything listens or syncs.
  const templates = await loadConfiguredTemplates(config);
  const sandbox = await startSandboxIfNeeded(config, logger);
  const { posUrl, pos, catalog, close: closeCatalogParts } = createCatalogParts(config, sandbox, logger, now);
  const inbox = openWebhookInbox(config);
  const webhooks = createWebhookProcessor({
    inbox,
    pos,
    catalog,
    logger: logger.child({ component: 'webhooks' }),
    now,
    options: { movementWindowMs: config.webhook.movementWindowMs },
    onSale: (outcome, latencyMs) => recordSale(metrics, outcome, latencyMs),
  });
  const feeds = createConfiguredFeedService(config, templates, sandbox, catalog, logger.child({ component: 'feeds' }));
  catalog.onChange((snapshot) => recordCatalogMetrics(metrics, snapshot, catalog));
  const prewarm = startFeedPrewarm({
    catalog,
    feeds,
    onError: (error, version) => logger.warn({ err: error, version }, 'pre-rendering feeds failed'),
  });
  const eventLoop = createEventLoopMonitor({ histogram: metrics.eventLoopDelay });
  const jobs = createJobs(config, catalog, metrics, logger, now);

  const closeAll = () =>
    closeParts({
      logger,
      prewarm,
      eventLoop,
      catalog,
      webhooks,
      feeds,
      closeStores: async () => {
        await inbox.close();
        await closeCatalogParts();
      },
    });

  const { initialSync } = await loadOrSync(catalog, jobs, logger);
  jobs.start();
  resumeWebhooks(webhooks, logger);

  const httpApp = createHttpApp({
    logger,
    health: { readiness: createReadiness({ catalog, webhooks, eventLoop: () => eventLoop.summary(), now }) },
    routers: createRouters({ config, catalog, feeds, jobs, webhooks, metrics }),
  });
  const server = httpApp.listen(config.http.port, config.http.host);
  try {
    await once(server, 'listening');
  } catch (error) {
    await jobs.stop();
    await closeAll();
    await sandbox?.stop();
    throw error;
  }
  const url = localUrlOf(server, config.http.host);
  // The sandbox's sales reach this bridge's own receiver unless SANDBOX_WEBHOOK_URL says otherwise.
  sandbox?.setWebhookUrl(config.sandbox.webhookUrl ?? `${url}/webhooks/pos`);

  let stopping: Promise<void> | undefined;
  return {
    url,
    posUrl,
    sandbox,
    catalog,
    feeds,
    prewarm,
    jobs,
    webhooks,
    initialSync,
    stop() {
      stopping ??= (async () => {
        await closeServer(server);
        await jobs.stop();
        await closeAll();
        await sandbox?.stop();
      })();
      return stopping;
    },
  };
}

/**
 * After the HTTP server and the scheduler: webhook processing stops and the served catalog is stored, then
 * the render thread, the inbox, the worker threads, the POS client and the store close.
 */
async function closeParts(parts: {
  readonly logger: Logger;
  readonly prewarm: FeedPrewarm;
  readonly eventLoop: { stop(): void };
  readonly catalog: CatalogService;
  readonly webhooks: WebhookProcessor;
  readonly feeds: FeedService;
  readonly closeStores: () => Promise<void>;
}): Promise<void> {
  const { logger, catalog } = parts;
  parts.prewarm.stop();
  parts.eventLoop.stop();
  const flushFailed = (error: unknown) => logger.error({ err: error }, 'could not store the served catalog');
  // Started first: processing may be waiting for a delayed store.
  const flushing = catalog.flush().catch(flushFailed);
  await parts.webhooks.stop();
  await flushing;
  await catalog.flush().catch(flushFailed);
  await parts.feeds.close();
  await parts.closeStores();
}

/** The scheduled syncs; the full and the stock sync never run at once (both derive from the served version). */
function createJobs(config: Config, catalog: CatalogService, metrics: Metrics, logger: Logger, now: () => Date): Scheduler {
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
  return jobs;
}

/** Serves the stored catalog at once, or starts the first sync (returned; settled when none was needed). */
async function loadOrSync(catalog: CatalogService, jobs: Scheduler, logger: Logger): Promise<{ initialSync: Promise<void> }> {
  try {
    const stored = await catalog.loadFromStore();
    if (stored !== undefined) {
      logger.info({ version: stored.version, products: stored.products.length }, 'serving the stored catalog');
      return { initialSync: Promise.resolve() };
    }
  } catch (error) {
    // A broken store must not keep the service down: log, sync afresh, and let /readyz tell.
    logger.error({ err: error }, 'could not load the stored catalog');
  }
  return { initialSync: jobs.runNow('sync-catalog').then(() => undefined) };
}

function createRouters(parts: {
  readonly config: Config;
  readonly catalog: CatalogService;
  readonly feeds: FeedService;
  readonly jobs: Scheduler;
  readonly webhooks: WebhookProcessor;
  readonly metrics: Metrics;
}): Router[] {
  const { config, catalog, feeds, jobs, webhooks, metrics } = parts;
  return [
    createStatusRoutes({
      feeds,
      current: () => catalog.current(),
      lastReport: (job) => catalog.lastReport(job),
      nextRuns: () =>
        Object.fromEntries(Object.entries(jobs.status()).map(([job, status]) => [job, status.nextRun?.toISOString()])),
      publicBaseUrl: config.http.publicBaseUrl,
      token: config.feed.token,
      storeCodes: config.feed.unitStoreCodes,
      webhooks: () => webhooks.stats(),
      unitCounts: async (snapshot) => (await catalog.familyIndex(snapshot)).unitCounts,
    }),
    createFeedRoutes({
      feeds,
      current: () => catalog.current(),
      token: config.feed.token,
      onRequest: (feed, status) => metrics.feedRequests.inc({ feed, status: String(status) }),
    }),
    createMetricsRoutes(metrics.registry),
    createAdminRoutes({ token: config.admin.token, runJob: (job) => jobs.runNow(job) }),
    createWebhookRoutes({
      apiKeys: config.webhook.apiKeys,
      accept: (dedupeKey, event) => webhooks.accept(dedupeKey, event),
      onEvent: (event, outcome) => metrics.webhookEvents.inc({ event, outcome }),
    }),
    createDocsRoutes(createShippedDocPages()),
  ];
}

function recordSale(metrics: Metrics, outcome: 'applied' | 'refetched' | 'dropped', latencyMs: number): void {
  metrics.webhookSales.inc({ outcome });
  if (outcome !== 'dropped') metrics.webhookApplyLatency.observe(latencyMs / 1000);
}

/** Events accepted before a restart and not processed yet. */
function resumeWebhooks(webhooks: WebhookProcessor, logger: Logger): void {
  webhooks.resume().then(
    (count) => {
      if (count > 0) logger.info({ events: count }, 'processing webhook events left from before the restart');
    },
    (error: unknown) => logger.error({ err: error }, 'could not read the webhook inbox'),
  );
}

/** Per-unit item counts change only with the products' offers: counted once per catalog family, in slices. */
function recordCatalogMetrics(metrics: Metrics, snapshot: CatalogSnapshot, catalog: CatalogService): void {
  metrics.catalogItems.set({ unit: 'all' }, snapshot.products.length);
  metrics.catalogGeneratedAt.set(Date.parse(snapshot.generatedAt) / 1000);
  catalog.familyIndex(snapshot).then(
    (index) => {
      for (const unit of snapshot.units) metrics.catalogItems.set({ unit: unit.code }, index.unitCounts.get(unit.code) ?? 0);
    },
    () => undefined,
  );
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
