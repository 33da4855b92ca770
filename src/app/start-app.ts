import { once } from 'node:events';
import type { Logger } from '../adapters/logger/create-logger.js';
import { createMetrics, type Metrics } from '../adapters/metrics/create-metrics.js';
import { createEventLoopMonitor } from '../adapters/metrics/event-loop-monitor.js';
import type { Config } from '../config/load-config.js';
import { retryDelayMs } from '../core/async/retry-backoff.js';
import type { CatalogSource } from '../core/catalog/catalog-source.js';
import { createHttpApp } from '../http/create-http-app.js';
import { createServerDrain } from '../http/drain-server.js';
import type { Scheduler } from '../jobs/scheduler.js';
import type { RunningSandbox } from '../sandbox/start-sandbox.js';
import type { CatalogService, SyncJob } from '../services/catalog-service.js';
import { openStoredCatalog } from '../services/catalog-start.js';
import { createConsoleWarnings } from '../services/console-warning-sources.js';
import { type FeedPrewarm, startFeedPrewarm } from '../services/feed-prewarm.js';
import type { FeedService } from '../services/feed-service.js';
import { emptyFeeds, operatorWarnings } from '../services/feed-warnings.js';
import type { FetchLog } from '../services/fetch-log.js';
import { fetchLogWarnings } from '../services/fetch-log-warnings.js';
import { pushWarnings } from '../services/push/push-warnings.js';
import { createReadiness, type JobTiming } from '../services/readiness.js';
import { createWebhookProcessor, type WebhookProcessor } from '../services/webhook-processor.js';
import { closeParts, localUrlOf, recordCatalogMetrics, recordSale, resumeWebhooks, watchStore } from './app-parts.js';
import { openInstanceGroup } from './group-parts.js';
import { createJobs } from './jobs.js';
import { createPushWiring } from './push-parts.js';
import { createRouters } from './routers.js';
import {
  configuredSource,
  createCatalogParts,
  createConfiguredFeedService,
  linkTemplates,
  loadConfiguredTemplates,
  openConfiguredFetchLog,
  openConfiguredWebhookInbox,
  startSandboxIfNeeded,
} from './wiring.js';

export interface AppDeps {
  readonly logger: Logger;
  readonly now?: () => Date;
  /** Defaults to a fresh registry with the process metrics. */
  readonly metrics?: Metrics;
  /**
   * The wait before trying a failed full sync again, after `failures` failures in a row. Default: about
   * 10 s, 30 s, 1 min, 2 min, then every 5 min, with jitter (`retryDelayMs`); tests make it short.
   */
  readonly syncRetryDelayMs?: (failures: number) => number;
  /** How often the store is probed while it does not answer (at start: 5 s, running: 2 s); tests make it short. */
  readonly storeProbeMs?: number;
  /** Bench only: the channel push's coalescing switch (`PushWiringDeps.coalesce`). */
  readonly pushCoalesce?: () => boolean;
}

export interface RunningApp {
  /** Base URL of the bridge's HTTP server as reachable from this machine. */
  readonly url: string;
  /** Base URL of the POS the bridge reads: the configured one, or the in-process sandbox. */
  readonly posUrl: string;
  /** Which POS it reads, for people: `built-in sandbox at … (POS_BASE_URL is unset…)` or the POS's URL. */
  readonly posDescription: string;
  /** Where its catalog comes from (the store serves only what came from here). */
  readonly source: CatalogSource;
  readonly sandbox: RunningSandbox | undefined;
  readonly catalog: CatalogService;
  readonly feeds: FeedService;
  readonly jobs: Scheduler;
  /** Keeps the feeds in step with the catalog and pre-renders them. */
  readonly prewarm: FeedPrewarm;
  /** The POS webhook receiver's processing (docs/webhooks.md). */
  readonly webhooks: WebhookProcessor;
  /** Who fetches which feed (docs/console.md#who-fetches-the-feeds); flushed on `stop`. */
  readonly fetches: FetchLog;
  /** With several instances on Redis: this instance's name and role now; `undefined` alone. */
  readonly group: (() => { readonly instance: string; readonly role: 'leader' | 'follower' }) | undefined;
  /** The start sync's first attempt (settled when it ended, whatever its outcome; retries follow on their own). */
  readonly initialSync: Promise<void>;
  /**
   * Graceful shutdown: `/readyz` answers 503 at once, the listener stops accepting, a running sync is
   * aborted, and responses in flight (feed downloads included) get up to `graceMs` (default
   * `SHUTDOWN_GRACE_MS`) to finish before their connections are cut; then everything closes in order.
   */
  stop(options?: { readonly graceMs?: number }): Promise<void>;
  /** Ends the grace period of a shutdown in progress: connections still open are cut now. */
  cutConnections(): void;
}

/** How often a follower takes the enrichment sheet's state from the store. */
const ENRICHMENT_FOLLOW_MS = 30_000;

/**
 * Composition root: the only place that wires real adapters. Start-up serves the stored catalog at once
 * when it came from the configured source, and runs a full sync at once in every case; a failed full sync
 * is retried with backoff (docs/decisions/0007). Shutdown order: stop accepting HTTP, stop the scheduler and
 * wait for running jobs, stop webhook processing and store the served catalog, then the worker threads,
 * the POS client and the store, then the sandbox.
 */
export async function startApp(config: Config, deps: AppDeps): Promise<RunningApp> {
  const { logger } = deps;
  const now = deps.now ?? (() => new Date());
  const metrics = deps.metrics ?? createMetrics();
  // Templates first: a broken template stops the start before anything listens or syncs.
  const templates = await loadConfiguredTemplates(config);
  const source = await configuredSource(config);
  const sandbox = await startSandboxIfNeeded(config, logger);
  // Several instances on one Redis: a leader runs the syncs, the others follow (docs/scale-out.md).
  const group = openInstanceGroup(config, metrics, logger);
  const parts = createCatalogParts(config, sandbox, source, logger, now, group?.parts);
  const { posUrl, pos, catalog, abortRuns, close: closeCatalogParts } = parts;
  const storeLogger = logger.child({ component: 'store' });
  const storeHealth = await watchStore({
    parts,
    metrics,
    logger: storeLogger,
    now,
    probeMs: deps.storeProbeMs,
    mayWriteBack: group?.coordinator.isLeader,
  });
  const inbox = openConfiguredWebhookInbox(
    config,
    source,
    group && {
      redis: group.redis,
      onError: (error, what) => logger.warn({ err: error, component: 'webhooks' }, `${what} failed; retrying`),
    },
  );
  const webhooks = createWebhookProcessor({
    inbox,
    pos,
    catalog,
    logger: logger.child({ component: 'webhooks' }),
    now,
    options: { movementWindowMs: config.webhook.movementWindowMs },
    onSale: (outcome, latencyMs) => recordSale(metrics, outcome, latencyMs),
  });
  const feeds = createConfiguredFeedService(
    config,
    templates,
    sandbox,
    catalog,
    logger.child({ component: 'feeds' }),
    parts.changeHistory,
  );
  catalog.onChange((snapshot) => recordCatalogMetrics(metrics, snapshot, catalog));
  // The channel push (docs/channel-push.md): `undefined`, and nothing changes, unless a channel is configured.
  const push = createPushWiring({
    config,
    catalog,
    changeLog: feeds.changeLog,
    metrics,
    logger,
    links: linkTemplates(config, sandbox),
    feeds,
    // In a group the outbox is in Redis and only the leader derives and sends (docs/scale-out.md).
    ...(group === undefined
      ? {}
      : {
          isLeader: group.coordinator.isLeader,
          group: { outbox: () => group.redis.pushOutbox(), fence: () => group.redis.lease.held() },
        }),
    ...(deps.pushCoalesce === undefined ? {} : { coalesce: deps.pushCoalesce }),
  });
  const fetches = openConfiguredFetchLog(
    config,
    templates.compiled.map((feed) => feed.file),
    logger.child({ component: 'fetch-log' }),
  );
  const warnings = () =>
    operatorWarnings({
      feeds,
      feedNames: templates.compiled.map((feed) => feed.name),
      enrichment: () => parts.enrichment?.status(),
      lastEnrichmentMatch: () => catalog.lastReport('sync-catalog')?.sources?.enrichment,
    });
  // Feeds logged as empty: said again only once a feed has had items in between.
  let loggedEmpty = new Set<string>();
  const prewarm = startFeedPrewarm({
    catalog,
    feeds,
    onError: (error, version) => logger.warn({ err: error, version }, 'pre-rendering feeds failed'),
    // A channel feed that comes out empty is the first-run gap of most shops: said once, plainly.
    onPrewarmed: () => {
      const empty = emptyFeeds(feeds.reports(), feeds.feeds);
      for (const { file, warning } of empty) if (!loggedEmpty.has(file)) logger.warn({ component: 'feeds', feed: file }, warning);
      loggedEmpty = new Set(empty.map((entry) => entry.file));
    },
  });
  const eventLoop = createEventLoopMonitor({ histogram: metrics.eventLoopDelay });
  const retryDelay = deps.syncRetryDelayMs ?? ((failures: number) => retryDelayMs(failures, Math.random));
  const jobs = createJobs({
    config,
    catalog,
    metrics,
    logger,
    now,
    retryDelay,
    leader: group?.coordinator.isLeader,
    enrichment: parts.enrichment,
    push,
  });
  // The console's warnings page (docs/console.md#warnings); the sandbox gives its products links.
  const consoleWarnings = createConsoleWarnings({
    settings: {
      productUrl: config.feed.productUrl !== undefined || sandbox !== undefined,
      brand: config.feed.brand !== undefined,
    },
    pos: { sandbox: sandbox !== undefined, description: parts.posDescription },
    history: (job) => catalog.syncHistory(job),
    lastReport: (job) => catalog.lastReport(job),
    nextTry: (job) => {
      const status = jobs.status()[job];
      return status?.nextTry ?? status?.nextRun;
    },
    store: () => storeHealth.state(),
    enrichment: () => parts.enrichment?.status(),
    feeds,
    feedNames: templates.compiled.map((feed) => feed.name),
    fetchWarnings: () => fetchLogWarnings(fetches),
    ...(push === undefined ? {} : { pushWarnings: () => pushWarnings(push.status(), now().getTime()) }),
  });

  const closeAll = () =>
    closeParts({
      storeHealth,
      logger,
      prewarm,
      eventLoop,
      catalog,
      webhooks,
      feeds,
      closeStores: async () => {
        await fetches.close().catch((error: unknown) => logger.warn({ err: error }, 'could not store the fetch log'));
        await inbox.close();
        await closeCatalogParts();
        await group?.close();
      },
    });

  // The lease first: the leader may adopt the stored catalog, and then it syncs.
  await group?.coordinator.start();
  const stored = await openStoredCatalog({
    catalog,
    source,
    listUnits: async () => (await pos.listUnits()).items,
    logger: logger.child({ component: 'catalog' }),
  });
  await group?.begin({ catalog, jobs, inboxStats: inbox.shared?.stats });
  const leads = group === undefined || group.coordinator.isLeader();
  await parts.enrichment?.start();
  await fetches.start().catch((error: unknown) => logger.warn({ err: error }, 'could not read the fetch log; trying again'));
  // In a group only the leader reads the sheet; the others show what it found (docs/scale-out.md).
  const followSheet =
    group === undefined || parts.enrichment === undefined
      ? undefined
      : setInterval(() => void parts.enrichment?.follow(), ENRICHMENT_FOLLOW_MS).unref();
  jobs.start();
  storeHealth.start();
  // Every start syncs at once, whatever is served meanwhile: the POS may have changed while the bridge was
  // down. In a group only the leader does; the others serve what it publishes.
  // The sheet is read first, so that the first catalog carries the marketer's values (docs/enrichment.md);
  // not awaited here: a slow sheet must not hold back the listener (the stored catalog is served meanwhile).
  const initialSync = leads
    ? (async () => {
        // refresh() reports its own failures; whatever happens to the sheet, the catalog syncs.
        await parts.enrichment
          ?.refresh()
          .catch((error: unknown) => logger.warn({ err: error }, 'reading the enrichment sheet failed'));
        await jobs.runNow('sync-catalog');
      })()
    : Promise.resolve();
  resumeWebhooks(webhooks, logger);
  // Pushed from the first synced catalog on (a stored one may be older than what the channels hold).
  void initialSync.then(() => push?.start());

  const timing = (job: SyncJob): JobTiming | undefined => {
    const status = jobs.status()[job];
    return status && { running: status.running, next: status.nextTry ?? status.nextRun };
  };
  const httpApp = createHttpApp({
    logger,
    health: {
      readiness: createReadiness({
        catalog,
        webhooks,
        eventLoop: () => eventLoop.summary(),
        now,
        source: source.label,
        pos: parts.posDescription,
        notServed: () => stored.notServed(),
        timing,
        stopping: () => drain.started,
        store: () => storeHealth.state(),
        ...(group === undefined ? {} : { group: () => group.status() }),
        enrichment: () => parts.enrichment?.status(),
        warnings,
        ...(push === undefined ? {} : { push: () => push.status() }),
      }),
    },
    routers: createRouters({
      config,
      catalog,
      feeds,
      jobs,
      webhooks,
      metrics,
      source,
      pos: parts.posDescription,
      stored,
      timing,
      storeHealth,
      runJob: group === undefined ? (job) => jobs.runNow(job) : (job) => group.runJob(job),
      // Only the instance that runs full syncs hears their phases (a follower's runs happen on the leader).
      phase: (job, since) =>
        job === 'sync-catalog' && (group?.coordinator.isLeader() ?? true) ? parts.phases.current(since) : undefined,
      group: () => group?.status(),
      enrichment: () => parts.enrichment?.status(),
      warnings,
      fetches,
      consoleWarnings,
      ...(push === undefined ? {} : { push: () => push.status() }),
      ...(push === undefined ? {} : { pushControl: push }),
    }),
  });
  const server = httpApp.listen(config.http.port, config.http.host);
  const drain = createServerDrain(server);
  try {
    await once(server, 'listening');
  } catch (error) {
    await push?.stop();
    await jobs.stop();
    await group?.stop();
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
    posDescription: parts.posDescription,
    source,
    sandbox,
    catalog,
    feeds,
    prewarm,
    jobs,
    webhooks,
    fetches,
    group: group && (() => group.coordinator.state()),
    initialSync,
    stop(options = {}) {
      stopping ??= (async () => {
        const graceMs = options.graceMs ?? config.http.shutdownGraceMs;
        // Syncs running now (scheduled, or re-reads after sales) end soon: their results would not be used.
        abortRuns();
        clearInterval(followSheet);
        // The drain and the sync's abort run together; webhook processing and the store close after both.
        const [drained] = await Promise.all([drain.run(graceMs), jobs.stop().then(() => group?.stop())]);
        if (drained.cut > 0) logger.warn({ connections: drained.cut, graceMs }, 'shutdown cut connections still open');
        // Requests to the channels in flight are answered and recorded before the stores close.
        await push?.stop();
        await closeAll();
        await sandbox?.stop();
      })();
      return stopping;
    },
    cutConnections: () => drain.cut(),
  };
}
