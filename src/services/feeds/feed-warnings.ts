import { ALL_UNITS } from '../../core/catalog/catalog.js';
import type { FeedReport } from '../../core/feeds/feed-report.js';
import type { EnrichmentSyncReport } from '../catalog/enrich-catalog.js';
import type { EnrichmentStatus } from '../enrichment/enrichment-service.js';
import type { FeedFilesStatus } from './feed-files.js';

/**
 * Warnings for the people who run the bridge, in one list (`/readyz` `warnings`, the status page, the log):
 * a channel feed that came out empty although the catalog has products, with the rule that emptied it and
 * what to set; and an enrichment sheet that could not be updated.
 */

/** What to do about the attribute that left every item out (the usual first-run gaps). */
function hintFor(attribute: string): string {
  const name = attribute.toLowerCase();
  if (/(^|[^a-z])(link|url)$|^url$/.test(name) && !name.includes('image') && !name.includes('img')) {
    return 'set FEED_PRODUCT_URL (e.g. https://shop.example.cz/p/{code}) or give the enrichment sheet a link column';
  }
  if (name.includes('image') || name.includes('img')) {
    return 'set FEED_IMAGE_URL or give the enrichment sheet an image_link column';
  }
  if (name.includes('brand')) return 'set FEED_BRAND or give the enrichment sheet a brand column';
  if (name.includes('price')) return 'check the prices of the POS price lists (a price of 0 is never advertised)';
  return 'see the feed report on the status page';
}

type FeedTitles = readonly { readonly file: string; readonly title: string }[];

/** Each feed with its report of the `all` view, where it has been rendered: what channels fetch most. */
function* allViewReports(reports: ReadonlyMap<string, FeedReport>, feeds: FeedTitles) {
  for (const feed of feeds) {
    const report = reports.get(`${feed.file}|${ALL_UNITS}|`);
    if (report !== undefined) yield { feed, report };
  }
}

/** Feeds of the `all` view that were rendered empty while the view has products: the file and the warning. */
export function emptyFeeds(
  reports: ReadonlyMap<string, FeedReport>,
  feeds: FeedTitles,
): { readonly file: string; readonly warning: string }[] {
  const empty: { file: string; warning: string }[] = [];
  for (const { feed, report } of allViewReports(reports, feeds)) {
    if (report.items > 0 || report.dropped === 0) continue;
    const [attribute, count] = Object.entries(report.warnings.byAttribute).sort((a, b) => b[1] - a[1])[0] ?? ['?', 0];
    empty.push({
      file: feed.file,
      warning: `${feed.title} (${feed.file}) is empty: no item passes its rules (${report.dropped} left out, ${count} of them for a missing or invalid ${attribute}); ${hintFor(attribute)}`,
    });
  }
  return empty;
}

/** `emptyFeeds`' warnings, each with its hint. */
export function emptyFeedWarnings(reports: ReadonlyMap<string, FeedReport>, feeds: FeedTitles): string[] {
  return emptyFeeds(reports, feeds).map((empty) => empty.warning);
}

/** A recommended value missing from at least this share of a feed's items is worth a warning. */
const POOR_READINESS_SHARE = 0.5;

/** What to give the items that lack a recommended value. */
function readinessHint(name: string): string {
  const lower = name.toLowerCase();
  if (lower.includes('brand') || lower === 'manufacturer') return 'a brand column in the enrichment sheet, or FEED_BRAND';
  if (lower.includes('description')) return 'a description column in the enrichment sheet';
  if (lower.includes('categor') || lower === 'product_type') {
    return 'category columns in the enrichment sheet (group:{id} rows cover a whole article group)';
  }
  return 'the enrichment sheet';
}

/**
 * Channel feeds of the `all` view in which most items lack a value the channel recommends (templates'
 * `recommend` checks): such items are listed, but rank and pair worse. Each with what to add.
 */
export function readinessWarnings(reports: ReadonlyMap<string, FeedReport>, feeds: FeedTitles): string[] {
  const warnings: string[] = [];
  for (const { feed, report } of allViewReports(reports, feeds)) {
    const readiness = report.readiness;
    if (readiness === undefined || report.items === 0) continue;
    for (const [name, count] of Object.entries(readiness.missing)) {
      if (count / report.items < POOR_READINESS_SHARE) continue;
      warnings.push(
        `${feed.title} (${feed.file}): ${count} of ${report.items} items have no ${name}, which the channel recommends; add ${readinessHint(name)}`,
      );
    }
  }
  return warnings;
}

/** Below this share of product rows matched, the sheet is probably keyed by the wrong column. */
const POOR_MATCH_SHARE = 0.5;

/** A sheet whose rows mostly name no product: its values silently do nothing. */
export function enrichmentMatchWarnings(report: EnrichmentSyncReport | undefined): string[] {
  if (report === undefined || report.rows === 0 || report.matched / report.rows >= POOR_MATCH_SHARE) return [];
  const example = report.problems.find((problem) => problem.code === 'unmatched' || problem.code === 'ambiguous');
  return [
    `the enrichment sheet ${report.name} names a product in ${report.matched} of its ${report.rows} rows (key column ${report.keyColumn}; ${report.unmatched} unmatched, ${report.ambiguous} ambiguous${example === undefined ? '' : `, e.g. line ${example.line ?? '?'}: ${example.message}`}); is the key column the right one?`,
  ];
}

/** Feed names the sheet's `exclude` column uses that no feed has: those exclusions do nothing. */
export function excludeNameWarnings(status: EnrichmentStatus | undefined, feedNames: readonly string[]): string[] {
  const used = status?.current?.check.excludeNames ?? [];
  const unknown = used.filter((name) => !feedNames.includes(name));
  if (unknown.length === 0) return [];
  return [
    `the enrichment sheet's exclude column names feeds that do not exist, so those exclusions do nothing: ${unknown.join(', ')} (the feeds: ${feedNames.join(', ')}; * for all)`,
  ];
}

const MIB = 1024 * 1024;

/**
 * Pre-rendered feeds whose files do not fit the feed files' budget: they are kept anyway (pinned, so
 * pollers are still answered), but they take more disk than the budget, and every other feed (a unit's, a
 * download) gives way at once and is rendered again when next asked for.
 */
export function feedCacheWarnings(fit: { readonly bytes: number; readonly budget: number } | undefined): string[] {
  if (fit === undefined || fit.bytes <= fit.budget) return [];
  const needed = Math.ceil((fit.bytes * 1.5) / MIB / 64) * 64;
  return [
    `the pre-rendered feeds take ${Math.round(fit.bytes / MIB)} MiB on disk (as they are, gzip and br), more than the space for feed files (FEED_CACHE_MB=${Math.round(fit.budget / MIB)}): they are kept anyway, so the bridge uses more disk than that, and other feeds (those of single units, downloads) are deleted as soon as another is rendered, so their pollers wait while they are rendered again; set FEED_CACHE_MB to at least ${needed}`,
  ];
}

/** The feed files' last failed write: the previous file stays served until the next render writes it. */
export function feedFilesWarnings(files: FeedFilesStatus | undefined): string[] {
  const failed = files?.lastError;
  if (failed === undefined) return [];
  return [
    `could not render the feed ${failed.feed} into its file in ${files?.dir ?? ''} at ${failed.at} (${failed.message}); its previous file is served meanwhile: check the folder's free space and permissions`,
  ];
}

/** The enrichment sheet's problem, when its last read or check failed. */
export function enrichmentWarnings(status: EnrichmentStatus | undefined): string[] {
  const problem = status?.problem;
  if (problem === undefined) return [];
  const kept = status?.current === undefined ? 'no sheet is applied' : `the sheet read ${status.current.fetchedAt} stays in use`;
  return [`enrichment sheet ${status?.source ?? ''} not updated (${problem.code}): ${problem.message}; ${kept}`];
}

/** What the warnings are computed from: the feeds' reports, the sheet, the last full sync. */
export interface OperatorWarningSources {
  readonly feeds: {
    reports(): ReadonlyMap<string, FeedReport>;
    readonly feeds: FeedTitles;
    prewarmFit(): { readonly bytes: number; readonly budget: number } | undefined;
    storage?(): { readonly files?: FeedFilesStatus };
  };
  /** Names of the template feeds (what the sheet's `exclude` column may name). */
  readonly feedNames: readonly string[];
  readonly enrichment: () => EnrichmentStatus | undefined;
  readonly lastEnrichmentMatch: () => EnrichmentSyncReport | undefined;
}

/** Every warning for the operator, in one list (`/readyz` `warnings`, the status page). */
export function operatorWarnings(sources: OperatorWarningSources): string[] {
  const { feeds } = sources;
  const reports = feeds.reports();
  const enrichment = sources.enrichment();
  return [
    ...emptyFeedWarnings(reports, feeds.feeds),
    ...enrichmentWarnings(enrichment),
    ...enrichmentMatchWarnings(sources.lastEnrichmentMatch()),
    ...excludeNameWarnings(enrichment, sources.feedNames),
    ...readinessWarnings(reports, feeds.feeds),
    ...feedCacheWarnings(feeds.prewarmFit()),
    ...feedFilesWarnings(feeds.storage?.().files),
  ];
}
