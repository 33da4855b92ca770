import type { Router } from 'express';
import type { Logger } from '../adapters/logger/create-logger.js';
import type { Metrics } from '../adapters/metrics/create-metrics.js';
import type { Config } from '../config/load-config.js';
import { withTimeout } from '../core/async/deadline.js';
import type { CatalogSource } from '../core/catalog/catalog-source.js';
import { issueTextsFor } from '../core/push/channel-verdicts.js';
import type { AdminPushControl } from '../http/admin/admin-push-routes.js';
import { createAdminRoutes } from '../http/admin/admin-routes.js';
import { createFetchRoutes } from '../http/console/fetch-routes.js';
import { createProductDetailRoutes } from '../http/console/product-detail-routes.js';
import { createProductSearchRoutes } from '../http/console/product-search-routes.js';
import type { PushStatuses } from '../http/console/push-section.js';
import { createStatusRoutes } from '../http/console/status-routes.js';
import { createSyncRoutes } from '../http/console/sync-routes.js';
import { createWarningRoutes } from '../http/console/warning-routes.js';
import { type OperatorTokens, operatorAccess } from '../http/middleware/token-auth.js';
import { createDocsRoutes } from '../http/routes/docs-routes.js';
import { createFeedRoutes } from '../http/routes/feed-routes.js';
import { createMetricsRoutes } from '../http/routes/metrics-routes.js';
import { createWebhookRoutes } from '../http/routes/webhook-routes.js';
import type { JobOutcome, Scheduler } from '../jobs/scheduler.js';
import type { CatalogService, SyncJob } from '../services/catalog/catalog-service.js';
import type { StoredCatalogStart } from '../services/catalog/catalog-start.js';
import type { ConsoleWarnings } from '../services/console/console-warning-sources.js';
import type { EnrichmentStatus } from '../services/enrichment/enrichment-service.js';
import type { FeedService } from '../services/feeds/feed-service.js';
import type { FetchLog } from '../services/fetches/fetch-log.js';
import { isLoggedFeed } from '../services/fetches/fetch-log-scope.js';
import type { GroupStatus } from '../services/group/group-monitor.js';
import { type JobTiming, waitingReason } from '../services/health/readiness.js';
import type { StoreHealth } from '../services/health/store-health.js';
import type { ChannelVerdictViews } from '../services/products/product-lookup.js';
import { createProductLookup } from '../services/products/product-lookup.js';
import type { GoogleVerdicts } from '../services/push/google-verdicts.js';
import type { MetaVerdicts } from '../services/push/meta-verdicts.js';
import type { WebhookProcessor } from '../services/webhooks/webhook-processor.js';
import { createShippedDocPages } from './feed-parts.js';

/** How long a console page waits for a read of the store (sync history) before it answers 503. */
const STORE_READ_DEADLINE_MS = 2_000;

/** How long a webhook's event may take to be stored before the answer is 503 (the POS delivers it again). */
const WEBHOOK_ACCEPT_DEADLINE_MS = 2_000;

/** What the routes of the running bridge are wired to. */
export interface RouterParts {
  readonly config: Config;
  readonly logger: Logger;
  readonly catalog: CatalogService;
  readonly feeds: FeedService;
  readonly jobs: Scheduler;
  readonly webhooks: WebhookProcessor;
  readonly metrics: Metrics;
  readonly source: CatalogSource;
  /** Which POS is read, for people (wiring's `describePos`). */
  readonly pos: string;
  readonly stored: StoredCatalogStart;
  readonly timing: (job: SyncJob) => JobTiming | undefined;
  readonly storeHealth: StoreHealth;
  readonly runJob: (job: SyncJob) => Promise<JobOutcome>;
  /** The phase a full sync runs now, given when it started if known (the admin area's progress page). */
  readonly phase?: (job: SyncJob, since: Date | undefined) => string | undefined;
  readonly group: () => GroupStatus | undefined;
  readonly enrichment: () => EnrichmentStatus | undefined;
  readonly warnings: () => readonly string[];
  /** Who fetches which feed: every feed response is recorded in it. */
  readonly fetches: FetchLog;
  /** The console's warnings, each with its code, severity and what to do (docs/console.md#warnings). */
  readonly consoleWarnings: ConsoleWarnings;
  /** The channel push's status per configured channel; absent when none is configured. */
  readonly push?: () => PushStatuses;
  /** The channel push, when a channel is configured: its operator controls are admin routes. */
  readonly pushControl?: AdminPushControl | undefined;
  /** Google's verdicts read back, when Google is pushed to. */
  readonly verdicts?: () => GoogleVerdicts | undefined;
  /** Meta's verdicts on the items, when Meta is pushed to. */
  readonly metaVerdicts?: () => MetaVerdicts | undefined;
}

/** The HTTP routes of the running bridge, wired to its parts (composition root, beside `start-app.ts`); their order is the order they match. */
export function createRouters(parts: RouterParts): Router[] {
  const waiting = () => waitingReason(parts.source.label, parts.catalog.lastReport('sync-catalog'), parts.timing('sync-catalog'));
  return [
    statusRouter(parts),
    feedRouter(parts, waiting),
    productSearchRouter(parts, waiting),
    createFetchRoutes({ fetches: parts.fetches, token: parts.config.feed.token }),
    createMetricsRoutes(parts.metrics.registry, operatorAccess(operatorTokensOf(parts.config))),
    productDetailRouter(parts),
    adminRouter(parts),
    webhookRouter(parts),
    ...consoleRouters(parts),
  ];
}

/** The status page and `/status.json`. */
function statusRouter(parts: RouterParts): Router {
  const { config, catalog, feeds, jobs, webhooks } = parts;
  return createStatusRoutes({
    feeds,
    consoleWarnings: () => parts.consoleWarnings.list(),
    current: () => catalog.current(),
    lastReport: (job) => catalog.lastReport(job),
    // After a failure, its retry when that comes before the scheduled run.
    nextRuns: () =>
      Object.fromEntries(
        Object.entries(jobs.status()).map(([job, status]) => [job, (status.nextTry ?? status.nextRun)?.toISOString()]),
      ),
    publicBaseUrl: config.http.publicBaseUrl,
    token: config.feed.token,
    storeCodes: config.feed.unitStoreCodes,
    webhooks: () => webhooks.stats(),
    unitCounts: async (snapshot) => (await catalog.familyIndex(snapshot)).unitCounts,
    source: parts.source.label,
    pos: parts.pos,
    notServed: () => parts.stored.notServed(),
    timing: parts.timing,
    store: () => parts.storeHealth.state(),
    group: parts.group,
    enrichment: parts.enrichment,
    warnings: parts.warnings,
    ...(parts.push === undefined ? {} : { push: parts.push }),
  });
}

/** The feeds; every fetch of a feed is logged. */
function feedRouter(parts: RouterParts, waiting: () => string): Router {
  const { config, catalog, feeds, metrics } = parts;
  return createFeedRoutes({
    feeds,
    current: () => catalog.current(),
    token: config.feed.token,
    onRequest: (feed, status) => metrics.feedRequests.inc({ feed, status: String(status) }),
    waiting,
    onFileError: (error, path) =>
      parts.logger.warn({ err: error, path }, 'a feed file failed while being sent; the answer was cut short'),
    onFetch: (fetch) => {
      const known = { isFeed: (file: string) => feeds.find(file) !== undefined, current: () => catalog.current() };
      if (isLoggedFeed(fetch, known)) parts.fetches.record(fetch);
    },
  });
}

/** The product search. */
function productSearchRouter(parts: RouterParts, waiting: () => string): Router {
  const { config, catalog } = parts;
  return createProductSearchRoutes({
    current: () => catalog.current(),
    familyIndex: (snapshot) => catalog.familyIndex(snapshot),
    token: config.feed.token,
    waiting,
  });
}

/** A product's page: its feeds, reports and last changes. */
function productDetailRouter(parts: RouterParts): Router {
  const { config, catalog, feeds, webhooks } = parts;
  return createProductDetailRoutes({
    lookup: createProductLookup({
      current: () => catalog.current(),
      familyIndex: (snapshot) => catalog.familyIndex(snapshot),
      feeds,
      reports: () => ({ catalog: catalog.lastReport('sync-catalog'), stock: catalog.lastReport('sync-stock') }),
      lastChanges: webhooks.lastChanges,
      sourceRows: (snapshot) => catalog.sourceRows(snapshot),
      channelVerdicts: (id) => channelVerdictViews(parts, id),
    }),
    token: config.feed.token,
    publicBaseUrl: config.http.publicBaseUrl,
  });
}

/** The admin area (syncs, the push's controls, the XLSX exports). */
function adminRouter(parts: RouterParts): Router {
  const { config, catalog } = parts;
  return createAdminRoutes({
    token: config.admin.token,
    sessionHours: config.admin.sessionHours,
    publicBaseUrl: config.http.publicBaseUrl,
    runJob: parts.runJob,
    lastReport: (job) => catalog.lastReport(job),
    timing: parts.timing,
    ...(parts.phase === undefined ? {} : { phase: parts.phase }),
    group: parts.group,
    ...(parts.pushControl === undefined ? {} : { push: parts.pushControl }),
    pushPaused: config.push.paused,
    catalog: () => catalog.current(),
    purchasePrices: () => catalog.purchasePrices(),
    unavailable: () => {
      const store = parts.storeHealth.state();
      return store.up ? undefined : `The store does not answer (${store.reason ?? 'no answer'}); try again once it is back`;
    },
  });
}

/** The POS webhook receiver. */
function webhookRouter(parts: RouterParts): Router {
  const { config, webhooks, metrics } = parts;
  return createWebhookRoutes({
    apiKeys: config.webhook.apiKeys,
    loopbackApiKeys: config.webhook.loopbackApiKeys,
    // Stored durably within this, or answered 503 so that the POS delivers it again (never 200 and lost).
    accept: (dedupeKey, event) => withTimeout(webhooks.accept(dedupeKey, event), WEBHOOK_ACCEPT_DEADLINE_MS, 'storing the event'),
    onEvent: (event, outcome) => metrics.webhookEvents.inc({ event, outcome }),
  });
}

/** The shipped docs, the sync history and the warnings pages. */
function consoleRouters(parts: RouterParts): Router[] {
  const { config, catalog } = parts;
  return [
    createDocsRoutes(createShippedDocPages()),
    createSyncRoutes({
      token: config.feed.token,
      // A stalled store answers 503 within this, never a page that hangs.
      history: (job) => withTimeout(catalog.syncHistory(job), STORE_READ_DEADLINE_MS, 'reading the sync history'),
      run: (runId) => withTimeout(catalog.syncRun(runId), STORE_READ_DEADLINE_MS, 'reading the sync report'),
      timeZone: config.sync.timezone,
    }),
    createWarningRoutes({ token: config.feed.token, warnings: parts.consoleWarnings }),
  ];
}

/** The tokens that open `/metrics` and the full `/readyz` (docs/security.md). */
export function operatorTokensOf(config: Config): OperatorTokens {
  return { feed: config.feed.token, metrics: config.metricsToken };
}

/**
 * What the channels that report back say of one product; `undefined` when none does. A channel whose verdicts
 * cannot be read now (its store) says so on the page; the other channel's still show.
 */
async function channelVerdictViews(parts: RouterParts, id: string): Promise<ChannelVerdictViews | undefined> {
  const google = await googleVerdictView(parts.verdicts?.(), id).catch((error: unknown) => {
    parts.logger.warn({ err: error, product: id }, "Google's verdict on a product could not be read");
    const message = `the stored verdicts could not be read: ${error instanceof Error ? error.message : String(error)}`;
    return { google: { lastError: { at: new Date().toISOString(), message } } };
  });
  const meta = parts.metaVerdicts?.();
  if (meta === undefined) return google;
  const issue = meta.item(id);
  return { ...google, meta: issue === undefined ? {} : { issue } };
}

/** Google's verdict on one product for its page and `/api/products/{id}`; `undefined` when Google is not read. */
async function googleVerdictView(verdicts: GoogleVerdicts | undefined, id: string): Promise<ChannelVerdictViews | undefined> {
  if (verdicts === undefined) return undefined;
  const summary = verdicts.summary();
  // The verdict and its texts from the same read: the summary in memory may still be the read before.
  const read = summary?.readAt === undefined ? {} : await verdicts.product(id);
  const verdict = read.verdict;
  const texts = issueTextsFor(
    read.issueTexts,
    (verdict?.issues ?? []).map((issue) => issue.code),
  );
  return {
    google: {
      ...(summary?.readAt === undefined ? {} : { readAt: summary.readAt }),
      ...(summary?.lastError === undefined ? {} : { lastError: summary.lastError }),
      ...(verdict === undefined ? {} : { verdict }),
      ...(texts === undefined ? {} : { issueTexts: texts }),
    },
  };
}
