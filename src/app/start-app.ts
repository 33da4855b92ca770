import type { Logger } from '../adapters/logger/create-logger.js';
import { createMetrics, type Metrics } from '../adapters/metrics/create-metrics.js';
import { createEventLoopMonitor } from '../adapters/metrics/event-loop-monitor.js';
import type { Config } from '../config/load-config.js';
import { retryDelayMs } from '../core/async/retry-backoff.js';
import type { CatalogSource } from '../core/catalog/catalog-source.js';
import type { Scheduler } from '../jobs/scheduler.js';
import type { RunningSandbox } from '../sandbox/start-sandbox.js';
import type { CatalogService } from '../services/catalog/catalog-service.js';
import { openStoredCatalog, type StoredCatalogStart } from '../services/catalog/catalog-start.js';
import type { FeedPrewarm } from '../services/feeds/feed-prewarm.js';
import type { FeedService } from '../services/feeds/feed-service.js';
import type { FetchLog } from '../services/fetches/fetch-log.js';
import type { VerdictStore } from '../services/push/google-verdicts.js';
import type { MetaVerdictStore } from '../services/push/meta-verdicts.js';
import type { WebhookProcessor } from '../services/webhooks/webhook-processor.js';
import { type AppPart, type Shared, startParts, stopParts, stoppedBeside } from './app-part.js';
import {
  type CatalogParts,
  configuredSource,
  createCatalogParts,
  recordCatalogMetrics,
  startSandboxIfNeeded,
} from './catalog-parts.js';
import { createFeedParts, linkTemplates, loadConfiguredTemplates } from './feed-parts.js';
import { createGroupParts, type InstanceGroup } from './group-parts.js';
import { createAppHttp, type HttpParts } from './http-parts.js';
import { createJobs } from './jobs.js';
import { createPushWiring, type PushWiring } from './push-parts.js';
import { storeHealthPart, watchStore } from './store-parts.js';
import { createWebhookParts } from './webhook-parts.js';

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
 * Composition root: the only place that wires real adapters. Each feature gives its parts; they are started
 * in the list's order and stopped in its reverse, by `stop()` and after a failed start alike.
 *
 * Start-up serves the stored catalog at once when it came from the configured source, and runs a full sync at
 * once in every case; a failed full sync is retried with backoff (docs/decisions/0007). Shutdown order: stop
 * accepting HTTP, stop the scheduler and wait for running jobs, stop webhook processing and store the served
 * catalog, then the worker threads, the POS client and the store, then the sandbox.
 */
export async function startApp(config: Config, deps: AppDeps): Promise<RunningApp> {
  const shared: Shared = { logger: deps.logger, now: deps.now ?? (() => new Date()), metrics: deps.metrics ?? createMetrics() };
  const app = await createAppParts(config, shared, deps);
  await startParts(app.parts, { graceMs: config.http.shutdownGraceMs });
  const url = app.http.url();
  // The sandbox's sales reach this bridge's own receiver unless SANDBOX_WEBHOOK_URL says otherwise.
  app.sandbox?.setWebhookUrl(config.sandbox.webhookUrl ?? `${url}/webhooks/pos`);
  const { catalog, group } = app;
  let stopping: Promise<void> | undefined;
  return {
    url,
    posUrl: catalog.posUrl,
    posDescription: catalog.posDescription,
    source: app.source,
    sandbox: app.sandbox,
    catalog: catalog.catalog,
    feeds: app.feeds,
    prewarm: app.prewarm,
    jobs: app.jobs,
    webhooks: app.webhooks,
    fetches: app.fetches,
    group: group && (() => group.coordinator.state()),
    initialSync: app.initialSync(),
    stop(options = {}) {
      stopping ??= stopParts(app.parts, { graceMs: options.graceMs ?? config.http.shutdownGraceMs });
      return stopping;
    },
    cutConnections: () => app.http.cutConnections(),
  };
}

/** Every part of the running bridge, made; the ordered list starts and stops them. */
interface AppParts {
  readonly parts: readonly AppPart[];
  readonly source: CatalogSource;
  readonly sandbox: RunningSandbox | undefined;
  readonly group: InstanceGroup | undefined;
  readonly catalog: CatalogParts;
  readonly feeds: FeedService;
  readonly prewarm: FeedPrewarm;
  readonly fetches: FetchLog;
  readonly webhooks: WebhookProcessor;
  readonly jobs: Scheduler;
  readonly http: HttpParts;
  /** The start sync's first attempt (once started). */
  initialSync(): Promise<void>;
}

async function createAppParts(config: Config, shared: Shared, deps: AppDeps): Promise<AppParts> {
  const { logger, now, metrics } = shared;
  // Templates first: a broken template stops the start before anything listens or syncs.
  const templates = await loadConfiguredTemplates(config);
  const source = await configuredSource(config);
  const sandbox = await startSandboxIfNeeded(config, logger);
  // Several instances on one Redis: a leader runs the syncs, the others follow (docs/scale-out.md).
  const group = createGroupParts(config, shared);
  const parts = createCatalogParts(config, sandbox, source, logger, now, group?.parts);
  const { catalog, pos } = parts;
  const storeHealth = await watchStore({
    parts,
    metrics,
    logger: logger.child({ component: 'store' }),
    now,
    probeMs: deps.storeProbeMs,
    mayWriteBack: group?.coordinator.isLeader,
  });
  const webhookParts = createWebhookParts(config, shared, { source, redis: group?.redis, pos, catalog });
  catalog.onChange((snapshot) => recordCatalogMetrics(metrics, snapshot, catalog));
  const feedParts = createFeedParts(config, shared, {
    templates,
    sandbox,
    catalog,
    changeHistory: parts.changeHistory,
    enrichment: parts.enrichment,
  });
  const google = config.push.google;
  const push = createAppPush(config, shared, {
    catalog,
    feeds: feedParts.feeds,
    sandbox,
    group,
    coalesce: deps.pushCoalesce,
    ...(google === undefined ? {} : { verdictStore: parts.verdictStore('google', google.account) }),
    ...(config.push.meta === undefined ? {} : { metaVerdictStore: parts.metaVerdictStore(config.push.meta.catalogId) }),
  });
  const eventLoop = createEventLoopMonitor({ histogram: metrics.eventLoopDelay });
  const retryDelay = deps.syncRetryDelayMs ?? ((failures: number) => retryDelayMs(failures, Math.random));
  const leader = group?.coordinator.isLeader;
  const jobs = createJobs({ config, catalog, metrics, logger, now, retryDelay, leader, enrichment: parts.enrichment, push });
  let stored: StoredCatalogStart | undefined;
  const catalogPart: AppPart = {
    name: 'catalog',
    start: async () => {
      stored = await openStoredCatalog({
        catalog,
        source,
        listUnits: async () => (await pos.listUnits()).items,
        logger: logger.child({ component: 'catalog' }),
      });
    },
    stop: () => parts.close(),
  };
  const syncs = createSyncParts({ group, parts, jobs, inboxStats: webhookParts.inbox.shared?.stats, push });
  const served = { source, sandbox, catalog: parts, storeHealth, webhooks: webhookParts.webhooks, feeds: feedParts };
  const http = createAppHttp(config, shared, {
    ...served,
    stored: () => stored as StoredCatalogStart,
    push,
    group,
    jobs,
    eventLoop,
  });
  return {
    parts: [
      { name: 'sandbox', stop: () => sandbox?.stop() },
      ...(group === undefined ? [] : [group.connectionPart]),
      catalogPart,
      webhookParts.inboxPart,
      feedParts.fetchLogPart,
      feedParts.feedsPart,
      webhookParts.processingPart,
      { name: 'event-loop', stop: () => eventLoop.stop() },
      feedParts.prewarmPart,
      storeHealthPart(storeHealth),
      // Requests to the channels in flight are answered and recorded before the stores close.
      { name: 'push', stop: () => push?.stop() },
      // The drain and the sync's abort run together; webhook processing and the store close after both.
      stoppedBeside('syncs-and-http', [...syncs.parts, webhookParts.backlogPart, syncs.pushStart], http.part),
      syncs.halt,
    ],
    source,
    sandbox,
    group,
    catalog: parts,
    feeds: feedParts.feeds,
    prewarm: feedParts.prewarm,
    fetches: feedParts.fetches,
    webhooks: webhookParts.webhooks,
    jobs,
    http,
    initialSync: syncs.initialSync,
  };
}

/** The channel push (docs/channel-push.md): `undefined`, and nothing changes, unless a channel is configured. */
function createAppPush(
  config: Config,
  shared: Shared,
  deps: {
    readonly catalog: CatalogService;
    readonly feeds: FeedService;
    readonly sandbox: RunningSandbox | undefined;
    readonly group: InstanceGroup | undefined;
    readonly coalesce: (() => boolean) | undefined;
    readonly verdictStore?: VerdictStore;
    readonly metaVerdictStore?: MetaVerdictStore;
  },
): PushWiring | undefined {
  const { group } = deps;
  return createPushWiring({
    config,
    catalog: deps.catalog,
    changeLog: deps.feeds.changeLog,
    metrics: shared.metrics,
    logger: shared.logger,
    now: shared.now,
    links: linkTemplates(config, deps.sandbox),
    feeds: deps.feeds,
    // In a group the outbox is in Redis and only the leader derives and sends (docs/scale-out.md).
    ...(group === undefined
      ? {}
      : {
          isLeader: group.coordinator.isLeader,
          group: { outbox: () => group.redis.pushOutbox(), fence: () => group.redis.lease.held() },
        }),
    ...(deps.coalesce === undefined ? {} : { coalesce: deps.coalesce }),
    ...(deps.verdictStore === undefined ? {} : { verdictStore: deps.verdictStore }),
    ...(deps.metaVerdictStore === undefined ? {} : { metaVerdictStore: deps.metaVerdictStore }),
  });
}

/**
 * The syncs' parts, in their start order: following the group, the enrichment sheet, the scheduler and the
 * start sync; the push starts from the first synced catalog on. `halt` stops what would start new work (the
 * first thing a shutdown does).
 */
function createSyncParts(deps: {
  readonly group: InstanceGroup | undefined;
  readonly parts: CatalogParts;
  readonly jobs: Scheduler;
  readonly inboxStats: Parameters<InstanceGroup['begin']>[0]['inboxStats'];
  readonly push: PushWiring | undefined;
}): { parts: AppPart[]; pushStart: AppPart; halt: AppPart; initialSync(): Promise<void> } {
  const { group, parts, jobs } = deps;
  const { enrichment, catalog } = parts;
  let followSheet: NodeJS.Timeout | undefined;
  let initialSync: Promise<void> = Promise.resolve();
  const following: AppPart = {
    name: 'group-leadership',
    start: () => group?.begin({ catalog, jobs, inboxStats: deps.inboxStats }),
    stop: () => group?.stop(),
  };
  const enrichmentPart: AppPart = {
    name: 'enrichment',
    start: async () => {
      await enrichment?.start();
      // In a group only the leader reads the sheet; the others show what it found (docs/scale-out.md).
      if (group !== undefined && enrichment !== undefined) {
        followSheet = setInterval(() => void enrichment.follow(), ENRICHMENT_FOLLOW_MS).unref();
      }
    },
  };
  const jobsPart: AppPart = {
    name: 'jobs',
    start: () => {
      jobs.start();
      // Every start syncs at once, whatever is served meanwhile: the POS may have changed while the bridge was
      // down. In a group only the leader does; the others serve what it publishes.
      if (group === undefined || group.coordinator.isLeader()) initialSync = startSync(jobs).catch(() => undefined);
    },
    stop: () => jobs.stop(),
  };
  return {
    parts: [following, enrichmentPart, jobsPart],
    // Pushed from the first synced catalog on (a stored one may be older than what the channels hold).
    pushStart: { name: 'push-start', start: () => void initialSync.then(() => deps.push?.start()) },
    halt: {
      name: 'halt',
      stop: () => {
        // Syncs running now (scheduled, or re-reads after sales) end soon: their results would not be used.
        parts.abortRuns();
        clearInterval(followSheet);
      },
    },
    initialSync: () => initialSync,
  };
}

/**
 * The start sync, not awaited by the start: a slow POS or sheet must not hold back the listener (the stored
 * catalog is served meanwhile). The job reads the sheet first, so that the first catalog carries it.
 */
async function startSync(jobs: Scheduler): Promise<void> {
  await jobs.runNow('sync-catalog');
}
