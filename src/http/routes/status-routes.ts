import { type Request, Router } from 'express';
import { ALL_UNITS, type CatalogSnapshot } from '../../core/catalog/catalog.js';
import type { FeedReport } from '../../core/feeds/feed-report.js';
import type { SyncJob, SyncReport } from '../../services/catalog-service.js';
import type { NotServedCatalog } from '../../services/catalog-start.js';
import type { EnrichmentStatus } from '../../services/enrichment/enrichment-service.js';
import type { FeedDescriptor, FeedService } from '../../services/feed-service.js';
import type { GroupStatus } from '../../services/group-monitor.js';
import { type JobTiming, waitingReason } from '../../services/readiness.js';
import type { StoreState } from '../../services/store-health.js';
import type { WebhookStats } from '../../services/webhook-processor.js';
import { reportCodeHref } from './docs-routes.js';
import { createFeedTokenGuard } from './feed-routes.js';
import { enrichmentLine, escapeHtml, readinessCell, warningsNotice } from './status-sections.js';

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
  /** What the operator should fix (empty channel feeds, an enrichment sheet that failed). */
  readonly warnings?: () => readonly string[];
}

interface FeedEntry {
  readonly feed: string;
  readonly title: string;
  readonly format: string;
  readonly unit: string;
  readonly url: string;
  readonly downloadUrl?: string;
  /**
   * Items in the feed once it has been rendered for this version; `null` until then (a channel's rules
   * leave some of the view's products out, so the view's count would overstate it).
   */
  readonly items: number | null;
  /** Products in the view (the most the feed can have). */
  readonly viewProducts: number;
  readonly rendered: boolean;
  readonly warnings?: {
    readonly count: number;
    readonly byAttribute: Readonly<Record<string, number>>;
    readonly byCode: FeedReport['warnings']['byCode'];
    readonly examples: FeedReport['warnings']['examples'];
  };
  /** Items the enrichment sheet's `exclude` column leaves out. */
  readonly excluded?: number;
  /** Items missing values the channel recommends (templates with `recommend`). */
  readonly readiness?: FeedReport['readiness'];
}

function baseUrlOf(req: Request, configured: string | undefined): string {
  if (configured !== undefined) return configured;
  const host = req.headers.host ?? 'localhost';
  return `${req.protocol}://${host}`;
}

function feedPath(descriptor: FeedDescriptor, unit: string): string {
  return descriptor.file === 'local-inventory.tsv' && unit === ALL_UNITS
    ? '/feeds/local-inventory.tsv'
    : `/feeds/${encodeURIComponent(unit)}/${descriptor.file}`;
}

/** Every feed URL of the served version, with counts and warnings (docs/http-interface.md, `GET /feeds`). */
function listFeeds(
  deps: StatusRoutesDeps,
  snapshot: CatalogSnapshot,
  base: string,
  tokenQuery: string,
  unitCounts: ReadonlyMap<string, number>,
): FeedEntry[] {
  const reports = deps.feeds.reports();
  const views = [ALL_UNITS, ...snapshot.units.map((unit) => unit.code)];
  const counts = new Map(
    views.map((view) => [view, view === ALL_UNITS ? snapshot.products.length : (unitCounts.get(view) ?? 0)]),
  );
  const entries: FeedEntry[] = [];
  for (const view of views) {
    for (const descriptor of deps.feeds.feeds) {
      if (!descriptor.servesView(view)) continue;
      const report = reports.get(`${descriptor.file}|${view}|`);
      const url = `${base}${feedPath(descriptor, view)}`;
      entries.push({
        feed: descriptor.name,
        title: descriptor.title,
        format: descriptor.format,
        unit: view,
        url,
        ...(descriptor.file === 'products.csv'
          ? { downloadUrl: `${url}?profile=excel${tokenQuery ? `&${tokenQuery.slice(1)}` : ''}` }
          : {}),
        items: report?.items ?? null,
        viewProducts: counts.get(view) ?? 0,
        rendered: report !== undefined,
        ...(report === undefined
          ? {}
          : {
              warnings: {
                count: report.warnings.count,
                byAttribute: report.warnings.byAttribute,
                byCode: report.warnings.byCode,
                examples: report.warnings.examples.slice(0, 5),
              },
              excluded: report.excluded,
              ...(report.readiness === undefined
                ? {}
                : { readiness: { ...report.readiness, examples: report.readiness.examples.slice(0, 5) } }),
            }),
      });
    }
  }
  return entries;
}

function syncSummary(report: SyncReport | undefined) {
  if (report === undefined) return null;
  return {
    outcome: report.outcome,
    finishedAt: report.finishedAt,
    durationMs: report.durationMs,
    ...(report.error ? { error: report.error } : {}),
    ...(report.reason ? { reason: report.reason } : {}),
    ...(report.merge ? { issueCounts: report.merge.issueCounts, warnings: report.merge.warnings } : {}),
  };
}

/** Which spreadsheet download to take: the workbook is right in every locale, the Excel CSV only in a Czech one. */
const SPREADSHEET_NOTE =
  '<p id="spreadsheets">Spreadsheets: <strong>Catalog (Excel workbook)</strong>, <code>products.xlsx</code>, opens right in Excel, LibreOffice and Google Sheets in any language or region: codes and EANs stay text (leading zeros kept), prices and stock are numbers. The <strong>Excel CSV</strong> (<code>products.csv?profile=excel</code>) assumes a <strong>Czech</strong> locale (<code>;</code> between fields, decimal comma); opened with other regional settings, prices may become text and <code>76,131</code> kg the number 76131. Programs take <code>products.csv</code> (RFC 4180).</p>';

/** A report code linked to its entry in docs/report-codes.md (served by the bridge at /docs). */
function codeLink(base: string, code: string, text: string = code): string {
  return `<a href="${escapeHtml(reportCodeHref(base, code))}">${escapeHtml(text)}</a>`;
}

export function createStatusRoutes(deps: StatusRoutesDeps): Router {
  const router = Router();
  const guard = createFeedTokenGuard(deps.token);

  function model(req: Request) {
    const snapshot = deps.current();
    const base = baseUrlOf(req, deps.publicBaseUrl);
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
          reason: waitingReason(deps.source, deps.lastReport('sync-catalog'), deps.timing?.('sync-catalog')),
          feeds: [],
          warnings: deps.warnings?.() ?? [],
          ...(deps.enrichment?.() === undefined ? {} : { enrichment: deps.enrichment?.() }),
          sync,
          nextRuns: deps.nextRuns(),
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
      units: snapshot.units.map((unit) => ({
        code: unit.code,
        name: unit.name,
        storeCode: deps.storeCodes[unit.code] ?? unit.code,
      })),
      products: snapshot.products.length,
      feeds: listFeeds(deps, snapshot, base, '', await deps.unitCounts(snapshot)),
      warnings: deps.warnings?.() ?? [],
      ...(deps.enrichment?.() === undefined ? {} : { enrichment: deps.enrichment?.() }),
      sync,
      nextRuns: deps.nextRuns(),
    });
  });

  router.get('/', guard, async (req, res) => {
    const { snapshot, base, tokenQuery, sync } = model(req);
    const counts = snapshot === undefined ? new Map<string, number>() : await deps.unitCounts(snapshot);
    res
      .set('cache-control', 'no-cache')
      .type('html')
      .send(renderStatusPage(deps, snapshot, base, tokenQuery, sync, counts));
  });
  return router;
}

/** Why there is no catalog yet: the first sync runs, or failed and when it is tried again; and what the store holds instead. */
function waitingNotice(deps: StatusRoutesDeps): string {
  const report = deps.lastReport('sync-catalog');
  const reason = waitingReason(deps.source, report, deps.timing?.('sync-catalog'));
  const failed = report?.outcome === 'failed' || report?.outcome === 'refused';
  const sentence = `${reason.charAt(0).toUpperCase()}${reason.slice(1)}.`;
  const notServed = deps.notServed?.();
  const aside =
    notServed === undefined
      ? ''
      : `<p class="notice" id="not-served">The stored catalog (version <code>${escapeHtml(notServed.version)}</code>, ${notServed.products} products) came from ${escapeHtml(notServed.source)}, not from the configured POS: it is not served, and the first catalog from ${escapeHtml(deps.source)} replaces it.</p>`;
  return `<p class="notice${failed ? ' failed-notice' : ''}" id="waiting">${escapeHtml(sentence)} Feeds answer 503 until a catalog is built. This page refreshes itself.</p>${aside}`;
}

/** This instance's place in a group on Redis: its role, the leader, and whether it serves the group's version. */
function groupLine(group: GroupStatus | undefined, base: string): string {
  if (group === undefined) return '';
  const role =
    group.role === 'leader'
      ? `This instance (<code>${escapeHtml(group.instance)}</code>) leads the group: it runs the scheduled syncs and stores the catalog.`
      : `This instance (<code>${escapeHtml(group.instance)}</code>) follows; the leader is <code>${escapeHtml(group.leader ?? 'unknown (none holds the lease now)')}</code>.`;
  const version =
    group.behind === 0
      ? "It serves the group's current version."
      : `<span class="failed">It is ${group.behind} change(s) behind the group's version <code>${escapeHtml(group.groupVersion ?? '')}</code>.</span>`;
  const inbox =
    group.inbox === undefined
      ? ''
      : ` Shared webhook inbox: ${group.inbox.depth} event(s), ${group.inbox.pending} handed out and not completed; ${group.inbox.claimed} taken over by this instance.`;
  const error = group.error === undefined ? '' : ` <span class="failed">Redis: ${escapeHtml(group.error)}</span>`;
  return `<p id="group">${role} ${version}${inbox}${error} See <a href="${escapeHtml(`${base}/docs/scale-out`)}">running several instances</a>.</p>`;
}

/** A store outage, said first: feeds come from memory and webhooks are refused until it is back. */
function storeNotice(store: StoreState | undefined, base: string): string {
  if (store === undefined || store.up) return '';
  return `<p class="notice failed-notice" id="store-down">The store does not answer since ${escapeHtml(store.since)} (${escapeHtml(store.reason ?? 'no answer')}): feeds are served from memory, sale webhooks answer 503 (the POS delivers them again) and syncs wait until it is back. See <a href="${escapeHtml(`${base}/docs/failure-modes#the-store`)}">failure modes</a>.</p>`;
}

/** One line on the POS's sale webhooks: what waits, and what became of the sales since start. */
function webhookLine(stats: WebhookStats | undefined, base: string): string {
  if (stats === undefined) return '';
  const { applied, refetched, dropped } = stats.sales;
  const last = stats.lastSaleServedAt === undefined ? 'none yet' : escapeHtml(stats.lastSaleServedAt);
  const droppedText =
    dropped > 0 ? ` · <span class="failed">${dropped} ${codeLink(base, 'dropped', 'left to the stock sync')}</span>` : '';
  return `<p id="webhooks">Sale webhooks since start: ${applied} ${codeLink(base, 'applied', 'applied from their movements')} · ${refetched} ${codeLink(base, 'refetched', 'shown by re-reading the stock')}${droppedText} · ${stats.pending} waiting · last sale served: ${last}</p>`;
}

function renderStatusPage(
  deps: StatusRoutesDeps,
  snapshot: CatalogSnapshot | undefined,
  base: string,
  tokenQuery: string,
  sync: Record<string, ReturnType<typeof syncSummary>>,
  unitCounts: ReadonlyMap<string, number>,
): string {
  const h = escapeHtml;
  const syncRows = Object.entries(sync)
    .map(([job, summary]) => {
      const outcome = summary?.outcome ?? 'not run yet';
      const detail = summary?.error?.message ?? summary?.reason ?? '';
      const errorCode = summary?.error === undefined ? '' : `${codeLink(base, summary.error.code)}: `;
      const next = deps.nextRuns()[job];
      return `<tr><td>${h(job)}</td><td class="${h(outcome)}">${summary ? codeLink(base, outcome) : h(outcome)}</td><td>${h(summary?.finishedAt ?? '')}</td><td>${summary ? `${summary.durationMs} ms` : ''}</td><td>${h(next ?? '')}</td><td>${errorCode}${h(detail)}</td></tr>`;
    })
    .join('');
  let body: string;
  if (snapshot === undefined) {
    body = waitingNotice(deps);
  } else {
    const entries = listFeeds(deps, snapshot, base, tokenQuery, unitCounts);
    const units = [ALL_UNITS, ...snapshot.units.map((unit) => unit.code)];
    const sections = units
      .map((view) => {
        const unitName =
          view === ALL_UNITS ? 'All units (stock summed)' : (snapshot.units.find((unit) => unit.code === view)?.name ?? view);
        const rows = entries
          .filter((entry) => entry.unit === view)
          .map((entry) => {
            const href = `${entry.url}${tokenQuery}`;
            const warnings =
              entry.warnings && entry.warnings.count > 0
                ? `<details><summary>${entry.warnings.count} left out: ${Object.entries(entry.warnings.byCode)
                    .map(([code, count]) => `${codeLink(base, code)} ${count}`)
                    .join(', ')}</summary><ul>${Object.entries(entry.warnings.byAttribute)
                    .map(([attribute, count]) => `<li>${count} × ${h(attribute)}</li>`)
                    .join(
                      '',
                    )}${entry.warnings.examples.map((example) => `<li>e.g. ${h(example.itemId)}: ${h(example.attribute)} ${codeLink(base, example.code, example.reason)}</li>`).join('')}</ul></details>`
                : entry.rendered
                  ? 'none'
                  : '<span class="muted">not rendered yet</span>';
            const download =
              entry.downloadUrl === undefined
                ? ''
                : ` <a class="button" href="${h(entry.downloadUrl)}" download title="Czech locale: ; separator, decimal comma">Excel CSV (Czech locale)</a>`;
            return `<tr><td>${h(entry.title)}</td><td>${h(entry.format)}</td><td><a href="${h(href)}">${h(entry.url)}</a>${download}</td><td class="num">${entry.items ?? `<span class="muted" title="not rendered yet for this version; ${entry.viewProducts} products in the view">—</span>`}</td><td>${warnings}</td><td>${readinessCell(entry.readiness, entry.items)}</td></tr>`;
          })
          .join('');
        return `<h2>${h(view)} — ${h(unitName)}</h2><table><thead><tr><th>feed</th><th>format</th><th>URL</th><th>items</th><th>left out</th><th>channel-ready</th></tr></thead><tbody>${rows}</tbody></table>`;
      })
      .join('');
    const mergeIssues = Object.entries(sync['sync-catalog']?.issueCounts ?? {})
      .map(([reason, count]) => `<li>${codeLink(base, reason)}: ${count}</li>`)
      .join('');
    body = `<p>Source: ${h(deps.source)}</p>
<p>Version <code>${h(snapshot.version)}</code> generated ${h(snapshot.generatedAt)} · ${snapshot.products.length} products · ${snapshot.units.length} units · ${h(snapshot.currency)}</p>
${mergeIssues ? `<details><summary>Rows the last full sync reported</summary><ul>${mergeIssues}</ul></details>` : ''}
${SPREADSHEET_NOTE}
${sections}`;
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>catalog-bridge</title>${snapshot === undefined ? '<meta http-equiv="refresh" content="5">' : ''}
<style>
body{font-family:system-ui,sans-serif;margin:2rem;max-width:80rem;color:#222}
table{border-collapse:collapse;width:100%;margin-bottom:1.5rem}th,td{border-bottom:1px solid #ddd;padding:.35rem .5rem;text-align:left;vertical-align:top}
td.num{text-align:right}.failed,.refused{color:#b00020;font-weight:600}.published,.unchanged{color:#1b5e20}.muted{color:#888}
a.button{display:inline-block;margin-left:.5rem;padding:.1rem .5rem;border:1px solid #1565c0;border-radius:.3rem;text-decoration:none}
code{background:#f3f3f3;padding:0 .2rem}.notice{padding:1rem;background:#fff8e1}.failed-notice{background:#fdecea}
</style></head><body>
<h1>catalog-bridge</h1>
${deps.pos === undefined ? '' : `<p id="pos">POS: ${h(deps.pos)}</p>`}
${warningsNotice(deps.warnings?.() ?? [])}
${storeNotice(deps.store?.(), base)}
${groupLine(deps.group?.(), base)}
<table><thead><tr><th>job</th><th>last outcome</th><th>finished</th><th>took</th><th>next run</th><th>detail</th></tr></thead><tbody>${syncRows}</tbody></table>
${webhookLine(deps.webhooks?.(), base)}
${enrichmentLine(deps.enrichment?.(), deps.lastReport('sync-catalog')?.sources?.enrichment)}
${body}
<p class="muted">Machine-readable: <a href="${h(`${base}/feeds${tokenQuery}`)}">/feeds</a> · <a href="${h(`${base}/readyz`)}">/readyz</a> · <a href="${h(`${base}/docs/`)}">documentation</a></p>
</body></html>`;
}
