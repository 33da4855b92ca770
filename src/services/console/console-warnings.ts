import { ALL_UNITS } from '../../core/catalog/catalog.js';
import type { FeedReport } from '../../core/feeds/feed-report.js';
import type { SyncJob } from '../catalog/catalog-types.js';
import type { EnrichmentSyncReport } from '../catalog/enrich-catalog.js';
import type { SyncRunSummary } from '../catalog/sync-history.js';
import type { EnrichmentStatus } from '../enrichment/enrichment-service.js';
import type { StoreState } from '../health/store-health.js';
import { type LocalText, TEXTS } from './console-warning-texts.js';

export type { LocalText } from './console-warning-texts.js';

/**
 * Everything the operator should fix, in one list (docs/console.md#warnings): the `/warnings` page and
 * `GET /api/warnings`. Each warning has a stable code (an entry of docs/report-codes.md), a severity, what
 * is wrong and what to do, in English and Czech. Other parts add theirs through `extra` (the fetch log:
 * feeds no longer fetched).
 */

export type WarningSeverity = 'error' | 'warning' | 'info';

/** The codes this module gives; other parts may add their own (documented the same way). */
export type ConsoleWarningCode =
  | 'no-product-link'
  | 'no-brand'
  | 'sandbox-pos'
  | 'store-down'
  | 'catalog-sync-failed'
  | 'catalog-sync-refused'
  | 'stock-sync-failed'
  | 'sync-rows'
  | 'empty-feed'
  | 'items-left-out'
  | 'poor-feed'
  | 'enrichment-not-updated'
  | 'enrichment-poor-match'
  | 'enrichment-unknown-feed'
  | 'feed-cache-too-small'
  | 'feed-files-failed'
  | 'feed-not-fetched'
  | 'feed-never-fetched';

export interface ConsoleWarning {
  /** Stable: `docs/report-codes.md#{code}` explains it (a `ConsoleWarningCode`, or another part's). */
  readonly code: string;
  readonly severity: WarningSeverity;
  /** What it is about, when there can be several of a code: a feed file, a report code, a job. */
  readonly subject?: string;
  /** What is wrong. */
  readonly message: LocalText;
  /** What to do. */
  readonly action: LocalText;
  /** A more precise entry of docs/report-codes.md than the code's own (an error or issue code). */
  readonly docs?: string;
}

type FeedTitles = readonly { readonly file: string; readonly title: string }[];

/** What the warnings are computed from: plain values, read when the list is asked for. */
export interface WarningInputs {
  /** Whether `FEED_PRODUCT_URL` / `FEED_BRAND` are set (or the sandbox gives links). */
  readonly settings: { readonly productUrl: boolean; readonly brand: boolean };
  /** The POS read: the built-in sandbox or not, and how it is described. */
  readonly pos: { readonly sandbox: boolean; readonly description: string };
  /** The newest run of each job (the store's history, else this process's last report). */
  readonly lastRuns: Partial<Record<SyncJob, SyncRunSummary>>;
  /** The newest full sync that read and merged its sources (not a failed one): whose rows are reported. */
  readonly lastMerged?: SyncRunSummary;
  /** When each job is tried next (after a failure: its retry), ISO 8601. */
  readonly nextTry: Partial<Record<SyncJob, string>>;
  readonly store: StoreState;
  readonly enrichment: EnrichmentStatus | undefined;
  readonly enrichmentMatch: EnrichmentSyncReport | undefined;
  readonly feedReports: ReadonlyMap<string, FeedReport>;
  readonly feeds: FeedTitles;
  readonly feedNames: readonly string[];
  readonly prewarmFit: { readonly bytes: number; readonly budget: number } | undefined;
  /** The feed files' last failed write (docs/decisions/0016-feed-files.md), until the feed is written again. */
  readonly feedFilesError?: { readonly at: string; readonly feed: string; readonly message: string } | undefined;
  /** Warnings of other parts (the fetch log's `feed-not-fetched`). */
  readonly extra?: readonly ConsoleWarning[];
}

const SEVERITY_ORDER: Readonly<Record<WarningSeverity, number>> = { error: 0, warning: 1, info: 2 };

/** Issue codes that are notes rather than faults: shown as information. */
const NOTE_CODES: ReadonlySet<string> = new Set([
  'no-price',
  'row-not-for-sale',
  'net-price-only',
  'action-price-not-below',
  'standard-price-not-above',
]);

/** A time as both languages read it in a sentence: `2026-11-26 10:59 UTC`. */
export function warningTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** Whether the enrichment sheet in use has a column (names compared as the sheet reader does). */
function sheetHas(status: EnrichmentStatus | undefined, column: string): boolean {
  const columns = status?.current?.check.columns ?? [];
  return columns.some(
    (name) =>
      name
        .trim()
        .toLowerCase()
        .replace(/[\s-]+/g, '_') === column,
  );
}

function settingWarnings(input: WarningInputs): ConsoleWarning[] {
  const warnings: ConsoleWarning[] = [];
  if (!input.settings.productUrl && !sheetHas(input.enrichment, 'link')) {
    warnings.push({ code: 'no-product-link', severity: 'warning', ...TEXTS.noProductLink });
  }
  if (!input.settings.brand && !sheetHas(input.enrichment, 'brand')) {
    warnings.push({ code: 'no-brand', severity: 'warning', ...TEXTS.noBrand });
  }
  if (input.pos.sandbox) warnings.push({ code: 'sandbox-pos', severity: 'info', ...TEXTS.sandboxPos(input.pos.description) });
  if (!input.store.up) {
    warnings.push({
      code: 'store-down',
      severity: 'error',
      ...TEXTS.storeDown(warningTime(input.store.since), input.store.reason ?? 'no answer'),
    });
  }
  return warnings;
}

function syncWarnings(input: WarningInputs): ConsoleWarning[] {
  const warnings: ConsoleWarning[] = [];
  for (const [job, name] of [
    ['sync-catalog', 'catalog'],
    ['sync-stock', 'stock'],
  ] as const) {
    const run = input.lastRuns[job];
    if (run === undefined) continue;
    const next = input.nextTry[job];
    if (run.outcome === 'failed') {
      const code = run.error?.code ?? 'SYNC_FAILED';
      warnings.push({
        code: job === 'sync-catalog' ? 'catalog-sync-failed' : 'stock-sync-failed',
        severity: job === 'sync-catalog' ? 'error' : 'warning',
        subject: job,
        docs: code,
        ...TEXTS.syncFailed(name, code, run.error?.message ?? '', warningTime(run.finishedAt), next && warningTime(next)),
      });
    } else if (run.outcome === 'refused') {
      warnings.push({
        code: 'catalog-sync-refused',
        severity: 'error',
        subject: job,
        docs: 'refused',
        ...TEXTS.syncRefused(run.reason ?? '', warningTime(run.finishedAt)),
      });
    }
  }
  // The rows of the last full sync that merged its sources (a failed run may not have got that far).
  const rows = input.lastMerged?.issueCounts ?? {};
  for (const [code, count] of Object.entries(rows).sort((a, b) => b[1] - a[1])) {
    if (count <= 0) continue;
    const severity = NOTE_CODES.has(code) ? 'info' : 'warning';
    warnings.push({ code: 'sync-rows', severity, subject: code, docs: code, ...TEXTS.syncRows(code, count) });
  }
  return warnings;
}

/** The most frequent attribute of a feed report's warnings. */
function topAttribute(report: FeedReport): string {
  return Object.entries(report.warnings.byAttribute).sort((a, b) => b[1] - a[1])[0]?.[0] ?? '?';
}

/** A recommended value missing from at least this share of a feed's items is worth a warning. */
const POOR_READINESS_SHARE = 0.5;

function feedWarnings(input: WarningInputs): ConsoleWarning[] {
  const warnings: ConsoleWarning[] = [];
  for (const feed of input.feeds) {
    // The `all` view: what channels fetch most.
    const report = input.feedReports.get(`${feed.file}|${ALL_UNITS}|`);
    if (report === undefined || report.dropped === 0) continue;
    const name = `${feed.title} (${feed.file})`;
    if (report.items === 0) {
      warnings.push({
        code: 'empty-feed',
        severity: 'error',
        subject: feed.file,
        ...TEXTS.emptyFeed(name, report.dropped, topAttribute(report)),
      });
    } else {
      const total = report.items + report.dropped;
      warnings.push({
        code: 'items-left-out',
        severity: 'warning',
        subject: feed.file,
        ...TEXTS.itemsLeftOut(name, report.dropped, total, topAttribute(report)),
      });
    }
  }
  // Values the channels recommend, one warning per value (a sandbox or a first run lacks them in every feed).
  const poor = new Map<string, string[]>();
  for (const feed of input.feeds) {
    const report = input.feedReports.get(`${feed.file}|${ALL_UNITS}|`);
    if (report?.readiness === undefined || report.items === 0) continue;
    for (const [name, missing] of Object.entries(report.readiness.missing)) {
      if (missing / report.items < POOR_READINESS_SHARE) continue;
      poor.set(name, [...(poor.get(name) ?? []), `${feed.title} (${feed.file}) ${missing}/${report.items}`]);
    }
  }
  for (const [name, feeds] of poor) {
    warnings.push({ code: 'poor-feed', severity: 'info', subject: name, ...TEXTS.poorFeed(name, feeds.join(', ')) });
  }
  return warnings;
}

/** Below this share of product rows matched, the sheet is probably keyed by the wrong column. */
const POOR_MATCH_SHARE = 0.5;
const MIB = 1024 * 1024;

function sheetAndCacheWarnings(input: WarningInputs): ConsoleWarning[] {
  const warnings: ConsoleWarning[] = [];
  const { enrichment: status, enrichmentMatch: match, prewarmFit: fit } = input;
  if (status?.problem !== undefined) {
    const { code, message } = status.problem;
    warnings.push({
      code: 'enrichment-not-updated',
      severity: 'warning',
      docs: code,
      ...TEXTS.enrichmentNotUpdated(code, message, status.current !== undefined),
    });
  }
  if (match !== undefined && match.rows > 0 && match.matched / match.rows < POOR_MATCH_SHARE) {
    warnings.push({
      code: 'enrichment-poor-match',
      severity: 'warning',
      ...TEXTS.enrichmentPoorMatch(match.matched, match.rows, match.keyColumn),
    });
  }
  const unknown = (status?.current?.check.excludeNames ?? []).filter((name) => !input.feedNames.includes(name));
  if (unknown.length > 0) {
    warnings.push({
      code: 'enrichment-unknown-feed',
      severity: 'warning',
      ...TEXTS.enrichmentUnknownFeed(unknown.join(', '), input.feedNames.join(', ')),
    });
  }
  if (fit !== undefined && fit.bytes > fit.budget) {
    const needed = Math.ceil((fit.bytes * 1.5) / MIB / 64) * 64;
    warnings.push({
      code: 'feed-cache-too-small',
      severity: 'warning',
      ...TEXTS.feedCacheTooSmall(Math.round(fit.bytes / MIB), Math.round(fit.budget / MIB), needed),
    });
  }
  const failed = input.feedFilesError;
  if (failed !== undefined) {
    warnings.push({
      code: 'feed-files-failed',
      severity: 'error',
      subject: failed.feed.split('|')[0] ?? failed.feed,
      ...TEXTS.feedFilesFailed(failed.feed.split('|').slice(0, 2).join(' / '), failed.message, failed.at),
    });
  }
  return warnings;
}

/** Every warning, errors first, then warnings, then information (each group in the order found). */
export function collectConsoleWarnings(input: WarningInputs): ConsoleWarning[] {
  const all = [
    ...settingWarnings(input),
    ...syncWarnings(input),
    ...feedWarnings(input),
    ...sheetAndCacheWarnings(input),
    ...(input.extra ?? []),
  ];
  return all
    .map((warning, index) => ({ warning, index }))
    .sort((a, b) => SEVERITY_ORDER[a.warning.severity] - SEVERITY_ORDER[b.warning.severity] || a.index - b.index)
    .map(({ warning }) => warning);
}

/** How many of each severity: what the overview shows next to its link to `/warnings`. */
export function countWarnings(warnings: readonly ConsoleWarning[]): Record<WarningSeverity | 'total', number> {
  const counts = { error: 0, warning: 0, info: 0, total: warnings.length };
  for (const warning of warnings) counts[warning.severity] += 1;
  return counts;
}
