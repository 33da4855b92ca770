import type { Request, Router } from 'express';
import type { CatalogSnapshot } from '../../core/catalog/catalog.js';
import type { SyncJob, SyncReport } from '../../services/catalog/catalog-service.js';
import type { NotServedCatalog } from '../../services/catalog/catalog-start.js';
import type { ConsoleWarning } from '../../services/console/console-warnings.js';
import type { EnrichmentStatus } from '../../services/enrichment/enrichment-service.js';
import type { FeedService } from '../../services/feeds/feed-service.js';
import type { GroupStatus } from '../../services/group/group-monitor.js';
import { type JobTiming, waitingReason } from '../../services/health/readiness.js';
import type { StoreState } from '../../services/health/store-health.js';
import type { WebhookStats } from '../../services/webhooks/webhook-processor.js';
import { createRouter } from '../create-router.js';
import { requestBaseUrl } from '../request-base-url.js';
import { createFeedTokenGuard } from '../routes/feed-routes.js';
import { listFeeds, syncSummary } from './feed-list.js';
import { consoleContext, sendPage } from './layout.js';
import { type OverviewModel, type OverviewWaiting, overviewPage } from './overview-page.js';
import type { PushStatuses } from './push-section.js';

export interface StatusRoutesDeps {
  readonly feeds: FeedService;
  readonly current: () => CatalogSnapshot | undefined;
  readonly lastReport: (job: SyncJob) => SyncReport | undefined;
  readonly nextRuns: () => Record<string, string | undefined>;
  readonly publicBaseUrl: string | undefined;
  readonly token: string | undefined;
  readonly storeCodes: Readonly<Record<string, string>>;
  /** The POS webhooks' processing, when the app has a receiver. */
  readonly webhooks?: () => WebhookStats;
  /** Products per unit of a snapshot (counted once per catalog family, off the request's path). */
  readonly unitCounts: (snapshot: CatalogSnapshot) => Promise<ReadonlyMap<string, number>>;
  /** The configured source (POS), for people. */
  readonly source: string;
  /** Which POS is read (the sandbox with its URL, and why), shown at the top of the page. */
  readonly pos?: string;
  /** A stored catalog of another source, kept but not served. */
  readonly notServed?: () => NotServedCatalog | undefined;
  /** Whether the store answers (an outage is shown above everything else). */
  readonly store?: () => StoreState;
  /** Whether a job runs now and when it runs next. */
  readonly timing?: (job: SyncJob) => JobTiming | undefined;
  /** With several instances on Redis: this instance's role in the group. */
  readonly group?: () => GroupStatus | undefined;
  /** The enrichment sheet in use and its last problem (`ENRICHMENT_SOURCE`). */
  readonly enrichment?: () => EnrichmentStatus | undefined;
  /** The warnings page's warnings (the overview shows the errors and warnings among them, and links there). */
  readonly consoleWarnings?: () => Promise<readonly ConsoleWarning[]>;
  /** What the operator should fix (empty channel feeds, an enrichment sheet that failed). */
  readonly warnings?: () => readonly string[];
  /** The channel push per configured channel (docs/channel-push.md); absent when none is configured. */
  readonly push?: () => PushStatuses;
}

/** Why no catalog is served yet, and the stored catalog of another source kept instead. */
function waitingOf(deps: StatusRoutesDeps, report: SyncReport | undefined): OverviewWaiting {
  return {
    reason: waitingReason(deps.source, report, deps.timing?.('sync-catalog')),
    notServed: deps.notServed?.(),
  };
}

export function createStatusRoutes(deps: StatusRoutesDeps): Router {
  const router = createRouter();
  const guard = createFeedTokenGuard(deps.token);

  function model(req: Request) {
    const snapshot = deps.current();
    const base = requestBaseUrl(req, deps.publicBaseUrl);
    const token = typeof req.query['token'] === 'string' ? req.query['token'] : undefined;
    // Links on the page carry the token the page was opened with, so a browser can follow them.
    const tokenQuery = token === undefined ? '' : `?token=${encodeURIComponent(token)}`;
    const sync = {
      'sync-catalog': syncSummary(deps.lastReport('sync-catalog')),
      'sync-stock': syncSummary(deps.lastReport('sync-stock')),
    };
    return { snapshot, base, tokenQuery, sync };
  }

  router.get('/feeds', guard, async (req, res) => {
    const { snapshot, base, sync } = model(req);
    res.set('cache-control', 'no-cache');
    if (snapshot === undefined) {
      res
        .status(503)
        .set('retry-after', '10')
        .json({
          ready: false,
          version: null,
          source: deps.source,
          ...(deps.pos === undefined ? {} : { pos: deps.pos }),
          reason: waitingReason(deps.source, deps.lastReport('sync-catalog'), deps.timing?.('sync-catalog')),
          feeds: [],
          warnings: deps.warnings?.() ?? [],
          ...(deps.enrichment?.() === undefined ? {} : { enrichment: deps.enrichment?.() }),
          sync,
          nextRuns: deps.nextRuns(),
          ...(deps.push === undefined ? {} : { push: deps.push() }),
        });
      return;
    }
    res.json({
      ready: true,
      version: snapshot.version,
      generatedAt: snapshot.generatedAt,
      currency: snapshot.currency,
      primaryUnit: snapshot.primaryUnit,
      source: deps.source,
      ...(deps.pos === undefined ? {} : { pos: deps.pos }),
      units: snapshot.units.map((unit) => ({
        code: unit.code,
        name: unit.name,
        storeCode: deps.storeCodes[unit.code] ?? unit.code,
      })),
      products: snapshot.products.length,
      feeds: listFeeds(deps.feeds, snapshot, base, '', await deps.unitCounts(snapshot)),
      warnings: deps.warnings?.() ?? [],
      ...(deps.enrichment?.() === undefined ? {} : { enrichment: deps.enrichment?.() }),
      sync,
      nextRuns: deps.nextRuns(),
      ...(deps.push === undefined ? {} : { push: deps.push() }),
    });
  });

  router.get('/', guard, async (req, res) => {
    const { snapshot, base, tokenQuery, sync } = model(req);
    const entries =
      snapshot === undefined ? [] : listFeeds(deps.feeds, snapshot, base, tokenQuery, await deps.unitCounts(snapshot));
    const context = consoleContext(req, res);
    const lastCatalogReport = deps.lastReport('sync-catalog');
    const consoleWarnings = await deps.consoleWarnings?.();
    const view: OverviewModel = {
      snapshot,
      base,
      tokenQuery,
      sync,
      entries,
      lastCatalogReport,
      consoleWarnings,
      source: deps.source,
      pos: deps.pos,
      ...(snapshot === undefined ? { waiting: waitingOf(deps, lastCatalogReport) } : {}),
      fallbackWarnings: deps.warnings?.() ?? [],
      store: deps.store?.(),
      group: deps.group?.(),
      nextRuns: deps.nextRuns(),
      webhooks: deps.webhooks?.(),
      push: deps.push?.(),
      enrichment: deps.enrichment?.(),
    };
    sendPage(res, context, overviewPage(context, view));
  });
  return router;
}
