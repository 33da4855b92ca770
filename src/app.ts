import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from './adapters/logger/create-logger.js';
import { createMetrics, type Metrics } from './adapters/metrics/create-metrics.js';
import type { Config } from './config/load-config.js';
import { createMutex } from './core/async/create-mutex.js';
import type { CatalogSnapshot } from './core/catalog/catalog.js';
import { createHttpApp } from './http/create-http-app.js';
import { createAdminRoutes } from './http/routes/admin-routes.js';
import { createFeedRoutes } from './http/routes/feed-routes.js';
import type { ReadinessReport } from './http/routes/health-routes.js';
import { createMetricsRoutes } from './http/routes/metrics-routes.js';
import { createStatusRoutes } from './http/routes/status-routes.js';
import { createWebhookRoutes } from './http/routes/webhook-routes.js';
import { createScheduler, type Scheduler } from './jobs/scheduler.js';
import type { RunningSandbox } from './sandbox/start-sandbox.js';
import type { CatalogService, SyncJob } from './services/catalog-service.js';
import type { FeedService } from './services/feed-service.js';
import { createWebhookProcessor, type WebhookProcessor } from './services/webhook-processor.js';
import {
  createCatalogParts,
  createConfiguredFeedService,
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
  /** The POS webhook receiver's processing (SPEC §6). */
  readonly webhooks: WebhookProcessor;
  /** The first sync when the store had no catalog at start (already settled otherwise). */
  readonly initialSync: Promise<void>;
  stop(): Promise<void>;
}

const JOBS: readonly SyncJob[] = ['sync-catalog', 'sync-stock'];

/** How long a version must stay served before its feeds are pre-rendered. */
const PREWARM_DELAY_MS = 500;
/** Longest time feeds go without pre-rendering while versions keep changing. */
const PREWARM_MAX_WAIT_MS = 10_000;

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
    onSale(outcome, latencyMs) {
      metrics.webhookSales.inc({ outcome });
      if (outcome !== 'dropped') metrics.webhookApplyLatency.observe(latencyMs / 1000);
    },
  });
  async function closeAll(): Promise<void> {
    clearTimeout(prewarmTimer);
    const flushFailed = (error: unknown) => logger.error({ err: error }, 'could not store the served catalog');
    // Started first: processing may be waiting for a delayed store.
    const flushing = catalog.flush().catch(flushFailed);
    await webhooks.stop();
    await flushing;
    await catalog.flush().catch(flushFailed);
    await inbox.close();
    await closeCatalogParts();
  }
  const feeds = createConfiguredFeedService(config, templates, sandbox);
  let previous: CatalogSnapshot | undefined;
  // Feeds are pre-rendered once a version has been served for a moment: during a burst of sales a
  // version lives for a few milliseconds, and rendering each one took the CPU the sales needed
  // (bench/webhook-latency.ts). Requests render what they ask for meanwhile.
  let prewarmTimer: NodeJS.Timeout | undefined;
  let prewarmWaitingSince: number | undefined;
  catalog.onChange((snapshot) => {
    recordCatalogMetrics(metrics, snapshot, catalog);
    feeds.recordChange(previous, snapshot);
    previous = snapshot;
    // Under steady changes it still runs at least every PREWARM_MAX_WAIT_MS.
    const now = performance.now();
    prewarmWaitingSince ??= now;
    if (now - prewarmWaitingSince < PREWARM_MAX_WAIT_MS) clearTimeout(prewarmTimer);
    else if (prewarmTimer !== undefined) return;
    prewarmTimer = setTimeout(() => {
      prewarmTimer = undefined;
      prewarmWaitingSince = undefined;
      const current = catalog.current();
      if (current === undefined) return;
      void feeds
        .prewarm(current, () => catalog.current() === current)
        .catch((error: unknown) => {
          logger.warn({ err: error, version: current.version }, 'pre-rendering feeds failed');
        });
    }, PREWARM_DELAY_MS);
    prewarmTimer.unref();
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
        webhooks: webhooks.stats(),
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
      webhooks: webhooks.stats(),
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
  // Events accepted before a restart and not processed yet.
  webhooks.resume().then(
    (count) => {
      if (count > 0) logger.info({ events: count }, 'processing webhook events left from before the restart');
    },
    (error: unknown) => logger.error({ err: error }, 'could not read the webhook inbox'),
  );

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
        webhooks: () => webhooks.stats(),
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
    ],
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
