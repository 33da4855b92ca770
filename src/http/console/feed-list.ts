import { ALL_UNITS, type CatalogSnapshot } from '../../core/catalog/catalog.js';
import type { FeedReport } from '../../core/feeds/feed-report.js';
import type { SyncReport } from '../../services/catalog/catalog-service.js';
import type { FeedDescriptor, FeedService } from '../../services/feeds/feed-service.js';

// The served version's feeds and the last syncs, as `GET /feeds` answers them and the overview shows them.

export interface FeedEntry {
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

function feedPath(descriptor: FeedDescriptor, unit: string): string {
  return descriptor.file === 'local-inventory.tsv' && unit === ALL_UNITS
    ? '/feeds/local-inventory.tsv'
    : `/feeds/${encodeURIComponent(unit)}/${descriptor.file}`;
}

/** Every feed URL of the served version, with counts and warnings (docs/http-interface.md, `GET /feeds`). */
export function listFeeds(
  feeds: FeedService,
  snapshot: CatalogSnapshot,
  base: string,
  tokenQuery: string,
  unitCounts: ReadonlyMap<string, number>,
): FeedEntry[] {
  const reports = feeds.reports();
  const views = [ALL_UNITS, ...snapshot.units.map((unit) => unit.code)];
  const counts = new Map(
    views.map((view) => [view, view === ALL_UNITS ? snapshot.products.length : (unitCounts.get(view) ?? 0)]),
  );
  const entries: FeedEntry[] = [];
  for (const view of views) {
    for (const descriptor of feeds.feeds) {
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

export type SyncSummary = ReturnType<typeof syncSummary>;

export function syncSummary(report: SyncReport | undefined) {
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
